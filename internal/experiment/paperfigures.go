package experiment

import (
	"fmt"
	"strings"
)

// A PaperFigure is a number a paper prints, tied to the cell of ours it
// stands beside: putting the paper's own figure next to ours is one line
// in paperFigures.
type PaperFigure struct {
	// Paper is the paper's number ("003"), Where where it prints the
	// figure.
	Paper, Where string
	// Setup and Column name the cell of ours the figure describes;
	// Figure names the quantity (a Figures name, e.g. "mean cost").
	Setup, Column, Figure string
	// Against, if set, makes Value a change of Column against this
	// column: a difference in Figure's unit, or, with Percent, a
	// relative change in percent.
	Against string
	Percent bool
	// Value is the figure; Upto, when not 0, makes it the range Value …
	// Upto.
	Value, Upto float64
}

// paperFigures are the papers' printed figures that our tables and the
// scorecard set beside ours.
var paperFigures = []PaperFigure{
	{Paper: "003", Where: "§4 exp. 1", Setup: "exp. 1", Column: "fifo", Figure: "mean response", Value: 1175.5},
	{Paper: "003", Where: "§4 exp. 1", Setup: "exp. 1", Column: "fifo", Figure: "mean cost", Value: 152.6},
	{Paper: "003", Where: "§4 exp. 1", Setup: "exp. 1", Column: "DBS", Figure: "mean response", Value: 1154.75},
	{Paper: "003", Where: "§4 exp. 1", Setup: "exp. 1", Column: "DBS", Figure: "mean cost", Value: 145.29},
	// exp. 2 prints DBS's figures and its margins over FIFO: + 76.5 s,
	// + 21.9.
	{Paper: "003", Where: "§4 exp. 2", Setup: "exp. 2", Column: "fifo", Figure: "mean response", Value: 1230 + 76.5},
	{Paper: "003", Where: "§4 exp. 2", Setup: "exp. 2", Column: "fifo", Figure: "mean cost", Value: 148.07 + 21.9},
	{Paper: "003", Where: "§4 exp. 2", Setup: "exp. 2", Column: "DBS", Figure: "mean response", Value: 1230},
	{Paper: "003", Where: "§4 exp. 2", Setup: "exp. 2", Column: "DBS", Figure: "mean cost", Value: 148.07},

	// Paper 004 §4.2 (figs. 7, 9): fgm's offline workload completion time
	// 19.47–27.94% below each baseline's, its mean job completion time
	// below each baseline's by the percentage given.
	{Paper: "004", Where: "§4.2 fig. 7", Setup: "offline", Column: "fgm", Against: "each baseline", Figure: "makespan", Percent: true, Value: -19.47, Upto: -27.94},
	{Paper: "004", Where: "§4.2 fig. 9", Setup: "offline", Column: "fgm", Against: "fifo", Figure: "mean job completion", Percent: true, Value: -30.92},
	{Paper: "004", Where: "§4.2 fig. 9", Setup: "offline", Column: "fgm", Against: "capacity", Figure: "mean job completion", Percent: true, Value: -34.49},
	{Paper: "004", Where: "§4.2 fig. 9", Setup: "offline", Column: "fgm", Against: "fair", Figure: "mean job completion", Percent: true, Value: -52.09},
	{Paper: "004", Where: "§4.2 fig. 9", Setup: "offline", Column: "fgm", Against: "drf", Figure: "mean job completion", Percent: true, Value: -19.97},
	{Paper: "004", Where: "§4.2 fig. 11", Setup: "offline", Column: "fgm", Against: "drf", Figure: "Jain unmet", Percent: true, Value: -0.31},
	// §4.3 (fig. 13): the gain grows with the input, to about 31% at the
	// largest; §4.4 (fig. 18): 57.48–62.4% at the largest inputs.
	{Paper: "004", Where: "§4.3 fig. 13", Setup: "online, dedicated", Column: "fgm", Against: "best baseline", Figure: "makespan", Percent: true, Value: -31},
	{Paper: "004", Where: "§4.4 fig. 18", Setup: "online, cloud", Column: "fgm", Against: "best baseline", Figure: "makespan", Percent: true, Value: -57.48, Upto: -62.4},
}

// paperFigure returns the paper's figure for the cell and quantity, and
// whether the paper prints one.
func paperFigure(setup, column, figure, against string) (PaperFigure, bool) {
	for _, f := range paperFigures {
		if f.Setup == setup && f.Column == column && f.Figure == figure && f.Against == against {
			return f, true
		}
	}
	return PaperFigure{}, false
}

// mustPaper returns the paper's figure for a table that prints it.
func mustPaper(setup, column, figure, against string) PaperFigure {
	f, ok := paperFigure(setup, column, figure, against)
	if !ok {
		panic(fmt.Sprintf("experiment: no paper figure %s/%s %s against %q", setup, column, figure, against))
	}
	return f
}

// Text prints a percentage figure as the paper does, with a true minus
// sign: "−30.92%", or its range "−19.47 … −27.94%".
func (f PaperFigure) Text() string {
	one := func(v float64) string { return strings.Replace(fmt.Sprintf("%.2f", v), "-", "−", 1) }
	unit := ""
	if f.Percent {
		unit = "%"
	}
	if f.Upto != 0 {
		return one(f.Value) + " … " + one(f.Upto) + unit
	}
	return one(f.Value) + unit
}

// PaperFigureFor returns the paper's figure printed for a cell of ours
// and a quantity (against "" for the cell's own value), and whether the
// paper prints one.
func PaperFigureFor(setup, column, figure, against string) (PaperFigure, bool) {
	return paperFigure(setup, column, figure, against)
}

package experiment

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit/internal/metrics"
)

// A Claim is a paper's headline claim, judged from the cells of one
// experiment's run: the scorecard's rows. Adding one is a value in
// claims.
type Claim struct {
	// Paper is the paper's number; Text the claim in a few words.
	Paper, Text string
	// Experiment is the experiment whose cells judge the claim; Setup
	// the setup ("" for its last, e.g. an online sweep's largest input).
	Experiment, Setup string
	// Figure is the quantity compared (a Figures name); Higher says a
	// larger one is better.
	Figure string
	Higher bool
	// Ours is the column of the paper's algorithm; Against the column it
	// is compared with ("" for the best baseline: the best of every other
	// column of the setup), on AgainstSetup ("" for Setup). NoBaseline
	// says the setup's other columns are no baselines (a binding's
	// options), so none is printed.
	Ours, Against, AgainstSetup string
	NoBaseline                  bool
	// Kind says how the claim is judged.
	Kind ClaimKind
	// Stated is the paper's figure where it prints no number (Beats,
	// Within), e.g. "higher (fig. 3)".
	Stated string
	// Target is the paper's change of Ours against Against (Margin), as
	// printed: its weaker end must be met.
	Target PaperFigure
	// Tolerance is the largest relative change, in percent, that still
	// counts as equal (Within); Ratio, if set, names the ratio of Ours
	// to Against that the row prints instead of the change.
	Tolerance float64
	Ratio     string
	// Bound, if set, is printed beside the verdict; a Margin whose
	// target lies beyond it is out of reach.
	Bound *Bound
}

// ClaimKind is how a claim is judged.
type ClaimKind uint8

// Claim kinds.
const (
	// Beats: Ours is better than Against.
	Beats ClaimKind = iota
	// Margin: Ours changes Against by at least the paper's Target.
	Margin
	// Within: Ours is within Tolerance percent of Against.
	Within
)

// claims are the papers' headline claims, in paper order.
var claims = []Claim{
	{Paper: "000", Text: "LSS meets more deadlines than FIFO, light load", Experiment: "paper000-light", Setup: "paper000-light",
		Figure: "deadline success", Higher: true, Ours: "lss", Against: "fifo", Kind: Beats, Stated: "higher (fig. 3)"},
	{Paper: "000", Text: "LSS meets more deadlines than FIFO, heavy load", Experiment: "paper000-heavy", Setup: "paper000-heavy",
		Figure: "deadline success", Higher: true, Ours: "lss", Against: "fifo", Kind: Beats, Stated: "higher (fig. 3)"},
	{Paper: "001", Text: "Cluster4-3 no faster than Cluster4-2 (LU ×1)", Experiment: "accel", Setup: "LU/Cluster4-3/x1/10MB",
		Figure: "makespan", Ours: "paper", Against: "paper", AgainstSetup: "LU/Cluster4-2/x1/10MB", NoBaseline: true, Kind: Within, Tolerance: 1, Ratio: "4-3 ÷ 4-2", Stated: "equal (fig. 5)"},
	{Paper: "003", Text: "exp. 1: DBS cheaper than FIFO", Experiment: "paper003-exp1", Setup: "paper003-exp1",
		Figure: "mean cost", Ours: "dbs", Against: "fifo", Kind: Margin, Target: paperChange("exp. 1", "mean cost")},
	// Exp. 1's four equal jobs, as the paper's fig. 1 describes them, run
	// two side by side (Job3 and Job4): no such schedule passes
	// TwoSideBySideBound.
	{Paper: "003", Text: "exp. 1: DBS responds faster than FIFO", Experiment: "paper003-exp1", Setup: "paper003-exp1",
		Figure: "mean response", Ours: "dbs", Against: "fifo", Kind: Margin, Target: paperChange("exp. 1", "mean response"), Bound: &TwoSideBySideBound},
	{Paper: "003", Text: "exp. 2: DBS cheaper than FIFO", Experiment: "paper003-exp2", Setup: "paper003-exp2",
		Figure: "mean cost", Ours: "dbs", Against: "fifo", Kind: Margin, Target: paperChange("exp. 2", "mean cost")},
	{Paper: "003", Text: "exp. 2: DBS responds faster than FIFO", Experiment: "paper003-exp2", Setup: "paper003-exp2",
		Figure: "mean response", Ours: "dbs", Against: "fifo", Kind: Margin, Target: paperChange("exp. 2", "mean response"), Bound: &SubmittedTogetherBound},
	{Paper: "004", Text: "offline: fgm finishes the workload sooner", Experiment: "paper004-offline", Setup: "paper004-offline",
		Figure: "makespan", Ours: "fgm", Kind: Margin, Target: mustPaper("offline", "fgm", "makespan", "each baseline"), Bound: &MakespanBound},
	{Paper: "004", Text: "offline: fgm's mean job completion below DRF's", Experiment: "paper004-offline", Setup: "paper004-offline",
		Figure: "mean job completion", Ours: "fgm", Against: "drf", Kind: Margin, Target: mustPaper("offline", "fgm", "mean job completion", "drf"), Bound: &MeanCompletionBound},
	{Paper: "004", Text: "offline: fgm's Jain index within 1% of DRF's", Experiment: "paper004-offline", Setup: "paper004-offline",
		Figure: "Jain unmet", Higher: true, Ours: "fgm", Against: "drf", Kind: Within, Tolerance: 1, Stated: mustPaper("offline", "fgm", "Jain unmet", "drf").Text()},
	{Paper: "004", Text: "online, largest input: fgm finishes sooner", Experiment: "paper004-online",
		Figure: "makespan", Ours: "fgm", Kind: Margin, Target: mustPaper("online, dedicated", "fgm", "makespan", "best baseline"), Bound: &MakespanBound},
	{Paper: "004", Text: "cloud, largest input: fgm finishes sooner", Experiment: "paper004-cloud",
		Figure: "makespan", Ours: "fgm", Kind: Margin, Target: mustPaper("online, cloud", "fgm", "makespan", "best baseline"), Bound: &MakespanBound},
}

// paperChange is paper 003's margin of DBS over FIFO on one of its
// experiments, from the figures it prints for each.
func paperChange(setup, figure string) PaperFigure {
	d, f := mustPaper(setup, "DBS", figure, ""), mustPaper(setup, "fifo", figure, "")
	return PaperFigure{Paper: d.Paper, Where: d.Where, Setup: setup, Column: "DBS", Against: "fifo", Figure: figure, Value: d.Value - f.Value}
}

// ScorecardTitle heads the scorecard table.
const ScorecardTitle = "reproduction scorecard: each paper's headline claim, the paper's figure, its algorithm and the best baseline in this run"

// Scorecard judges every claim whose experiment is among results, from
// the cells of that result: a table with one row per claim.
func Scorecard(results []Result) metrics.Table {
	t := metrics.Table{Title: ScorecardTitle, Columns: []string{"paper", "ours", "best baseline", "holds"}}
	for _, c := range claims {
		for _, r := range results {
			if r.Experiment != c.Experiment || r.Cells == nil {
				continue
			}
			if row, ok := c.judge(r.Cells); ok {
				t.Rows = append(t.Rows, row)
			}
		}
	}
	t.Notes = append(t.Notes,
		"ours: the paper's algorithm here, beside what it is compared with; a change is against that column (or the best baseline), as the paper gives its own",
		"holds: yes, no, or out of reach when the paper's figure lies beyond the bound no schedule can pass in this world (the bound is printed)")
	return t
}

// judge is the claim's scorecard row, false if the cells lack it.
func (c Claim) judge(cells *Cells) (metrics.Row, bool) {
	fig, err := FigureNamed(c.Figure)
	setup := c.Setup
	if setup == "" {
		names := cells.Setups()
		setup = names[len(names)-1]
	}
	ours := cells.Lookup(setup, c.Ours)
	if err != nil || ours == nil {
		return metrics.Row{}, false
	}
	best, bestVal := c.best(cells, setup, fig)
	var ref *Cell
	if c.Against != "" {
		as := c.AgainstSetup
		if as == "" {
			as = setup
		}
		ref = cells.Lookup(as, c.Against)
	} else {
		ref = best
	}
	o := fig.Of(ours)
	if ref == nil || !o.Valid || !fig.Of(ref).Valid {
		return metrics.Row{}, false
	}
	rv := fig.Of(ref).V
	row := metrics.Row{Name: fmt.Sprintf("%s %s", c.Paper, c.Text)}
	bestText := "—"
	if best != nil && !c.NoBaseline {
		bestText = fmt.Sprintf("%s %s", best.Sum.Policy, fig.Format(bestVal))
	}
	better := func(a, b float64) bool { return (c.Higher && a > b) || (!c.Higher && a < b) }
	var paper, oursText, holds string
	switch c.Kind {
	case Beats:
		paper = c.Stated
		oursText = fmt.Sprintf("%s (%s %s)", fig.Format(o), ref.Sum.Policy, fig.Format(fig.Of(ref)))
		holds = yesNo(better(o.V, rv))
	case Within:
		paper = c.Stated
		ch := 100 * (o.V - rv) / rv
		oursText = fig.FormatChange(ch, true) + " against " + ref.Sum.Policy
		if c.Ratio != "" {
			oursText = fmt.Sprintf("%s = %.3f", c.Ratio, o.V/rv)
		}
		holds = yesNo(math.Abs(ch) <= c.Tolerance)
	case Margin:
		paper = c.Target.Text()
		if !c.Target.Percent {
			paper = fig.FormatChange(c.Target.Value, false)
		}
		weak := c.Target.Value
		if c.Target.Upto != 0 && better(weak, c.Target.Upto) {
			weak = c.Target.Upto
		}
		change, target := o.V-rv, rv+weak
		if c.Target.Percent {
			change, target = 100*(o.V-rv)/rv, rv*(1+weak/100)
		}
		oursText = fig.FormatChange(change, c.Target.Percent) + " against " + ref.Sum.Policy
		holds = yesNo(!better(weak, change))
		if b, ok := c.bound(cells, setup); ok && holds == "no" && better(target, b) {
			holds = "out of reach"
		}
	}
	if b, ok := c.bound(cells, setup); ok {
		holds += fmt.Sprintf(" (%s %s)", c.Bound.Name, fig.Format(metrics.Number{V: b, Valid: true}))
	}
	row.Cells = []string{paper, oursText, bestText, holds}
	return row, true
}

// bound is the claim's bound on setup, if it has one that applies.
func (c Claim) bound(cells *Cells, setup string) (float64, bool) {
	if c.Bound == nil || cells.World(setup) == nil {
		return 0, false
	}
	return c.Bound.Of(cells.World(setup))
}

// best returns the best baseline of the setup by the figure: every
// column but Ours.
func (c Claim) best(cells *Cells, setup string, fig Figure) (*Cell, metrics.Number) {
	var best *Cell
	var bv metrics.Number
	for _, x := range cells.All() {
		if x.Setup != setup || x.Column == c.Ours {
			continue
		}
		v := fig.Of(x)
		if v.Valid && (best == nil || (c.Higher && v.V > bv.V) || (!c.Higher && v.V < bv.V)) {
			best, bv = x, v
		}
	}
	return best, bv
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// ScorecardResult is the scorecard as a result of its own, for printing
// after the results it judges.
func ScorecardResult(results []Result) Result {
	return Result{Experiment: "scorecard", Title: ScorecardTitle, Tables: []metrics.Table{Scorecard(results)}}
}

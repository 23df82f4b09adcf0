package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
)

// SeedCells are the cells of one run of an experiment with one seed.
type SeedCells struct {
	Seed  uint64
	Cells *Cells
}

// figureBounds are the bounds a seed table of a figure sets beside each
// row.
var figureBounds = map[string]*Bound{
	"makespan":            &MakespanBound,
	"mean response":       &MeanCompletionBound,
	"mean job completion": &MeanCompletionBound,
}

// seedColumn is one column of a seed table: a cell's figure, or the
// relative change of one column's figure against another's (or against
// the best of several).
type seedColumn struct {
	col     string
	against []string // empty: the column's own figure
}

// parseSeedColumn reads a column entry: "name", "a/b" (a's change
// against b) or "a/b+c+d" (a's change against the best of b, c and d).
func parseSeedColumn(entry string) seedColumn {
	entry = strings.TrimSpace(entry)
	a, b, ok := strings.Cut(entry, "/")
	if !ok {
		return seedColumn{col: entry}
	}
	return seedColumn{col: a, against: strings.Split(b, "+")}
}

// SeedTable summarises one figure of one setup over several seeds: a row
// per seed, then the median and the range (lowest … highest), one
// column per entry of columns. An entry is a column's name, "a/b" for
// a's relative change against b, or "a/b+c+d" for a's change against
// the best of b, c and d. Where a bound of the figure applies to the
// setup (the critical-path bounds of makespan and mean job completion), a
// last column gives it beside each seed's row. If paper names the
// paper's setup (a PaperFigure's Setup), a last row sets the paper's
// figures under the change columns it prints one for (against the
// column, or "each baseline", or "best baseline" for a change against
// several). Running an experiment with more seeds and summarising a
// figure is this call, with any setup, figure and columns.
func SeedTable(setup, figure string, columns []string, runs []SeedCells, paper string) (metrics.Table, error) {
	f, err := FigureNamed(figure)
	if err != nil {
		return metrics.Table{}, err
	}
	t := metrics.Table{Title: fmt.Sprintf("%s: %s by seed", setup, figure)}
	cols := make([]seedColumn, len(columns))
	for k, e := range columns {
		cols[k] = parseSeedColumn(e)
	}
	bound := figureBounds[figure]
	values := make([][]float64, len(cols)+1) // the last: the bound
	for _, r := range runs {
		row := metrics.Row{Name: fmt.Sprintf("seed %d", r.Seed)}
		for k, sc := range cols {
			v, name, err := sc.value(r.Cells, setup, f)
			if err != nil {
				return t, paramErr("seed %d: %v", r.Seed, err)
			}
			if len(t.Columns) < len(cols) {
				t.Columns = append(t.Columns, name)
			}
			row.Cells = append(row.Cells, sc.format(f, v))
			if v.Valid {
				values[k] = append(values[k], v.V)
			}
		}
		if w := r.Cells.World(setup); bound != nil && w != nil {
			if b, ok := bound.Of(w); ok {
				row.Cells = append(row.Cells, f.Format(metrics.Number{V: b, Valid: true}))
				values[len(cols)] = append(values[len(cols)], b)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(values[len(cols)]) > 0 {
		t.Columns = append(t.Columns, boundColumn)
		cols = append(cols, seedColumn{col: boundColumn})
	} else {
		values = values[:len(cols)]
	}
	med, rng := metrics.Row{Name: "median"}, metrics.Row{Name: "range"}
	for k, vs := range values {
		if len(vs) == 0 {
			med.Cells, rng.Cells = append(med.Cells, metrics.NA), append(rng.Cells, metrics.NA)
			continue
		}
		slices.Sort(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
		one := func(x float64) string { return cols[k].format(f, metrics.Number{V: x, Valid: true}) }
		med.Cells = append(med.Cells, one(m))
		rng.Cells = append(rng.Cells, one(vs[0])+" … "+one(vs[len(vs)-1]))
	}
	t.Rows = append(t.Rows, med, rng)
	if paper != "" {
		if row, ok := paperRow(paper, figure, cols); ok {
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

// value returns the entry's value on setup of cells, and its column
// heading.
func (sc seedColumn) value(cells *Cells, setup string, f Figure) (metrics.Number, string, error) {
	c := cells.Lookup(setup, sc.col)
	if c == nil {
		return metrics.Number{}, "", fmt.Errorf("no cell %q/%q", setup, sc.col)
	}
	v := f.Of(c)
	if len(sc.against) == 0 {
		return v, c.Sum.Policy, nil
	}
	ref, refName := metrics.Number{}, ""
	for _, a := range sc.against {
		x := cells.Lookup(setup, a)
		if x == nil {
			return metrics.Number{}, "", fmt.Errorf("no cell %q/%q", setup, a)
		}
		xv := f.Of(x)
		if xv.Valid && (!ref.Valid || better(f, xv.V, ref.V)) {
			ref, refName = xv, x.Sum.Policy
		}
	}
	if len(sc.against) > 1 {
		refName = "best"
	}
	name := c.Sum.Policy + " vs " + refName
	if !v.Valid || !ref.Valid || ref.V == 0 {
		return metrics.Number{}, name, nil
	}
	return metrics.Number{V: 100 * (v.V - ref.V) / ref.V, Valid: true}, name, nil
}

// format prints a value of the entry: the figure's, or a change in
// percent.
func (sc seedColumn) format(f Figure, v metrics.Number) string {
	if len(sc.against) == 0 || !v.Valid {
		return f.Format(v)
	}
	return f.FormatChange(v.V, true)
}

// better reports whether a is a better value of figure f than b: higher
// for ratios and indices (success, fairness), lower otherwise.
func better(f Figure, a, b float64) bool {
	if f.Unit == metrics.UnitRatio || f.Unit == metrics.UnitIndex {
		return a > b
	}
	return a < b
}

// paperRow is the row of the paper's figures for the change columns of
// cols, false if the paper prints none of them.
func paperRow(paper, figure string, cols []seedColumn) (metrics.Row, bool) {
	row := metrics.Row{Name: "paper"}
	any := false
	for _, sc := range cols {
		cell := ""
		if len(sc.against) > 0 {
			tries := []string{"each baseline"}
			if len(sc.against) == 1 {
				tries = append([]string{sc.against[0]}, tries...)
			} else {
				tries = append([]string{"best baseline"}, tries...)
			}
			for _, a := range tries {
				if pf, ok := paperFigure(paper, sc.col, figure, a); ok {
					cell, any = pf.Text(), true
					row.Name = "paper " + pf.Paper
					if a != sc.against[0] {
						cell += " (" + a + ")"
					}
					break
				}
			}
		}
		row.Cells = append(row.Cells, cell)
	}
	return row, any
}

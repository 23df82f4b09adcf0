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

// SeedTable summarises one figure of one setup over several seeds: a row
// per seed, then the median and the range (lowest … highest), one
// column per named column. Running an experiment with more seeds and
// summarising a figure is this call, with any setup, figure and columns.
func SeedTable(setup, figure string, columns []string, runs []SeedCells) (metrics.Table, error) {
	f, err := FigureNamed(figure)
	if err != nil {
		return metrics.Table{}, err
	}
	t := metrics.Table{Title: fmt.Sprintf("%s: %s by seed", setup, figure)}
	values := make([][]float64, len(columns))
	for _, r := range runs {
		row := metrics.Row{Name: fmt.Sprintf("seed %d", r.Seed)}
		for k, col := range columns {
			c := r.Cells.Lookup(setup, strings.TrimSpace(col))
			if c == nil {
				return t, paramErr("seed %d: no cell %q/%q", r.Seed, setup, col)
			}
			if len(t.Columns) < len(columns) {
				t.Columns = append(t.Columns, c.Sum.Policy)
			}
			n := f.Of(c)
			row.Cells = append(row.Cells, f.Format(n))
			if n.Valid {
				values[k] = append(values[k], n.V)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	med, rng := metrics.Row{Name: "median"}, metrics.Row{Name: "range"}
	for _, vs := range values {
		if len(vs) == 0 {
			med.Cells, rng.Cells = append(med.Cells, metrics.NA), append(rng.Cells, metrics.NA)
			continue
		}
		slices.Sort(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
		med.Cells = append(med.Cells, f.Format(metrics.Number{V: m, Valid: true}))
		rng.Cells = append(rng.Cells, f.Format(metrics.Number{V: vs[0], Valid: true})+" … "+f.Format(metrics.Number{V: vs[len(vs)-1], Valid: true}))
	}
	t.Rows = append(t.Rows, med, rng)
	return t, nil
}

package experiment

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
)

// A Figure is a named number read from one cell: what the results files'
// sentences, the scorecard and seed summaries quote. Adding one is a
// line in figures.
type Figure struct {
	// Name is what a template or a claim asks for ("mean cost").
	Name string
	// Unit formats it: metrics.UnitSeconds, UnitRatio, UnitCost,
	// UnitCount or UnitIndex.
	Unit string
	// Of reads it from a cell; invalid where the cell has none.
	Of func(c *Cell) metrics.Number
}

// figures are the named figures. A name "CLASS success" or "CLASS
// response" (e.g. "W4 success") reads one job class's (see FigureNamed).
var figures = []Figure{
	{"deadline success", metrics.UnitRatio, func(c *Cell) metrics.Number { return c.Sum.DeadlineSuccess.Value() }},
	{"φ success", metrics.UnitRatio, func(c *Cell) metrics.Number { return c.Sum.PhiSuccess.Value() }},
	{"budget success", metrics.UnitRatio, func(c *Cell) metrics.Number { return c.Sum.BudgetSuccess.Value() }},
	{"mean response", metrics.UnitSeconds, meanResponse},
	{"mean job completion", metrics.UnitSeconds, meanResponse},
	{"makespan", metrics.UnitSeconds, func(c *Cell) metrics.Number {
		return metrics.Number{V: c.Sum.Makespan.D.Seconds(), Valid: c.Sum.Makespan.Valid}
	}},
	{"mean cost", metrics.UnitCost, func(c *Cell) metrics.Number { return c.Sum.MeanCost }},
	{"total cost", metrics.UnitCost, func(c *Cell) metrics.Number { return metrics.Number{V: c.Sum.TotalCost, Valid: true} }},
	{"Jain", metrics.UnitIndex, func(c *Cell) metrics.Number { return c.Sum.Fairness }},
	{"Jain unmet", metrics.UnitIndex, func(c *Cell) metrics.Number { return c.Sum.UnmetFairness }},
	{"jobs", metrics.UnitCount, func(c *Cell) metrics.Number { return count(c.Sum.Jobs) }},
	{"completed", metrics.UnitCount, func(c *Cell) metrics.Number { return count(c.Sum.Completed) }},
	{"killed", metrics.UnitCount, func(c *Cell) metrics.Number { return count(c.Sum.Killed) }},
	{"failed attempts", metrics.UnitCount, func(c *Cell) metrics.Number { return count(c.Sum.FailedTasks) }},
	{"early kills", metrics.UnitCount, func(c *Cell) metrics.Number {
		if st := lssStatsOf(c); st != nil {
			return count(st.SpareExhausted)
		}
		return metrics.Number{}
	}},
	{"wrong early kills", metrics.UnitCount, func(c *Cell) metrics.Number {
		if st := lssStatsOf(c); st != nil {
			return count(couldHaveMade(&lssCell{Cell: c, stats: st}))
		}
		return metrics.Number{}
	}},
	{"queue moves", metrics.UnitCount, func(c *Cell) metrics.Number {
		if d := dbsOf(c); d != nil {
			return count(len(d.Stats().Moves))
		}
		return metrics.Number{}
	}},
	{"queue moves reversed", metrics.UnitCount, func(c *Cell) metrics.Number {
		if d := dbsOf(c); d != nil {
			return count(d.Stats().Reversed(policy.DBSReversalWindow))
		}
		return metrics.Number{}
	}},
}

func count(n int) metrics.Number { return metrics.Number{V: float64(n), Valid: true} }

func meanResponse(c *Cell) metrics.Number {
	return metrics.Number{V: c.Sum.Response.Mean.Seconds(), Valid: c.Sum.Response.N > 0}
}

// lssStatsOf returns the LSS adapter's counts of c, or nil.
func lssStatsOf(c *Cell) *policy.LSSStats {
	if a, ok := c.Policy.(*policy.LSS); ok {
		st := a.Stats()
		return &st
	}
	return nil
}

// FigureNamed returns the figure of that name.
func FigureNamed(name string) (Figure, error) {
	for _, f := range figures {
		if f.Name == name {
			return f, nil
		}
	}
	for _, suffix := range []string{" success", " response"} {
		class, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		return Figure{Name: name, Unit: map[string]string{" success": metrics.UnitRatio, " response": metrics.UnitSeconds}[suffix], Of: func(c *Cell) metrics.Number {
			for i := range c.Sum.Classes {
				if cs := &c.Sum.Classes[i]; cs.Class == class {
					if suffix == " success" {
						return cs.DeadlineSuccess.Value()
					}
					return metrics.Number{V: cs.Response.Mean.Seconds(), Valid: cs.Response.N > 0}
				}
			}
			return metrics.Number{}
		}}, nil
	}
	return Figure{}, paramErr("no figure %q", name)
}

// Format prints a value of the figure as the results files quote it:
// seconds to a tenth ("1519.0 s"), ratios to three places, costs to two,
// counts whole, indices to four places; "n/a" when invalid.
func (f Figure) Format(n metrics.Number) string {
	if !n.Valid {
		return metrics.NA
	}
	switch f.Unit {
	case metrics.UnitSeconds:
		return fmt.Sprintf("%.1f s", n.V)
	case metrics.UnitRatio:
		return fmt.Sprintf("%.3f", n.V)
	case metrics.UnitCount:
		return fmt.Sprintf("%.0f", n.V)
	case metrics.UnitIndex:
		return fmt.Sprintf("%.4f", n.V)
	}
	return fmt.Sprintf("%.2f", n.V)
}

// FormatChange prints a change of the figure: a signed difference in its
// unit, or with percent a signed relative change to a tenth of a
// percent; a true minus sign.
func (f Figure) FormatChange(d float64, percent bool) string {
	var s string
	switch {
	case percent:
		s = fmt.Sprintf("%+.1f%%", d)
	default:
		s = f.Format(metrics.Number{V: d, Valid: true})
		if d >= 0 {
			s = "+" + s
		}
	}
	return strings.Replace(s, "-", "−", 1)
}

package metrics

import (
	"slices"
	"strconv"
)

// CostMetrics returns the comparison rows of paper 003's evaluation:
// mean cost per job, budget success, φ success overall, then per φ value
// found in sums (ascending) its success and mean cost. Experiments append
// them to StandardMetrics.
func CostMetrics(sums []Summary) []Metric {
	ms := []Metric{
		number("mean cost", UnitCost, func(s *Summary) Number { return s.MeanCost }),
		ratio("budget success", func(s *Summary) Ratio { return s.BudgetSuccess }),
		ratio("φ success (paper 003)", func(s *Summary) Ratio { return s.PhiSuccess }),
	}
	var phis []float64
	for i := range sums {
		for _, p := range sums[i].Phi {
			if !slices.Contains(phis, p.Phi) {
				phis = append(phis, p.Phi)
			}
		}
	}
	slices.Sort(phis)
	for _, phi := range phis {
		name := "φ=" + strconv.FormatFloat(phi, 'g', -1, 64)
		find := func(s *Summary) *PhiSummary {
			for i := range s.Phi {
				if s.Phi[i].Phi == phi {
					return &s.Phi[i]
				}
			}
			return nil
		}
		ms = append(ms,
			ratio(name+" success", func(s *Summary) Ratio {
				if p := find(s); p != nil {
					return p.Success
				}
				return Ratio{}
			}),
			number(name+" mean cost", UnitCost, func(s *Summary) Number {
				if p := find(s); p != nil {
					return p.MeanCost
				}
				return Number{}
			}),
		)
	}
	return ms
}

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
		{"mean cost", func(s *Summary) string { return s.MeanCost.String() }},
		{"budget success", func(s *Summary) string { return s.BudgetSuccess.String() }},
		{"φ success (paper 003)", func(s *Summary) string { return s.PhiSuccess.String() }},
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
			Metric{name + " success", func(s *Summary) string {
				if p := find(s); p != nil {
					return p.Success.String()
				}
				return NA
			}},
			Metric{name + " mean cost", func(s *Summary) string {
				if p := find(s); p != nil {
					return p.MeanCost.String()
				}
				return NA
			}},
		)
	}
	return ms
}

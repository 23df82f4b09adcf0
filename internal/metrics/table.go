package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Table is a comparison as plain data: policies as columns, metrics as
// rows. Columns[i] heads Cells[i] of every row; the row names form the
// first column. Rendering (text, CSV, JSON, SVG) is the caller's.
type Table struct {
	Title   string
	Columns []string
	Rows    []Row
	// Notes are footnotes (e.g. warnings from the summaries).
	Notes []string
}

// Row is one metric across the table's columns.
type Row struct {
	Name  string
	Cells []string
}

// Metric names one row of a comparison and formats its cell for a
// Summary ("n/a" when undefined).
type Metric struct {
	Name string
	Cell func(*Summary) string
}

// Compare builds a table of the given metrics (rows) for the summaries
// (columns, headed by Summary.Policy, in order). Warnings of the
// summaries become Notes, prefixed by policy.
func Compare(title string, sums []Summary, metrics []Metric) Table {
	t := Table{Title: title, Columns: make([]string, len(sums))}
	for i := range sums {
		t.Columns[i] = sums[i].Policy
		for _, w := range sums[i].Warnings {
			t.Notes = append(t.Notes, sums[i].Policy+": "+w)
		}
	}
	for _, m := range metrics {
		r := Row{Name: m.Name, Cells: make([]string, len(sums))}
		for i := range sums {
			r.Cells[i] = m.Cell(&sums[i])
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// StandardMetrics returns the default comparison rows: job counts,
// deadline, budget and φ success, response time (mean, p50, p95), wait,
// makespan, cost, fairness, utilisation of every kind found in sums (in
// first-seen order), failed and retried tasks, kills, and decision time.
func StandardMetrics(sums []Summary) []Metric {
	ms := []Metric{
		{"jobs", func(s *Summary) string { return strconv.Itoa(s.Jobs) }},
		{"completed", func(s *Summary) string { return strconv.Itoa(s.Completed) }},
		{"deadline success", func(s *Summary) string { return s.DeadlineSuccess.String() }},
		{"budget success", func(s *Summary) string { return s.BudgetSuccess.String() }},
		{"φ success (paper 003)", func(s *Summary) string { return s.PhiSuccess.String() }},
		{"response mean", func(s *Summary) string { return s.Response.MeanSpan().String() }},
		{"response p50", func(s *Summary) string { return s.Response.P50Span().String() }},
		{"response p95", func(s *Summary) string { return s.Response.P95Span().String() }},
		{"wait mean", func(s *Summary) string { return s.Wait.MeanSpan().String() }},
		{"makespan", func(s *Summary) string { return s.Makespan.String() }},
		{"total cost", func(s *Summary) string { return strconv.FormatFloat(s.TotalCost, 'f', 2, 64) }},
		{"Jain fairness (mean)", func(s *Summary) string { return s.Fairness.String() }},
	}
	var kinds []string
	seen := map[string]bool{}
	for i := range sums {
		for _, u := range sums[i].Utilisation {
			if !seen[u.Kind] {
				seen[u.Kind] = true
				kinds = append(kinds, u.Kind)
			}
		}
	}
	for _, k := range kinds {
		ms = append(ms, Metric{"utilisation " + k, func(s *Summary) string {
			for _, u := range s.Utilisation {
				if u.Kind == k {
					return u.Mean.String()
				}
			}
			return NA
		}})
	}
	return append(ms,
		Metric{"failed tasks", func(s *Summary) string { return strconv.Itoa(s.FailedTasks) }},
		Metric{"retried tasks", func(s *Summary) string { return strconv.Itoa(s.RetriedTasks) }},
		Metric{"killed", func(s *Summary) string { return strconv.Itoa(s.Killed) }},
		Metric{"rejected", func(s *Summary) string { return strconv.Itoa(s.Rejected) }},
		Metric{"failed jobs", func(s *Summary) string { return strconv.Itoa(s.Failed) }},
		Metric{"kills that could have made it", func(s *Summary) string { return s.KillsCouldHaveMade.String() }},
		Metric{"decision time", func(s *Summary) string { return seconds3(s.DecisionTime) }},
		Metric{"per decision", func(s *Summary) string {
			if !s.PerDecision.Valid {
				return NA
			}
			return s.PerDecision.D.String()
		}},
	)
}

func seconds3(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
}

// ClassTable builds, for every class found in sums (sorted), two rows:
// "<class> deadline success" and "<class> response mean" — paper 000's
// per-workflow figures.
func ClassTable(title string, sums []Summary) Table {
	var classes []string
	seen := map[string]bool{}
	for i := range sums {
		for _, c := range sums[i].Classes {
			if !seen[c.Class] {
				seen[c.Class] = true
				classes = append(classes, c.Class)
			}
		}
	}
	slices.Sort(classes)
	var ms []Metric
	for _, c := range classes {
		ms = append(ms,
			Metric{c + " deadline success", func(s *Summary) string {
				if cs := s.class(c); cs != nil {
					return cs.DeadlineSuccess.String()
				}
				return NA
			}},
			Metric{c + " response mean", func(s *Summary) string {
				if cs := s.class(c); cs != nil {
					return cs.Response.MeanSpan().String()
				}
				return NA
			}},
		)
	}
	t := Compare(title, sums, ms)
	t.Notes = nil
	return t
}

// PhiTable builds one row per φ value found in sums (ascending): paper
// 003's success ratio for the jobs of that φ.
func PhiTable(title string, sums []Summary) Table {
	var phis []float64
	seen := map[float64]bool{}
	for i := range sums {
		for _, p := range sums[i].Phi {
			if !seen[p.Phi] {
				seen[p.Phi] = true
				phis = append(phis, p.Phi)
			}
		}
	}
	slices.Sort(phis)
	var ms []Metric
	for _, phi := range phis {
		ms = append(ms, Metric{fmt.Sprintf("φ=%g success", phi), func(s *Summary) string {
			for _, p := range s.Phi {
				if p.Phi == phi {
					return p.Success.String()
				}
			}
			return NA
		}})
	}
	t := Compare(title, sums, ms)
	t.Notes = nil
	return t
}

// class returns the summary of the named class, or nil.
func (s *Summary) class(name string) *ClassSummary {
	for i := range s.Classes {
		if s.Classes[i].Class == name {
			return &s.Classes[i]
		}
	}
	return nil
}

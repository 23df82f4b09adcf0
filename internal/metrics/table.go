package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Table is a comparison as plain data: policies as columns, metrics as
// rows. Columns[i] heads Cells[i] (and Values[i]) of every row; the row
// names form the first column. Rendering (text, CSV, JSON, SVG) is the
// caller's: Cells are for people, Key, Unit and Values (see Row.Numbers)
// for machines.
type Table struct {
	Title   string
	Columns []string
	Rows    []Row
	// Notes are footnotes (e.g. warnings from the summaries).
	Notes []string
}

// Row is one metric across the table's columns.
type Row struct {
	// Name and Cells are the row as people read it ("response mean",
	// "64.7s").
	Name  string
	Cells []string
	// Key names the row for machines: snake_case ending in its unit
	// ("response_mean_s", "deadline_success_ratio", "jobs_count"). ""
	// lets Numbers derive it from Name.
	Key string
	// Unit is the unit of Values: UnitSeconds, UnitRatio, UnitCount,
	// UnitIndex or "" (a plain number, e.g. a cost).
	Unit string
	// Values are the cells as numbers in Unit, invalid where a cell is
	// n/a; nil lets Numbers parse them from Cells.
	Values []Number
}

// Units of Row.Values.
const (
	UnitSeconds = "s"     // a duration in seconds
	UnitRatio   = "ratio" // a fraction in [0, 1] (success, utilisation)
	UnitCount   = "count" // a number of jobs, tasks or calls
	UnitIndex   = "index" // a dimensionless index (Jain's fairness)
	UnitCost    = "cost"  // price units: price per slot-second × slot-seconds
)

// Numbers returns the row's key, unit and one Number per cell: Key, Unit
// and Values when set; otherwise the key is derived from Name and the
// cells are parsed — a plain number, a duration ("12.5s", "1m40s",
// "3µs": seconds), a ratio ("0.947 (6288/6638)": the ratio) or a
// percentage ("47%": a ratio). A cell that is none of these (composite
// text, "n/a") is an invalid Number; so is one whose unit differs from
// the row's first parsed cell.
func (r Row) Numbers() (key, unit string, values []Number) {
	values = r.Values
	unit = r.Unit
	if values == nil {
		values = make([]Number, len(r.Cells))
		first := true
		for i, c := range r.Cells {
			v, u, ok := parseCell(c)
			if !ok {
				continue
			}
			if first {
				unit, first = u, false
			}
			if u == unit {
				values[i] = v
			}
		}
	}
	key = r.Key
	if key == "" {
		key = metricKey(r.Name, unit)
	}
	return key, unit, values
}

// metricKey returns name in snake_case (ASCII letters and digits, "φ" as
// "phi") followed by "_"+unit unless the name already ends with it.
func metricKey(name, unit string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(strings.ReplaceAll(name, "φ", "phi")) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		} else {
			sep = true
		}
	}
	key := b.String()
	if unit != "" && !strings.HasSuffix(key, "_"+unit) && key != unit {
		key += "_" + unit
	}
	return key
}

// parseCell reads a display cell back as a number and its unit.
func parseCell(c string) (Number, string, bool) {
	c = strings.TrimSpace(c)
	if c == "" || c == NA {
		return Number{}, "", false
	}
	if v, err := strconv.ParseFloat(c, 64); err == nil {
		return finite(v, "")
	}
	if strings.HasSuffix(c, "%") {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(c, "%"), 64); err == nil {
			return finite(v/100, UnitRatio)
		}
	}
	var x float64
	var hit, total int
	if n, err := fmt.Sscanf(c, "%g (%d/%d)", &x, &hit, &total); err == nil && n == 3 && fmt.Sprintf("%.3f (%d/%d)", x, hit, total) == c {
		return finite(x, UnitRatio)
	}
	if d, err := time.ParseDuration(c); err == nil {
		return finite(d.Seconds(), UnitSeconds)
	}
	return Number{}, "", false
}

func finite(v float64, unit string) (Number, string, bool) {
	if v != v || v > 1e308 || v < -1e308 {
		return Number{}, "", false
	}
	return Number{V: v, Valid: true}, unit, true
}

// Metric names one row of a comparison and formats its cell for a
// Summary ("n/a" when undefined). Value, when set, gives the cell as a
// number in Unit for machine-readable output (Row.Values).
type Metric struct {
	Name  string
	Cell  func(*Summary) string
	Unit  string
	Value func(*Summary) Number
	// Key overrides the machine name derived from Name and Unit.
	Key string
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
		if m.Name == NotCompletedRow && slices.ContainsFunc(sums, func(s Summary) bool { return notCompleted(&s) > 0 }) {
			t.Notes = append(t.Notes, CompletedOnlyNote)
		}
		r := Row{Name: m.Name, Cells: make([]string, len(sums)), Key: m.Key, Unit: m.Unit}
		if m.Value != nil {
			r.Values = make([]Number, len(sums))
		}
		for i := range sums {
			r.Cells[i] = m.Cell(&sums[i])
			if m.Value != nil {
				r.Values[i] = m.Value(&sums[i])
			}
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// count, ratio, span and number build Metrics from a Summary field,
// with the display cell and the machine value from one place.
func count(name string, f func(*Summary) int) Metric {
	return Metric{Name: name, Unit: UnitCount,
		Cell:  func(s *Summary) string { return strconv.Itoa(f(s)) },
		Value: func(s *Summary) Number { return Number{V: float64(f(s)), Valid: true} }}
}

func ratio(name string, f func(*Summary) Ratio) Metric {
	return Metric{Name: name, Unit: UnitRatio,
		Cell:  func(s *Summary) string { return f(s).String() },
		Value: func(s *Summary) Number { return f(s).Value() }}
}

func span(name string, f func(*Summary) Span) Metric {
	return Metric{Name: name, Unit: UnitSeconds,
		Cell:  func(s *Summary) string { return f(s).String() },
		Value: func(s *Summary) Number { sp := f(s); return Number{V: sp.D.Seconds(), Valid: sp.Valid} }}
}

func number(name, unit string, f func(*Summary) Number) Metric {
	return Metric{Name: name, Unit: unit,
		Cell:  func(s *Summary) string { return f(s).String() },
		Value: f}
}

// notCompleted counts a summary's jobs that did not complete (killed,
// rejected, failed, unfinished, or with an invalid record): they are not
// in the response and wait figures.
func notCompleted(s *Summary) int { return s.Jobs - s.Completed }

// UnmetFairnessRow is the name of UnmetFairnessMetric's row.
const UnmetFairnessRow = "Jain, jobs with unmet demand (mean)"

// UnmetFairnessMetric is the row of Summary.UnmetFairness: Jain's index
// over the jobs with unmet demand, averaged over samples. It is not
// among StandardMetrics (whose "Jain fairness (mean)" is over every
// active job); the paper-004 experiments add it.
func UnmetFairnessMetric() Metric {
	return number(UnmetFairnessRow, UnitIndex, func(s *Summary) Number { return s.UnmetFairness })
}

// StandardMetrics returns the default comparison rows: job counts,
// deadline, budget and φ success, response time (mean, p50, p95), wait,
// makespan, cost, fairness, utilisation of every kind found in sums (in
// first-seen order), failed and retried tasks, kills, and decision time.
func StandardMetrics(sums []Summary) []Metric {
	ms := []Metric{
		count("jobs", func(s *Summary) int { return s.Jobs }),
		count("completed", func(s *Summary) int { return s.Completed }),
		ratio("deadline success", func(s *Summary) Ratio { return s.DeadlineSuccess }),
		ratio("budget success", func(s *Summary) Ratio { return s.BudgetSuccess }),
		ratio("φ success (paper 003)", func(s *Summary) Ratio { return s.PhiSuccess }),
		{Name: NotCompletedRow, Key: "not_completed_count", Unit: UnitCount,
			Cell:  func(s *Summary) string { return strconv.Itoa(notCompleted(s)) },
			Value: func(s *Summary) Number { return Number{V: float64(notCompleted(s)), Valid: true} }},
		span("response mean (completed)", func(s *Summary) Span { return s.Response.MeanSpan() }),
		span("response p50 (completed)", func(s *Summary) Span { return s.Response.P50Span() }),
		span("response p95 (completed)", func(s *Summary) Span { return s.Response.P95Span() }),
		span("wait mean (completed)", func(s *Summary) Span { return s.Wait.MeanSpan() }),
		span("makespan", func(s *Summary) Span { return s.Makespan }),
		{Name: "total cost", Key: "total_cost", Cell: func(s *Summary) string { return strconv.FormatFloat(s.TotalCost, 'f', 2, 64) },
			Value: func(s *Summary) Number { return Number{V: s.TotalCost, Valid: true} }},
		number("Jain fairness (mean)", UnitIndex, func(s *Summary) Number { return s.Fairness }),
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
		ms = append(ms, number("utilisation "+k, UnitRatio, func(s *Summary) Number {
			for _, u := range s.Utilisation {
				if u.Kind == k {
					return u.Mean
				}
			}
			return Number{}
		}))
	}
	return append(ms,
		count("failed tasks", func(s *Summary) int { return s.FailedTasks }),
		count("retried tasks", func(s *Summary) int { return s.RetriedTasks }),
		count("killed", func(s *Summary) int { return s.Killed }),
		count("rejected", func(s *Summary) int { return s.Rejected }),
		count("failed jobs", func(s *Summary) int { return s.Failed }),
		ratio("kills that could have made it", func(s *Summary) Ratio { return s.KillsCouldHaveMade }),
		Metric{Name: "decision time", Unit: UnitSeconds, Cell: func(s *Summary) string { return seconds3(s.DecisionTime) },
			Value: func(s *Summary) Number { return Number{V: s.DecisionTime.Seconds(), Valid: true} }},
		Metric{Name: "per decision", Unit: UnitSeconds, Cell: func(s *Summary) string {
			if !s.PerDecision.Valid {
				return NA
			}
			return s.PerDecision.D.String()
		}, Value: func(s *Summary) Number { return Number{V: s.PerDecision.D.Seconds(), Valid: s.PerDecision.Valid} }},
	)
}

// NotCompletedRow names the row, beside the response figures, that
// counts the jobs those figures leave out.
const NotCompletedRow = "not completed"

// CompletedOnlyNote is the table note that says response and wait count
// completed jobs only.
const CompletedOnlyNote = "response and wait figures count completed jobs only: the \"" + NotCompletedRow + "\" jobs (killed, rejected, failed, unfinished) are left out of them"

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
		left := false
		for i := range sums {
			if cs := sums[i].class(c); cs != nil && cs.Completed < cs.Jobs {
				left = true
			}
		}
		ms = append(ms, ratio(c+" deadline success", func(s *Summary) Ratio {
			if cs := s.class(c); cs != nil {
				return cs.DeadlineSuccess
			}
			return Ratio{}
		}))
		if left {
			ms = append(ms, Metric{Name: c + " not completed", Unit: UnitCount,
				Cell: func(s *Summary) string {
					if cs := s.class(c); cs != nil {
						return strconv.Itoa(cs.Jobs - cs.Completed)
					}
					return NA
				},
				Value: func(s *Summary) Number {
					if cs := s.class(c); cs != nil {
						return Number{V: float64(cs.Jobs - cs.Completed), Valid: true}
					}
					return Number{}
				}})
		}
		ms = append(ms, span(c+" response mean (completed)", func(s *Summary) Span {
			if cs := s.class(c); cs != nil {
				return cs.Response.MeanSpan()
			}
			return Span{}
		}))
	}
	t := Compare(title, sums, ms)
	t.Notes = nil
	for _, m := range ms {
		if strings.HasSuffix(m.Name, " not completed") {
			t.Notes = []string{"response means count completed jobs only; the \"not completed\" rows count the jobs they leave out"}
			break
		}
	}
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
		ms = append(ms, ratio(fmt.Sprintf("φ=%g success", phi), func(s *Summary) Ratio {
			for _, p := range s.Phi {
				if p.Phi == phi {
					return p.Success
				}
			}
			return Ratio{}
		}))
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

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
)

func write(w io.Writer, format string, results []experiment.Result, assumptions bool) error {
	switch format {
	case "csv":
		return writeCSV(w, results)
	case "json":
		return writeJSON(w, results)
	}
	return writeText(w, results, assumptions)
}

// writeText prints each table aligned, its notes below it, then the
// experiment's assumptions.
func writeText(w io.Writer, results []experiment.Result, assumptions bool) error {
	ew := &errWriter{w: w}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(ew)
		}
		fmt.Fprintf(ew, "== %s ==\n", r.Experiment)
		for _, t := range r.Tables {
			fmt.Fprintln(ew)
			writeTable(ew, t)
		}
		if assumptions && len(r.Assumptions) > 0 {
			fmt.Fprintf(ew, "\nAssumptions (%s):\n", r.Experiment)
			for _, a := range r.Assumptions {
				fmt.Fprintf(ew, "  - %s\n", a)
			}
		}
	}
	return ew.err
}

func writeTable(w io.Writer, t metrics.Table) {
	fmt.Fprintln(w, t.Title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\n", "metric", strings.Join(t.Columns, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Name, strings.Join(r.Cells, "\t"))
	}
	tw.Flush()
	for _, n := range t.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// csvHeader is the CSV output's header: one row per metric and policy,
// then the notes and assumptions as text rows.
var csvHeader = []string{"experiment", "table", "policy", "metric", "value", "display"}

// writeCSV writes one tidy table: per experiment, table, metric and
// policy, the metric's key (snake_case, ending in its unit: _s, _ratio,
// _count, _index), its value as a number ("" where undefined) and the
// cell as the text output shows it; then each table's notes (metric
// "note") and the experiment's assumptions (metric "assumption", table
// ""), their text in display.
func writeCSV(w io.Writer, results []experiment.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, r := range results {
		for _, t := range r.Tables {
			for _, row := range t.Rows {
				key, _, values := row.Numbers()
				for i, c := range row.Cells {
					_ = cw.Write([]string{r.Experiment, t.Title, t.Columns[i], key, numberText(values[i]), c})
				}
			}
			for _, n := range t.Notes {
				_ = cw.Write([]string{r.Experiment, t.Title, "", "note", "", n})
			}
		}
		for _, a := range r.Assumptions {
			_ = cw.Write([]string{r.Experiment, "", "", "assumption", "", a})
		}
	}
	cw.Flush()
	return cw.Error()
}

// numberText prints a value at full precision, "" when undefined.
func numberText(n metrics.Number) string {
	if !n.Valid {
		return ""
	}
	return strconv.FormatFloat(n.V, 'g', -1, 64)
}

// JSON output: snake_case keys throughout; values are numbers in the
// unit the key ends with (null where undefined), aligned with policies.
type jsonResult struct {
	Experiment  string      `json:"experiment"`
	Title       string      `json:"title"`
	Tables      []jsonTable `json:"tables"`
	Assumptions []string    `json:"assumptions"`
}

type jsonTable struct {
	Title    string    `json:"title"`
	Policies []string  `json:"policies"`
	Metrics  []jsonRow `json:"metrics"`
	Notes    []string  `json:"notes"`
}

type jsonRow struct {
	Key     string     `json:"key"`
	Name    string     `json:"name"`
	Unit    string     `json:"unit"`
	Values  []*float64 `json:"values"`
	Display []string   `json:"display"`
}

func writeJSON(w io.Writer, results []experiment.Result) error {
	out := make([]jsonResult, len(results))
	for i, r := range results {
		jr := jsonResult{Experiment: r.Experiment, Title: r.Title, Tables: []jsonTable{}, Assumptions: nonNil(r.Assumptions)}
		for _, t := range r.Tables {
			jt := jsonTable{Title: t.Title, Policies: nonNil(t.Columns), Metrics: []jsonRow{}, Notes: nonNil(t.Notes)}
			for _, row := range t.Rows {
				key, unit, values := row.Numbers()
				jrow := jsonRow{Key: key, Name: row.Name, Unit: unit, Values: make([]*float64, len(values)), Display: nonNil(row.Cells)}
				for k, v := range values {
					if v.Valid {
						x := v.V
						jrow.Values[k] = &x
					}
				}
				jt.Metrics = append(jt.Metrics, jrow)
			}
			jr.Tables = append(jr.Tables, jt)
		}
		out[i] = jr
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// nonNil turns a nil list into an empty one, so JSON shows [] not null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

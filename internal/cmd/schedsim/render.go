package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
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

// writeCSV writes one tidy table: experiment, table, metric, policy,
// value.
func writeCSV(w io.Writer, results []experiment.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"experiment", "table", "metric", "policy", "value"})
	for _, r := range results {
		for _, t := range r.Tables {
			for _, row := range t.Rows {
				for i, c := range row.Cells {
					_ = cw.Write([]string{r.Experiment, t.Title, row.Name, t.Columns[i], c})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

type jsonResult struct {
	Experiment  string          `json:"experiment"`
	Title       string          `json:"title"`
	Tables      []metrics.Table `json:"tables"`
	Assumptions []string        `json:"assumptions"`
}

func writeJSON(w io.Writer, results []experiment.Result) error {
	out := make([]jsonResult, len(results))
	for i, r := range results {
		out[i] = jsonResult{r.Experiment, r.Title, r.Tables, r.Assumptions}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
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

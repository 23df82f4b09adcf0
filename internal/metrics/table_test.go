package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	a := Summarize(sampleRun())
	b := Summarize(Run{Policy: "empty", Kinds: []string{"map-slot", "gpu"}})
	b.Warnings = []string{"w1"}
	tbl := Compare("t", []Summary{a, b}, StandardMetrics([]Summary{a, b}))
	if diff := cmp.Diff([]string{"fifo", "empty"}, tbl.Columns); diff != "" {
		t.Fatal(diff)
	}
	cells := map[string][]string{}
	for _, r := range tbl.Rows {
		cells[r.Name] = r.Cells
	}
	want := map[string][]string{
		"jobs":                          {"4", "0"},
		"deadline success":              {"0.333 (1/3)", "n/a"},
		"budget success":                {"0.667 (2/3)", "n/a"},
		"φ success (paper 003)":         {"0.500 (2/4)", "n/a"},
		"response mean":                 {"200.0s", "n/a"},
		"response p50":                  {"200.0s", "n/a"},
		"response p95":                  {"290.0s", "n/a"}, // h = 2·0.95+1 = 2.9 → 200 + 0.9·100
		"makespan":                      {"330.0s", "n/a"},
		"total cost":                    {"60.00", "0.00"},
		"Jain fairness (mean)":          {"0.75", "n/a"},
		"utilisation map-slot":          {"0.75", "n/a"},
		"utilisation reduce-slot":       {"0.5", "n/a"},
		"utilisation gpu":               {"n/a", "n/a"},
		"kills that could have made it": {"1.000 (1/1)", "n/a"},
		"decision time":                 {"0.006s", "0.000s"},
		"per decision":                  {"2ms", "n/a"},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, cells[name]); diff != "" {
			t.Errorf("row %q (-want +got): %s", name, diff)
		}
	}
	if diff := cmp.Diff([]string{"empty: w1"}, tbl.Notes); diff != "" {
		t.Error(diff)
	}
}

func TestClassAndPhiTables(t *testing.T) {
	a := Summarize(sampleRun())
	ct := ClassTable("classes", []Summary{a})
	want := []Row{
		{"A deadline success", []string{"0.500 (1/2)"}},
		{"A response mean", []string{"150.0s"}},
		{"B deadline success", []string{"0.000 (0/1)"}},
		{"B response mean", []string{"300.0s"}},
	}
	if diff := cmp.Diff(want, ct.Rows); diff != "" {
		t.Error(diff)
	}
	pt := PhiTable("phi", []Summary{a})
	wantPhi := []Row{
		{"φ=0 success", []string{"1.000 (1/1)"}},
		{"φ=0.5 success", []string{"0.000 (0/1)"}},
		{"φ=1 success", []string{"0.500 (1/2)"}},
	}
	if diff := cmp.Diff(wantPhi, pt.Rows); diff != "" {
		t.Error(diff)
	}
}

package metrics

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/internal/sim"
)

func TestCompare(t *testing.T) {
	a := Summarize(sampleRun())
	b := Summarize(sim.Run{Policy: "empty", Kinds: []string{"map-slot", "gpu"}})
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
		"not completed":                 {"1", "0"},
		"response mean (completed)":     {"200.0s", "n/a"},
		"response p50 (completed)":      {"200.0s", "n/a"},
		"response p95 (completed)":      {"290.0s", "n/a"}, // h = 2·0.95+1 = 2.9 → 200 + 0.9·100
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
	if diff := cmp.Diff([]string{"empty: w1", CompletedOnlyNote}, tbl.Notes); diff != "" {
		t.Error(diff)
	}
	// Machine values: numbers in the unit the key ends with.
	nums := map[string][]Number{}
	for _, r := range tbl.Rows {
		key, unit, vs := r.Numbers()
		if !strings.HasSuffix(key, "_"+unit) && unit != "" {
			t.Errorf("row %q: key %q does not end in unit %q", r.Name, key, unit)
		}
		nums[key] = vs
	}
	none := Number{}
	for key, w := range map[string][]Number{
		"jobs_count":                 {{4, true}, {0, true}},
		"deadline_success_ratio":     {{1.0 / 3, true}, none},
		"response_mean_completed_s":  {{200, true}, none},
		"not_completed_count":        {{1, true}, {0, true}},
		"total_cost":                 {{60, true}, {0, true}},
		"jain_fairness_mean_index":   {{0.75, true}, none},
		"utilisation_map_slot_ratio": {{0.75, true}, none},
		"per_decision_s":             {{0.002, true}, none},
	} {
		if diff := cmp.Diff(w, nums[key]); diff != "" {
			t.Errorf("values %q (-want +got): %s", key, diff)
		}
	}
}

// Rows built from display strings (other experiments' tables) still
// yield numbers: parsed per cell, the unit from the first parsed cell.
func TestRowNumbersParsed(t *testing.T) {
	none := Number{}
	for _, tc := range []struct {
		row  Row
		key  string
		unit string
		want []Number
	}{
		{Row{Name: "W1 response", Cells: []string{"64.7s", "n/a", "1m40s"}}, "w1_response_s", "s", []Number{{64.7, true}, none, {100, true}}},
		{Row{Name: "deadline success", Cells: []string{"0.947 (6288/6638)", "0.500 (1/2)"}}, "deadline_success_ratio", "ratio", []Number{{0.947, true}, {0.5, true}}},
		{Row{Name: "speed-up", Cells: []string{"2.50", "3"}}, "speed_up", "", []Number{{2.5, true}, {3, true}}},
		{Row{Name: "load", Cells: []string{"47%"}}, "load_ratio", "ratio", []Number{{0.47, true}}},
		{Row{Name: "kills: early / late", Cells: []string{"3 (1) / 5", "12.5s"}}, "kills_early_late_s", "s", []Number{none, {12.5, true}}},
		{Row{Name: "mixed", Cells: []string{"12.5s", "7"}}, "mixed_s", "s", []Number{{12.5, true}, none}},
		{Row{Name: "φ=0.5 success", Cells: []string{"NaN", "Inf"}}, "phi_0_5_success", "", []Number{none, none}},
	} {
		key, unit, got := tc.row.Numbers()
		if key != tc.key || unit != tc.unit {
			t.Errorf("%q: key %q unit %q, want %q %q", tc.row.Name, key, unit, tc.key, tc.unit)
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%q (-want +got): %s", tc.row.Name, diff)
		}
	}
}

func TestClassAndPhiTables(t *testing.T) {
	a := Summarize(sampleRun())
	ct := ClassTable("classes", []Summary{a})
	want := []Row{
		{Name: "A deadline success", Cells: []string{"0.500 (1/2)"}},
		{Name: "A response mean (completed)", Cells: []string{"150.0s"}},
		{Name: "B deadline success", Cells: []string{"0.000 (0/1)"}},
		{Name: "B not completed", Cells: []string{"1"}},
		{Name: "B response mean (completed)", Cells: []string{"300.0s"}},
	}
	if diff := cmp.Diff(want, ct.Rows, cmpopts.IgnoreFields(Row{}, "Unit", "Values")); diff != "" {
		t.Error(diff)
	}
	if len(ct.Notes) != 1 {
		t.Errorf("class table notes %q, want the completed-only note", ct.Notes)
	}
	pt := PhiTable("phi", []Summary{a})
	wantPhi := []Row{
		{Name: "φ=0 success", Cells: []string{"1.000 (1/1)"}},
		{Name: "φ=0.5 success", Cells: []string{"0.000 (0/1)"}},
		{Name: "φ=1 success", Cells: []string{"0.500 (1/2)"}},
	}
	if diff := cmp.Diff(wantPhi, pt.Rows, cmpopts.IgnoreFields(Row{}, "Unit", "Values")); diff != "" {
		t.Error(diff)
	}
}

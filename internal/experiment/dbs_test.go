package experiment

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/metrics"
)

// TestDBSExperiment runs the dbs experiment small and checks its shape:
// the paper tables carry the paper's figures beside ours, the bounds and
// the completion orders, every larger workload compares the six
// policies, the trace replay its ten, the ablation has every variant on
// every workload.
func TestDBSExperiment(t *testing.T) {
	res, err := dbsExp.Run(Params{Scale: 0.02, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 2 paper tables + 2 slow-start tables + 3 larger workloads (each at
	// slow-start 0.05 and 1.0) + the trace replay + ablation.
	if len(res.Tables) != 12 {
		t.Fatalf("%d tables", len(res.Tables))
	}
	for i, want := range []string{"1175.5s", "152.60", "1154.8s", "145.29", "Job1, Job3, Job4, Job2", "bound with two jobs side by side"} {
		if !strings.Contains(renderCells(res.Tables[0]), want) {
			t.Errorf("exp. 1 table lacks the paper's figure %d %q", i, want)
		}
	}
	for i, want := range []string{"1306.5s", "169.97", "1230.0s", "148.07"} {
		if !strings.Contains(renderCells(res.Tables[2]), want) {
			t.Errorf("exp. 2 table lacks the paper's figure %d %q", i, want)
		}
	}
	for _, tb := range res.Tables[4:10] {
		if got := strings.Join(tb.Columns, ","); got != "FIFO,Fair,Capacity (3 queues),EDF,LSS,DBS" {
			t.Errorf("%s: columns %s", tb.Title, got)
		}
		if !strings.Contains(renderCells(tb), "φ=1 success") {
			t.Errorf("%s: no per-φ success", tb.Title)
		}
	}
	if tb := res.Tables[10]; len(tb.Columns) != len(dbsTraceColumns) || !strings.Contains(tb.Title, "80% offered load") {
		t.Errorf("trace replay %q: %d columns", tb.Title, len(tb.Columns))
	}
	abl := res.Tables[11]
	if len(abl.Rows) != len(dbsVariants) || len(abl.Columns) != 6 {
		t.Errorf("ablation %d rows × %d columns", len(abl.Rows), len(abl.Columns))
	}
}

// renderCells joins a table's row names and cells.
func renderCells(t metrics.Table) string {
	var b strings.Builder
	for _, r := range t.Rows {
		b.WriteString(r.Name + "\t" + strings.Join(r.Cells, "\t") + "\n")
	}
	return b.String()
}

// TestTogetherBounds checks the two bounds for jobs submitted together on
// paper 003's setups: with two jobs side by side the least mean response
// is the staircase's plus the second-smallest map work spread over the
// map slots, per job; on exp. 1's four jobs of 110 maps of 40 s (±10%) on
// 10 map slots that is 2.75 map-waves of 440 s against 2.5, plus the
// shortest reduce.
func TestTogetherBounds(t *testing.T) {
	worlds, _, err := dbsPaperWorlds(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range worlds {
		s := &w.setup
		stair, ok1 := SubmittedTogetherBound.Of(s)
		pair, ok2 := TwoSideBySideBound.Of(s)
		if !ok1 || !ok2 {
			t.Fatalf("%s: bounds do not apply", s.Name)
		}
		var works []float64
		for i := range s.Workload.Jobs {
			m, sum := &s.Workload.Jobs[i].Phases[0], 0.0
			for k := range m.Len() {
				sum += m.Duration(k).Seconds()
			}
			works = append(works, sum)
		}
		slices.Sort(works)
		n, slots := float64(len(works)), 10.0
		if got, want := pair-stair, works[1]/slots/n; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: pair − staircase %v, want %v", s.Name, got, want)
		}
		if w.exp == "exp. 1" {
			// 2.5 and 2.75 waves of 440 s, give or take the jitter.
			if stair < 2.5*440*0.9 || stair > 2.5*440*1.1+60 || pair < 2.75*440*0.9 || pair > 2.75*440*1.1+60 {
				t.Errorf("exp. 1: staircase %v, side by side %v", stair, pair)
			}
		}
	}
}

package experiment

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/metrics"
)

// TestDBSExperiment runs the dbs experiment small and checks its shape:
// the paper tables carry the paper's figures beside ours, every larger
// workload compares the six policies, the ablation has every variant.
func TestDBSExperiment(t *testing.T) {
	res, err := dbsExp.Run(Params{Scale: 0.02, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 2 paper tables + 2 slow-start tables + 3 larger workloads + ablation.
	if len(res.Tables) != 8 {
		t.Fatalf("%d tables", len(res.Tables))
	}
	for i, want := range []string{"1175.5s", "152.60", "1154.8s", "145.29"} {
		if !strings.Contains(renderCells(res.Tables[0]), want) {
			t.Errorf("exp. 1 table lacks the paper's figure %d %q", i, want)
		}
	}
	for i, want := range []string{"1306.5s", "169.97", "1230.0s", "148.07"} {
		if !strings.Contains(renderCells(res.Tables[2]), want) {
			t.Errorf("exp. 2 table lacks the paper's figure %d %q", i, want)
		}
	}
	for _, tb := range res.Tables[4:7] {
		if got := strings.Join(tb.Columns, ","); got != "FIFO,Fair,Capacity (3 queues),EDF,LSS,DBS" {
			t.Errorf("%s: columns %s", tb.Title, got)
		}
		if !strings.Contains(renderCells(tb), "φ=1 success") {
			t.Errorf("%s: no per-φ success", tb.Title)
		}
	}
	abl := res.Tables[7]
	if len(abl.Columns) != len(dbsVariants) || len(abl.Rows) != 5 {
		t.Errorf("ablation %d columns × %d rows", len(abl.Columns), len(abl.Rows))
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

package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// TestDBSPaperMoves runs DBS on paper 003's exp. 1 and 2 and checks
// model 3's moves: none reversed within policy.DBSReversalWindow, at
// most two moves per job at the median. With -v it logs each
// move and the completion order.
func TestDBSPaperMoves(t *testing.T) {
	for _, tc := range []struct {
		name string
		jobs []workload.Paper003Job
	}{{"exp1", workload.Paper003Exp1()}, {"exp2", workload.Paper003Exp2()}} {
		t.Run(tc.name, func(t *testing.T) {
			p := Defaults()
			w, _, err := Paper003Workload("paper003-"+tc.name, tc.jobs, p)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := SlotCluster(workload.SlotSpace(), workload.Paper003Workers, workload.Paper003Maps, workload.Paper003Reduces, p.Seed)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Prices = resource.Vector{workload.Paper003Price, workload.Paper003Price}
			cells, err := RunGrids(p, "moves", Grid{Setups: []Setup{{Name: tc.name, Config: cfg, Workload: w}}, Columns: []Column{dbsColumn("DBS", policy.DBSOptions{})}})
			if err != nil {
				t.Fatal(err)
			}
			c := cells.Get(tc.name, "DBS")
			runs := []sim.Run{c.Run}
			st := dbsOf(c).Stats()
			var b strings.Builder
			for _, m := range st.Moves {
				fmt.Fprintf(&b, "  %8.1fs %s %v→%v\n", m.At.Seconds(), m.Job, m.From, m.To)
			}
			t.Logf("%d moves (%d↑ %d↓), %d reversed within %v:\n%s", len(st.Moves), st.Promotions, st.Demotions,
				st.Reversed(policy.DBSReversalWindow), policy.DBSReversalWindow, b.String())
			for _, r := range runs[0].Jobs {
				t.Logf("%s finished at %.0fs, cost %.2f", r.ID, (r.Finish - r.Submit).Seconds(), r.Cost)
			}
			if n := st.Reversed(policy.DBSReversalWindow); n > 0 {
				t.Errorf("%d moves reversed within %v", n, policy.DBSReversalWindow)
			}
			moved := st.MovesPerJob()
			per := append(make([]int, len(runs[0].Jobs)-len(moved)), moved...) // every job
			if p50 := per[(len(per)-1)/2]; p50 > 2 {
				t.Errorf("median moves per job %d > 2 (%v)", p50, per)
			}
		})
	}
}

package dbs_test

import (
	"testing"

	"github.com/schedkit/schedkit/dbs"
)

// TestReducesWaitForMaps: a job holding its map minimum, with maps
// unfinished and reduces the host reports ready (slow-start), is given
// no reduce slot and is not short of slots for model 3, so it is never
// promoted for them; with EarlyReduces it gets reduce slots and, holding
// none yet, is short and promoted.
func TestReducesWaitForMaps(t *testing.T) {
	for _, early := range []bool{false, true} {
		c := newCluster(4, 2, 2)
		s, err := dbs.New(dbs.Config{Cluster: c, Ablations: dbs.Ablations{EarlyReduces: early}})
		if err != nil {
			t.Fatal(err)
		}
		j := mrJob("j", 0.5, 8, 4, 400*sec, 1e6)
		m := &j.Counters[0]
		m.Finished, m.FinishedDurationSum = 2, 2*10*sec
		m.Running, m.Ready = 1, 5
		j.Counters[1].Ready = 4 // slow-start: ready while maps run
		now := t0.Add(20 * sec)
		m.RunningStartSum = 10 * sec
		if err := s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
		promoted := false
		for i := range 4 {
			now = now.Add(dbs.DefaultInterval)
			m.RunningStartSum = 10 * sec
			ds, err := s.Tick(now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if d.Action == dbs.Promote {
					promoted = true
					if d.Figures.Held >= d.Figures.Needed {
						t.Errorf("tick %d: promotion without shortfall %+v", i, d.Figures)
					}
				}
			}
		}
		st, _ := s.Status("j")
		if st.Min.Reduce < 1 {
			t.Fatalf("early %v: reduce minimum %d: the test needs one", early, st.Min.Reduce)
		}
		if promoted != early {
			t.Errorf("EarlyReduces %v: promoted %v", early, promoted)
		}
		ds, err := s.Heartbeat(now, c.NodeList[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		reduces := 0
		for _, d := range ds {
			if d.Phase == 1 {
				reduces += d.Count
			}
		}
		if want := map[bool]int{false: 0, true: 2}[early]; reduces != want {
			t.Errorf("EarlyReduces %v: %d reduce slots assigned, want %d", early, reduces, want)
		}
	}
}

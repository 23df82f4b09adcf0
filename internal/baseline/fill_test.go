package baseline

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// TestBatchStateGrowth: however the states grow (jobs first looked at
// in any order, capacity doubling), every job's state keeps its values
// and an inline extra aliases its own state's array, after every call;
// the naive reference is a map of the values written.
func TestBatchStateGrowth(t *testing.T) {
	for _, kinds := range []int{2, extraInline + 1} {
		cfg, w := indexSetup(3, false)
		space := cpuMemSpace
		if kinds > 2 {
			var err error
			if space, err = resource.NewSpace(resource.CPU, resource.Memory, resource.DiskBandwidth,
				resource.NetworkBandwidth, resource.Kind{Name: "acc"}); err != nil {
				t.Fatal(err)
			}
			for i := range cfg.Nodes {
				cfg.Nodes[i].Capacity = append(cfg.Nodes[i].Capacity, 1, 1, 1)
			}
			for i := range w.Jobs {
				for p := range w.Jobs[i].Phases {
					for x := range w.Jobs[i].Phases[p].Tasks {
						ts := &w.Jobs[i].Phases[p].Tasks[x]
						ts.Requested = append(ts.Requested, 0, 0, 0)
						for s := range ts.Profile {
							ts.Profile[s].Demand = append(ts.Profile[s].Demand, 0, 0, 0)
						}
					}
				}
			}
		}
		cfg.Space = space
		s, err := sim.New(cfg, w, NewFIFO())
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(kinds), 1))
		var b batch
		b.avail = make(resource.Vector, kinds)
		b.gen = 1
		want := map[int]float64{}
		for range 400 {
			i := rng.IntN(s.Jobs())
			st := b.state(s.Job(i))
			if len(st.extra) != kinds {
				t.Fatalf("job %d: extra has %d kinds, want %d", i, len(st.extra), kinds)
			}
			if v, ok := want[i]; ok && st.extra[0] != v {
				t.Fatalf("job %d: extra[0] = %v, wrote %v", i, st.extra[0], v)
			}
			want[i] = rng.Float64()
			st.extra[0] = want[i]
			for x := range b.jobs {
				st := &b.jobs[x]
				if st.extra == nil {
					continue
				}
				if inline := &st.extraArr[0] == &st.extra[0]; inline != (kinds <= extraInline) {
					t.Fatalf("job %d: extra inline %v with %d kinds", x, inline, kinds)
				}
				if st.extra[0] != want[x] {
					t.Fatalf("job %d: extra[0] = %v after growth, wrote %v", x, st.extra[0], want[x])
				}
			}
		}
	}
}

package binding

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
)

// propertyModes are the option combinations the property test runs.
var propertyModes = []struct {
	name string
	cfg  Config
}{
	{"paper", Config{}},
	{"rebalance", Config{Rebalance: true}},
	{"weighted", Config{Weighted: true, Weights: WeightTable{"V100": 4, "dead-model": 0}}},
	{"weighted+rebalance", Config{Weighted: true, Rebalance: true, Weights: WeightTable{"V100": 4}}},
	{"containers", Config{Containers: true}},
	{"containers+rebalance", Config{Containers: true, Rebalance: true}},
	{"containers+weighted+rebalance", Config{Containers: true, Weighted: true, Rebalance: true}},
	{"gpu-only", Config{Kinds: []schedkit.AcceleratorKind{schedkit.AcceleratorGPU}}},
}

// gen draws random operations over a small pool of node IDs and racks, so
// that racks stay small enough for the brute-force oracle and nodes come
// and go often.
type gen struct {
	r     *rand.Rand
	h     *harness
	now   time.Time
	ids   []schedkit.NodeID
	racks []schedkit.RackID
}

func newGen(h *harness, seed uint64, nodes, racks int) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), h: h, now: time.Unix(1000, 0)}
	for i := 0; i < nodes; i++ {
		g.ids = append(g.ids, schedkit.NodeID(fmt.Sprintf("n%02d", i)))
	}
	for i := 0; i < racks; i++ {
		g.racks = append(g.racks, schedkit.RackID(fmt.Sprintf("r%d", i)))
	}
	return g
}

var (
	genKinds  = []schedkit.AcceleratorKind{schedkit.AcceleratorGPU, schedkit.AcceleratorGPU, schedkit.AcceleratorMIC}
	genModels = []string{"K20m", "V100", "dead-model", "P100"}
)

func (g *gen) accels() []schedkit.AcceleratorInfo {
	k := g.r.IntN(4)
	if g.r.IntN(3) != 0 {
		k = 0 // two nodes in three have no accelerators at all
	}
	as := make([]schedkit.AcceleratorInfo, k)
	for i := range as {
		as[i] = schedkit.AcceleratorInfo{
			ID:          schedkit.AcceleratorID(fmt.Sprintf("acc%d", i)),
			Kind:        genKinds[g.r.IntN(len(genKinds))],
			Model:       genModels[g.r.IntN(len(genModels))],
			Memory:      int64(g.r.IntN(16)) << 30,
			Weight:      []float64{0, 0.5, 1, 2, 3}[g.r.IntN(5)],
			Utilisation: g.r.Float64(),
			Healthy:     g.r.IntN(5) != 0,
		}
	}
	return as
}

func (g *gen) status(id schedkit.NodeID) NodeStatus {
	return NodeStatus{
		ID:           id,
		Rack:         g.racks[g.r.IntN(len(g.racks))],
		Accelerators: g.accels(),
		Containers:   g.r.IntN(4),
	}
}

// corrupt returns st with one random defect.
func (g *gen) corrupt(st NodeStatus) NodeStatus {
	switch g.r.IntN(7) {
	case 0:
		st.Rack = ""
	case 1:
		st.ID = ""
	case 2:
		st.Containers = -1 - g.r.IntN(3)
	case 3:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "bad", Kind: "gpu", Weight: math.NaN(), Healthy: true})
	case 4:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "bad", Kind: "gpu", Weight: -1, Healthy: true})
	case 5:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "dup", Kind: "gpu"}, schedkit.AcceleratorInfo{ID: "dup", Kind: "gpu"})
	default:
		st.Containers = MaxContainers + 1
	}
	return st
}

func (g *gen) live() (schedkit.NodeID, bool) {
	if len(g.h.model) == 0 {
		return "", false
	}
	// Deterministic choice: walk the ID pool from a random start.
	start := g.r.IntN(len(g.ids))
	for i := range g.ids {
		id := g.ids[(start+i)%len(g.ids)]
		if g.h.model[id] != nil {
			return id, true
		}
	}
	return "", false
}

// step performs one random operation.
func (g *gen) step() {
	h := g.h
	g.now = g.now.Add(time.Duration(g.r.IntN(400)) * time.Millisecond)
	switch p := g.r.IntN(100); {
	case p < 22: // add (sometimes a duplicate)
		h.add(g.now, g.status(g.ids[g.r.IntN(len(g.ids))]))
	case p < 26: // bad add
		h.add(g.now, g.corrupt(g.status(g.ids[g.r.IntN(len(g.ids))])))
	case p < 36: // remove, sometimes unknown
		h.remove(g.ids[g.r.IntN(len(g.ids))])
	case p < 56: // plain heartbeat: liveness only
		if id, ok := g.live(); ok {
			st := h.model[id].st
			h.heartbeat(g.now, st)
		}
	case p < 68: // health change: flip one device
		if id, ok := g.live(); ok {
			st := h.model[id].st
			st.Accelerators = append([]schedkit.AcceleratorInfo(nil), st.Accelerators...)
			if len(st.Accelerators) > 0 {
				i := g.r.IntN(len(st.Accelerators))
				st.Accelerators[i].Healthy = !st.Accelerators[i].Healthy
				if g.r.IntN(3) == 0 {
					st.Accelerators[i].Weight = []float64{0, 0.5, 1, 2, 3}[g.r.IntN(5)]
				}
			} else {
				st.Accelerators = g.accels()
			}
			h.heartbeat(g.now, st)
		}
	case p < 74: // rack change
		if id, ok := g.live(); ok {
			st := h.model[id].st
			st.Rack = g.racks[g.r.IntN(len(g.racks))]
			h.heartbeat(g.now, st)
		}
	case p < 80: // container count change, or a whole new status
		if id, ok := g.live(); ok {
			st := h.model[id].st
			if g.r.IntN(2) == 0 {
				st = g.status(id)
			} else {
				st.Containers = g.r.IntN(5)
			}
			h.heartbeat(g.now, st)
		}
	case p < 83: // stale heartbeat
		if id, ok := g.live(); ok {
			h.heartbeat(h.model[id].last.Add(-time.Duration(1+g.r.IntN(1000))*time.Millisecond), h.model[id].st)
		}
	case p < 85: // heartbeat from an unknown node, or a bad one
		if g.r.IntN(2) == 0 {
			h.heartbeat(g.now, g.status("ghost"))
		} else if id, ok := g.live(); ok {
			h.heartbeat(g.now, g.corrupt(h.model[id].st))
		}
	default: // expire
		h.expire(g.now)
	}
}

// TestProperty runs random operation sequences in every mode with the full
// checker after every operation: 100,000 operations per mode (10,000 with
// -short or under the race detector).
func TestProperty(t *testing.T) {
	ops := 100_000
	if testing.Short() || raceEnabled {
		ops = 10_000
	}
	for i, m := range propertyModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			cfg := m.cfg
			cfg.Timeout = 10 * time.Second
			h := newHarness(t, cfg)
			g := newGen(h, uint64(i)+1, 30, 3)
			for h.ops < ops {
				g.step()
			}
		})
	}
}

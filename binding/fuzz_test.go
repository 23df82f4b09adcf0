package binding

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
)

// fuzzStatus builds a node status from one parameter byte: rack from the
// low bits, an accelerator (healthy or not, of some weight) from the
// others, and a container count.
func fuzzStatus(id schedkit.NodeID, p byte) NodeStatus {
	st := NodeStatus{ID: id, Rack: schedkit.RackID(fmt.Sprintf("r%d", p%3)), Containers: int(p>>6) % 4}
	if p&8 != 0 {
		st.Accelerators = []schedkit.AcceleratorInfo{{
			ID: "g0", Kind: schedkit.AcceleratorGPU, Model: []string{"K20m", "V100"}[p>>7],
			Weight: []float64{0, 0.5, 1, 3}[(p>>4)&3], Healthy: p&4 != 0,
		}}
	}
	return st
}

// FuzzOps interprets the input as a sequence of operations (three bytes
// each: kind, node, parameter) on a table in one of the property modes
// (first byte), and runs the full checker after every operation.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 0, 0, 8 | 4, 0, 1, 0, 0, 2, 0, 0, 3, 8 | 4, 1, 3, 0})
	f.Add([]byte{1, 0, 0, 12, 0, 1, 1, 0, 2, 2, 2, 1, 0, 3, 0, 0, 4, 12, 5, 1, 0, 6, 0, 0})
	f.Add([]byte{4, 0, 0, 0xcc, 0, 1, 0xc0, 0, 2, 0x80, 3, 1, 0x40, 5, 0, 0})
	f.Add([]byte{3, 0, 0, 0x9c, 0, 1, 0x1c, 0, 2, 0, 0, 3, 0, 2, 0, 0x18, 7, 0, 0xff})
	f.Fuzz(fuzzOps)
}

func fuzzOps(t *testing.T, data []byte) {
	if len(data) == 0 || len(data) > 3*120 {
		return
	}
	m := propertyModes[int(data[0])%len(propertyModes)]
	cfg := m.cfg
	cfg.Timeout = 5 * time.Second
	h := newHarness(t, cfg)
	now := time.Unix(0, 0)
	for i := 1; i+2 < len(data); i += 3 {
		kind, id, p := data[i]%9, schedkit.NodeID(fmt.Sprintf("n%d", data[i+1]%8)), data[i+2]
		now = now.Add(time.Duration(p%16) * 100 * time.Millisecond)
		switch kind {
		case 0, 1:
			h.add(now, fuzzStatus(id, p))
		case 2:
			h.remove(id)
		case 3, 4:
			st := fuzzStatus(id, p)
			if mn := h.model[id]; mn != nil && kind == 3 {
				st = mn.st // liveness only
			}
			h.heartbeat(now, st)
		case 5:
			h.expire(now)
		case 6: // stale heartbeat, or one out of range
			if mn := h.model[id]; mn != nil && p%8 == 7 {
				h.heartbeat(now.Add(1<<60+time.Duration(p)), mn.st)
			} else if mn != nil {
				h.heartbeat(mn.last.Add(-time.Duration(1+p)*time.Millisecond), mn.st)
			} else if p%8 == 7 {
				h.add(time.Time{}, fuzzStatus(id, p)) // the zero time: out of range once a time was accepted
			}
		case 7: // bad status
			st := fuzzStatus(id, p)
			switch p % 4 {
			case 0:
				st.Rack = ""
			case 1:
				st.Containers = -1
			case 2:
				st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "x", Kind: "gpu", Weight: math.NaN()})
			default:
				st.ID = ""
			}
			if p&1 == 0 {
				h.add(now, st)
			} else {
				h.heartbeat(now, st)
			}
		default: // container count change
			if mn := h.model[id]; mn != nil {
				st := mn.st
				st.Containers = int(p % 5)
				h.heartbeat(now, st)
			}
		}
	}
}

// FuzzNew checks that New accepts exactly the valid configurations and that
// a table it returns serves a weighted ANode with a finite load.
func FuzzNew(f *testing.F) {
	f.Add(int64(0), "gpu", "V100", 2.0, true, false, false)
	f.Add(int64(-1), "", "K20m", math.NaN(), true, true, true)
	f.Add(int64(5e9), "mic", "", -1.0, false, false, true)
	f.Fuzz(func(t *testing.T, timeout int64, kind, model string, w float64, weighted, rebalance, containers bool) {
		cfg := Config{
			Timeout: time.Duration(timeout), Kinds: []schedkit.AcceleratorKind{schedkit.AcceleratorKind(kind)},
			Weighted: weighted, Rebalance: rebalance, Containers: containers,
			Weights: WeightTable{model: w},
		}
		valid := timeout >= 0 && kind != "" && weighted && !math.IsNaN(w) && !math.IsInf(w, 0) && w >= 0
		tab, err := New(cfg)
		if (err == nil) != valid {
			t.Fatalf("New(%+v) error %v, valid %v", cfg, err, valid)
		}
		if err != nil {
			return
		}
		st := NodeStatus{ID: "a", Rack: "r", Accelerators: []schedkit.AcceleratorInfo{{ID: "g", Kind: schedkit.AcceleratorKind(kind), Model: model, Healthy: true}}}
		if _, err := tab.Add(time.Unix(0, 0), st); err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Add(time.Unix(0, 0), NodeStatus{ID: "n", Rack: "r"}); err != nil {
			t.Fatal(err)
		}
		for _, l := range tab.Loads("r", nil) {
			if math.IsNaN(l.Load) || l.Capacity <= 0 {
				t.Fatalf("load %+v", l)
			}
		}
		if err := tab.checkInternal(); err != nil {
			t.Fatal(err)
		}
	})
}

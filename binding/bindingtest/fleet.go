package bindingtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
)

// Fleet is a reference in-memory fleet driving a binding.Table: a pool of
// node IDs and racks, the statuses of the live nodes as the table should
// hold them, and a seeded random operation generator. Every operation is
// checked: a successful one with the Checker, a refused one for changing
// nothing and for the error the model predicts (unknown, duplicate or
// stale). A broken invariant is reported to Fail.
type Fleet struct {
	Table *binding.Table
	Check *Checker
	Rand  *rand.Rand
	Now   time.Time
	// Live holds the status and last heartbeat of every node the table
	// should hold.
	Live map[schedkit.NodeID]Live
	// IDs and Racks are the pools operations draw from.
	IDs   []schedkit.NodeID
	Racks []schedkit.RackID
	// Fail is called on a broken invariant (typically t.Fatalf).
	Fail func(format string, args ...any)
	// Ops counts operations, Refused those the table refused, Moves the
	// moves returned.
	Ops, Refused, Moves int

	cfg binding.Config
}

// Live is a live node as the fleet models it.
type Live struct {
	Status binding.NodeStatus
	Last   time.Time
}

// NewFleet returns a fleet of up to nodes nodes over racks racks, driving a
// new Table made with cfg.
func NewFleet(rng *rand.Rand, cfg binding.Config, nodes, racks int, fail func(string, ...any)) (*Fleet, error) {
	t, err := binding.New(cfg)
	if err != nil {
		return nil, err
	}
	f := &Fleet{Table: t, Check: NewChecker(t, t.Config()), Rand: rng, Now: time.Unix(1000, 0),
		Live: map[schedkit.NodeID]Live{}, Fail: fail, cfg: t.Config()}
	for i := range nodes {
		f.IDs = append(f.IDs, schedkit.NodeID(fmt.Sprintf("n%02d", i)))
	}
	for i := range racks {
		f.Racks = append(f.Racks, schedkit.RackID(fmt.Sprintf("r%d", i)))
	}
	return f, nil
}

var (
	kinds  = []schedkit.AcceleratorKind{schedkit.AcceleratorGPU, schedkit.AcceleratorGPU, schedkit.AcceleratorMIC}
	models = []string{"K20m", "V100", "dead-model", "P100"}
)

// Accelerators draws a device list: none for two nodes in three, else
// 1–3 devices of random kind, model, weight and health.
func (f *Fleet) Accelerators() []schedkit.AcceleratorInfo {
	k := f.Rand.IntN(4)
	if f.Rand.IntN(3) != 0 {
		k = 0
	}
	as := make([]schedkit.AcceleratorInfo, k)
	for i := range as {
		as[i] = schedkit.AcceleratorInfo{
			ID:          schedkit.AcceleratorID(fmt.Sprintf("acc%d", i)),
			Kind:        kinds[f.Rand.IntN(len(kinds))],
			Model:       models[f.Rand.IntN(len(models))],
			Memory:      int64(f.Rand.IntN(16)) << 30,
			Weight:      []float64{0, 0.5, 1, 2, 3}[f.Rand.IntN(5)],
			Utilisation: f.Rand.Float64(),
			Healthy:     f.Rand.IntN(5) != 0,
		}
	}
	return as
}

// Status draws a status for node id.
func (f *Fleet) Status(id schedkit.NodeID) binding.NodeStatus {
	return binding.NodeStatus{ID: id, Rack: f.Racks[f.Rand.IntN(len(f.Racks))], Accelerators: f.Accelerators(), Containers: f.Rand.IntN(4)}
}

// Corrupt returns st with one random defect the table must refuse.
func (f *Fleet) Corrupt(st binding.NodeStatus) binding.NodeStatus {
	switch f.Rand.IntN(7) {
	case 0:
		st.Rack = ""
	case 1:
		st.ID = ""
	case 2:
		st.Containers = -1 - f.Rand.IntN(3)
	case 3:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "bad", Kind: "gpu", Weight: math.NaN(), Healthy: true})
	case 4:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "bad", Kind: "gpu", Weight: -1, Healthy: true})
	case 5:
		st.Accelerators = append(st.Accelerators, schedkit.AcceleratorInfo{ID: "dup", Kind: "gpu"}, schedkit.AcceleratorInfo{ID: "dup", Kind: "gpu"})
	default:
		st.Containers = binding.MaxContainers + 1
	}
	return st
}

// live picks a live node, deterministically from a random start in IDs.
func (f *Fleet) live() (schedkit.NodeID, bool) {
	start := f.Rand.IntN(len(f.IDs))
	for i := range f.IDs {
		if id := f.IDs[(start+i)%len(f.IDs)]; f.Live[id].Status.ID != "" {
			return id, true
		}
	}
	return "", false
}

// done checks one operation's outcome.
func (f *Fleet) done(op string, moves []binding.Move, err error, want error) {
	f.Ops++
	f.Moves += len(moves)
	if err != nil {
		f.Refused++
		var e *binding.Error
		if !errors.As(err, &e) || moves != nil {
			f.Fail("bindingtest: op %d: %s: untyped error or moves with an error: %v, %v", f.Ops, op, err, moves)
		}
		if want != nil && !errors.Is(err, want) {
			f.Fail("bindingtest: op %d: %s: error %v, want %v", f.Ops, op, err, want)
		}
	} else if want != nil {
		f.Fail("bindingtest: op %d: %s: accepted, want %v", f.Ops, op, want)
	}
	if cerr := f.Check.Check(moves); cerr != nil {
		f.Fail("bindingtest: op %d: %s: %v", f.Ops, op, cerr)
	}
	if f.Table.Len() != len(f.Live) {
		f.Fail("bindingtest: op %d: %s: table holds %d nodes, the fleet %d", f.Ops, op, f.Table.Len(), len(f.Live))
	}
}

// Add adds st at Now, expecting ErrDuplicateNode for a live node.
func (f *Fleet) Add(st binding.NodeStatus) {
	var want error
	if _, ok := f.Live[st.ID]; ok {
		want = binding.ErrDuplicateNode
	}
	moves, err := f.Table.Add(f.Now, st)
	if err == nil {
		f.Live[st.ID] = Live{st, f.Now}
	}
	f.done("Add "+string(st.ID), moves, err, want)
}

// Heartbeat reports st at now, expecting ErrUnknownNode for a node not
// live and ErrStaleTime for a time before the node's last.
func (f *Fleet) Heartbeat(now time.Time, st binding.NodeStatus) {
	var want error
	l, ok := f.Live[st.ID]
	switch {
	case !ok:
		want = binding.ErrUnknownNode
	case now.Before(l.Last):
		want = binding.ErrStaleTime
	}
	moves, err := f.Table.Heartbeat(now, st)
	if err == nil {
		f.Live[st.ID] = Live{st, now}
	}
	f.done("Heartbeat "+string(st.ID), moves, err, want)
}

// Remove removes id, expecting ErrUnknownNode for a node not live.
func (f *Fleet) Remove(id schedkit.NodeID) {
	var want error
	if _, ok := f.Live[id]; !ok {
		want = binding.ErrUnknownNode
	}
	moves, err := f.Table.Remove(id)
	if err == nil {
		delete(f.Live, id)
	}
	f.done("Remove "+string(id), moves, err, want)
}

// Expire expires at Now and checks that exactly the nodes silent for the
// timeout died.
func (f *Fleet) Expire() {
	cut := f.Now.Add(-f.cfg.Timeout)
	dead, moves := f.Table.Expire(f.Now)
	for _, id := range dead {
		if l, ok := f.Live[id]; !ok || l.Last.After(cut) {
			f.Fail("bindingtest: Expire: %q died, last heartbeat %v, cut %v", id, l.Last, cut)
		}
		delete(f.Live, id)
	}
	for id, l := range f.Live {
		if !l.Last.After(cut) {
			f.Fail("bindingtest: Expire: %q survived, last heartbeat %v, cut %v", id, l.Last, cut)
		}
	}
	f.done("Expire", moves, nil, nil)
}

// Step performs one random operation, time moving 0–400 ms first: adds
// (some duplicate, some invalid), removals (some unknown), plain
// heartbeats, health, weight, rack and container changes, stale
// heartbeats, heartbeats from unknown nodes or with invalid statuses, and
// expiry.
func (f *Fleet) Step() {
	f.Now = f.Now.Add(time.Duration(f.Rand.IntN(400)) * time.Millisecond)
	pick := func() schedkit.NodeID { return f.IDs[f.Rand.IntN(len(f.IDs))] }
	switch p := f.Rand.IntN(100); {
	case p < 22:
		f.Add(f.Status(pick()))
	case p < 26:
		f.bad(func(st binding.NodeStatus) ([]binding.Move, error) { return f.Table.Add(f.Now, st) }, f.Corrupt(f.Status(pick())))
	case p < 36:
		f.Remove(pick())
	case p < 56:
		if id, ok := f.live(); ok {
			f.Heartbeat(f.Now, f.Live[id].Status)
		}
	case p < 68:
		if id, ok := f.live(); ok {
			st := f.Live[id].Status
			st.Accelerators = append([]schedkit.AcceleratorInfo(nil), st.Accelerators...)
			if len(st.Accelerators) > 0 {
				i := f.Rand.IntN(len(st.Accelerators))
				st.Accelerators[i].Healthy = !st.Accelerators[i].Healthy
				if f.Rand.IntN(3) == 0 {
					st.Accelerators[i].Weight = []float64{0, 0.5, 1, 2, 3}[f.Rand.IntN(5)]
				}
			} else {
				st.Accelerators = f.Accelerators()
			}
			f.Heartbeat(f.Now, st)
		}
	case p < 74:
		if id, ok := f.live(); ok {
			st := f.Live[id].Status
			st.Rack = f.Racks[f.Rand.IntN(len(f.Racks))]
			f.Heartbeat(f.Now, st)
		}
	case p < 80:
		if id, ok := f.live(); ok {
			st := f.Live[id].Status
			if f.Rand.IntN(2) == 0 {
				st = f.Status(id)
			} else {
				st.Containers = f.Rand.IntN(5)
			}
			f.Heartbeat(f.Now, st)
		}
	case p < 83:
		if id, ok := f.live(); ok {
			l := f.Live[id]
			f.Heartbeat(l.Last.Add(-time.Duration(1+f.Rand.IntN(1000))*time.Millisecond), l.Status)
		}
	case p < 85:
		if f.Rand.IntN(2) == 0 {
			f.Heartbeat(f.Now, f.Status("ghost"))
		} else if id, ok := f.live(); ok {
			f.bad(func(st binding.NodeStatus) ([]binding.Move, error) { return f.Table.Heartbeat(f.Now, st) }, f.Corrupt(f.Live[id].Status))
		}
	default:
		f.Expire()
	}
}

// bad runs an operation on an invalid status: it must be refused.
func (f *Fleet) bad(op func(binding.NodeStatus) ([]binding.Move, error), st binding.NodeStatus) {
	moves, err := op(st)
	if err == nil {
		f.Fail("bindingtest: op %d: invalid status %+v accepted", f.Ops+1, st)
		f.Live[st.ID] = Live{st, f.Now}
	}
	f.done("invalid status", moves, err, nil)
}

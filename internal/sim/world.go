package sim

import (
	"math"
	"math/rand/v2"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// world is the simulated cluster: its nodes, the task attempts running
// on them, and how they progress (compression under the host's
// enforcement, contention, offload bindings). It reads the engine's
// clock and schedules the attempts' progress events; it knows nothing
// of jobs beyond the tasks it runs.
type world struct {
	eng   *engine
	space *resource.Space
	k     int
	kinds kindSets
	// model is what the host enforces and what contention costs.
	model model
	// fast: nodes keep incremental sums of their running attempts' terms
	// (sums.go): no offload kinds, and at most allocInline kinds.
	fast        bool
	recordTasks bool // attempts accumulate their task records (Config.RecordTasks)
	profile     func(t *Task, n *Node) []workload.Stage

	nodes    []Node
	hot      []nodeHot // by node index: what a quiet heartbeat reads
	live     []*Node
	capacity resource.Vector // Σ capacity of the live nodes
	dirty    []*Node         // nodes touched since the last settle
	pool     []*attempt      // attempts to reuse
	startSeq uint64          // attempts started, numbering them (victim)
	// running counts the running attempts, progressing those with a
	// positive rate.
	running, progressing int
}

// kindSets are the resource kinds by what the model does with them.
type kindSets struct {
	compressible []bool // by kind
	integral     []bool // by kind
	compKinds    []int  // the compressible kinds
	incompKinds  []int  // the incompressible kinds
	offloadKinds []int  // Config.OffloadKinds
}

// model is the Config of compression: enforcement and contention.
type model struct {
	enforcement Enforcement
	penalty     float64
	contention  Contention
}

// init builds the nodes of cfg in w, all idle, staggering their
// heartbeats in an order drawn from rng.
func (w *world) init(cfg *Config, eng *engine, rng *rand.Rand) {
	*w = world{
		eng:         eng,
		space:       cfg.Space,
		k:           cfg.Space.Len(),
		model:       model{enforcement: cfg.Enforcement, penalty: cfg.Penalty, contention: cfg.Contention},
		recordTasks: cfg.RecordTasks,
		profile:     cfg.Profile,
	}
	ks := &w.kinds
	ks.compressible = make([]bool, w.k)
	ks.integral = make([]bool, w.k)
	for i := 0; i < w.k; i++ {
		kd := w.space.Kind(i)
		ks.compressible[i] = kd.Compressible
		ks.integral[i] = kd.Integral
		if kd.Compressible {
			ks.compKinds = append(ks.compKinds, i)
		} else {
			ks.incompKinds = append(ks.incompKinds, i)
		}
	}
	for _, name := range cfg.OffloadKinds {
		i, _ := w.space.Index(name)
		ks.offloadKinds = append(ks.offloadKinds, i)
	}
	w.fast = len(ks.offloadKinds) == 0 && w.k <= allocInline
	w.buildNodes(cfg, rng)
}

func (w *world) buildNodes(cfg *Config, rng *rand.Rand) {
	w.nodes = make([]Node, len(cfg.Nodes))
	w.hot = make([]nodeHot, len(cfg.Nodes))
	vec := make([]float64, 10*w.k*len(cfg.Nodes)) // one arena for all node vectors
	next := func() resource.Vector {
		v := resource.Vector(vec[:w.k:w.k])
		vec = vec[w.k:]
		return v
	}
	interval := int64(cfg.HeartbeatInterval)
	for i := range w.nodes {
		ns := &cfg.Nodes[i]
		n := &w.nodes[i]
		n.idx, n.id, n.rack = int32(i), ns.ID, ns.Rack
		n.capacity = next()
		copy(n.capacity, ns.Capacity)
		n.fullAt = next()
		for k, c := range n.capacity {
			n.fullAt[k] = c + slack(c)
		}
		n.alloc, n.avail, n.used, n.bg, n.rc = next(), next(), next(), next(), next()
		n.incAlloc, n.incLoad = next(), next()
		copy(n.avail, n.capacity)
		n.speed = ns.Speed
		if n.speed == 0 {
			n.speed = 1
		}
		n.accels = ns.Accelerators
		n.up = !ns.Down
		w.hot[i] = nodeHot{free: freeMask(n.avail), up: n.up}
		n.offloaded = make([]bool, w.k)
		for _, k := range w.kinds.offloadKinds {
			if n.capacity[k] == 0 {
				n.offloaded[k] = true
				n.offload = true
			}
		}
	}
	// Even stagger: node i heartbeats at offset perm(i)·interval/N after
	// the cluster wakes, with the order permuted by the seeded rng.
	perm := rng.Perm(len(w.nodes))
	for i := range w.nodes {
		w.nodes[i].hbOffset = int64(perm[i]) * interval / int64(len(w.nodes))
	}
	w.capacity = w.space.Zero()
	w.rebuildLive()
}

// markDirty adds n to the nodes the next settle recomputes.
func (w *world) markDirty(n *Node) {
	if !n.dirty {
		n.dirty = true
		w.dirty = append(w.dirty, n)
	}
}

// rebuildLive lists the live nodes and adds up their capacity.
func (w *world) rebuildLive() {
	w.live = w.live[:0]
	for i := range w.capacity {
		w.capacity[i] = 0
	}
	for i := range w.nodes {
		if n := &w.nodes[i]; n.up {
			w.live = append(w.live, n)
			_ = w.capacity.Add(n.capacity)
		}
	}
}

// setUp takes n down or brings it back (its running tasks and guests
// are gone already when it goes down), unbinding the nodes bound to it.
func (w *world) setUp(n *Node, up bool) {
	if !up {
		for i := range w.nodes {
			if m := &w.nodes[i]; m.bound == n {
				w.bind(m, nil)
			}
		}
	}
	n.up = up
	w.hot[n.idx].up = up
	w.rebuildLive()
	w.markDirty(n)
}

// bind binds n to target for its offload kinds (nil unbinds): its
// running tasks not pinned elsewhere move to target's guests. It
// reports whether anything changed.
func (w *world) bind(n, target *Node) bool {
	if n.bound == target {
		return false
	}
	if n.offload {
		for _, t := range n.running {
			if t.run.host != nil && t.run.pin == nil {
				w.removeGuest(t)
			}
		}
	}
	n.bound = target
	if n.offload && target != nil {
		for _, t := range n.running {
			if t.run.pin == nil {
				w.addGuest(target, t)
			}
		}
	}
	w.markDirty(n)
	return true
}

func (w *world) addGuest(h *Node, t *Task) {
	a := t.run
	a.host = h
	a.gslot = len(h.guests)
	h.guests = append(h.guests, t)
	w.markDirty(h)
}

func (w *world) removeGuest(t *Task) {
	a := t.run
	h := a.host
	last := len(h.guests) - 1
	moved := h.guests[last]
	h.guests[a.gslot] = moved
	moved.run.gslot = a.gslot
	h.guests[last] = nil
	h.guests = h.guests[:last]
	a.host, a.gslot = nil, -1
	w.markDirty(h)
}

// setBackground sets node i's background demand.
func (w *world) setBackground(i int, demand resource.Vector) {
	n := &w.nodes[i]
	copy(n.bg, demand)
	w.markDirty(n)
}

// slotsFor counts how many tasks requesting req fit on all live nodes at
// once (node by node; unbounded when req is zero).
func (w *world) slotsFor(req []float64) int {
	total := 0
	for _, n := range w.live {
		fit := math.MaxInt32
		for k, r := range req {
			if r > 0 {
				fit = min(fit, int(math.Floor(n.capacity[k]/r+1e-9)))
			}
		}
		total += fit
		if total >= math.MaxInt32 {
			return math.MaxInt32
		}
	}
	return total
}

// overFree returns the first incompressible kind n serves itself (not
// offloaded) of which alloc asks more than n has free, or -1 if alloc
// fits.
func (w *world) overFree(n *Node, alloc resource.Vector) int {
	for _, k := range w.kinds.incompKinds {
		if !n.offloaded[k] && alloc[k] > 0 && alloc[k] > n.avail[k]+slack(n.capacity[k]) {
			return k
		}
	}
	return -1
}

// fits reports whether req fits some node in its incompressible kinds.
func (w *world) fits(req resource.Vector) bool {
	for n := range w.nodes {
		ok := true
		for _, k := range w.kinds.incompKinds {
			if req[k] > w.nodes[n].capacity[k] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// tolerance for comparing float amounts against capacities.
func slack(c float64) float64 { return 1e-9 * math.Max(1, math.Abs(c)) }

// owns reports whether n is one of w's nodes (not another
// simulation's).
func (w *world) owns(n *Node) bool {
	i := int(n.idx)
	return i < len(w.nodes) && &w.nodes[i] == n
}

package baseline

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// measure is what a share-based policy equalises.
type measure uint8

const (
	byCount    measure = iota // running tasks of the phase being filled
	byKind                    // allocation of one kind over its capacity
	byDominant                // dominant share (DRF)
)

// sharer is progressive filling: on a heartbeat, repeatedly give one task
// to the job with the smallest share (within the group, pool or queue,
// with the smallest share, when grouping), until nothing more fits. Ties:
// earlier submission, then ID. It is the engine of Fair, DRF and
// Capacity.
type sharer struct {
	name    string
	measure measure
	kind    int // byKind: the kind's index; -1 until resolved
	kindStr string
	grouped bool
	// weight returns a group's weight (its guaranteed share); nil: 1.
	weight func(class string) float64
	// limit returns a group's maximum share (∞ for none); nil: none.
	limit func(class string) float64

	// fifoWithin orders the jobs of a group by submission, not share.
	fifoWithin bool

	batch   batch
	idx     index
	groups  map[string]*group
	cap     resource.Vector
	phase   int // the phase being filled (byCount)
	touched []*group
}

var (
	_ sim.TaskWatcher = (*sharer)(nil)
	_ sim.JobWatcher  = (*sharer)(nil)

	_ sim.FullNodeSkipper = (*sharer)(nil)
)

// Name implements sim.Policy.
func (s *sharer) Name() string { return s.name }

// SkipFullNodes implements sim.FullNodeSkipper: on a node with nothing
// free, or where no ready task's request fits, a heartbeat decides
// nothing (it would only bring the index's keys up to date, which the
// next heartbeat does as well).
func (s *sharer) SkipFullNodes() bool { return true }

// Heartbeat implements sim.Policy.
func (s *sharer) Heartbeat(_ time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.Ready() == 0 || !s.batch.begin(n) {
		return dst, nil
	}
	if s.measure == byKind && s.kind < 0 {
		k, ok := c.Space().Index(s.kindStr)
		if !ok {
			return dst, fmt.Errorf("%w: kind %q is not in the cluster's space", ErrConfig, s.kindStr)
		}
		s.kind = k
	}
	if !s.cap.Equal(c.Capacity()) {
		s.cap = append(s.cap[:0], c.Capacity()...)
		s.idx.refreshAll()
	}
	s.idx.refresh()
	if checkHook != nil {
		checkHook(s, c)
	}
	if s.measure == byCount {
		// Hadoop-1: each phase (slot type) is shared on its own.
		for p := 0; p < schedkit.MaxPhases && !s.batch.exhausted(); p++ {
			if c.ReadyIn(schedkit.Phase(p)) > 0 {
				s.phase = p
				dst = s.round(c, p, dst)
			}
		}
		return dst, nil
	}
	s.phase = -1
	return s.round(c, -1, dst), nil
}

// checkHook, set by tests, checks the index at the start of a heartbeat.
var checkHook func(s *sharer, c *sim.Cluster)

// round fills the node for phase p (-1: any phase): progressive
// filling, one task at a time to the job (in the group) with the smallest
// key, found through the index.
func (s *sharer) round(c *sim.Cluster, p int, dst []sim.Decision) []sim.Decision {
	b := &s.batch
	x := &s.idx
	blockBit := uint64(1) << 63
	if p >= 0 {
		blockBit = uint64(1) << uint(p)
	}
	x.beginRound()
	defer s.endRound()
	for {
		var best *entry
		var bestGK, bestK float64
		consider := func(e *entry, gk, k float64) {
			if best == nil || gk < bestGK || (gk == bestGK && (k < bestK || (k == bestK && before(e.j, best.j)))) {
				best, bestGK, bestK = e, gk, k
			}
		}
		for _, cls := range x.classes {
			if p >= 0 && cls.phase != p || !b.fits(cls.req) {
				continue
			}
			if e, gk := x.top(cls, b); e != nil {
				consider(e, gk, e.ph[cls.phase].key)
			}
		}
		for _, e := range x.misc {
			st := b.state(e.j)
			if st.blockedMask&blockBit != 0 || !hasReady(e.j, st, p) {
				continue
			}
			gk := 0.0
			if s.grouped {
				if gk = s.groupKey(e.g, p); gk >= e.g.limit {
					continue
				}
			}
			consider(e, gk, s.jobKey(e.j, st, p))
		}
		if best == nil {
			return dst
		}
		st := b.state(best.j)
		n := len(dst)
		var ok bool
		if p >= 0 {
			dst, ok = b.tryPhase(best.j, schedkit.Phase(p), c, dst)
		} else {
			dst, ok = b.tryJob(best.j, c, dst)
		}
		if !ok {
			st.blockedMask |= blockBit
			best.seen = x.round
			continue
		}
		x.markDirty(best)
		if g := best.g; g != nil {
			s.roundOf(g)
			_ = g.cur.Add(dst[n].Task.Requested())
			g.extra++
			s.touched = append(s.touched, g)
			x.rekeyGroup(g)
		}
		if p >= 0 {
			x.rekey(best, p)
		} else {
			for q := 0; q < best.j.Phases(); q++ {
				x.rekey(best, q)
			}
		}
		if b.exhausted() {
			return dst
		}
	}
}

// endRound puts back what the round set aside and ends the in-round
// values of the groups it chose for (their choices are now the
// simulator's to apply). Their slots keep the keys of the round's last
// choice until the next heartbeat's refresh: every such group has a
// chosen job marked dirty (or removed, which queues the group too), so
// that refresh recomputes their keys from the allocations before any
// heap is asked for its first slot; no heartbeat reads a key before its
// refresh (Fair's later phase rounds in the same heartbeat read only
// their own phase's slots, whose keys a choice in another phase leaves
// at the phase's running count), and the heaps stay in order meanwhile
// (every key in them was placed by fixSlot). Putting back the keys of the
// allocations before the round here would only move each chosen group's
// slots down the class heaps and up again at the refresh.
func (s *sharer) endRound() {
	s.idx.endRound()
	for i, g := range s.touched {
		s.touched[i] = nil
		g.round = 0
	}
	s.touched = s.touched[:0]
}

// roundOf starts g's in-round values (allocation plus this round's
// choices) if this round has not yet.
func (s *sharer) roundOf(g *group) {
	if g.round != s.idx.round {
		g.round, g.roundPh = s.idx.round, s.phase
		copy(g.cur, g.base)
		g.extra = 0
	}
}

func hasReady(j *sim.Job, st *jobBatch, p int) bool {
	if p >= 0 {
		return p < j.Phases() && j.Progress(schedkit.Phase(p)).Ready > int(st.chosen[p])
	}
	for q := 0; q < j.Phases(); q++ {
		if j.Progress(schedkit.Phase(q)).Ready > int(st.chosen[q]) {
			return true
		}
	}
	return false
}

// jobKey is j's share with this heartbeat's choices st (nil: none).
func (s *sharer) jobKey(j *sim.Job, st *jobBatch, p int) float64 {
	if s.fifoWithin {
		return 0
	}
	switch s.measure {
	case byCount:
		r := j.Progress(schedkit.Phase(p)).Running
		if st != nil {
			r += int(st.chosen[p])
		}
		return float64(r)
	case byKind:
		if c := s.cap[s.kind]; c > 0 {
			x := j.Allocated()[s.kind]
			if st != nil {
				x += st.extra[s.kind]
			}
			return x / c
		}
		return 0
	}
	if st == nil {
		return dominant(j.Allocated(), nil, s.cap)
	}
	return dominant(j.Allocated(), st.extra, s.cap)
}

// groupKey is g's share for phase p's filling (p = -1: all phases), its
// choices this round included, over its weight.
func (s *sharer) groupKey(g *group, p int) float64 {
	s.roundOf(g)
	var x float64
	switch s.measure {
	case byCount:
		if p >= 0 {
			x = float64(g.count[p])
			if g.roundPh == p {
				x += float64(g.extra)
			}
		}
	case byKind:
		if c := s.cap[s.kind]; c > 0 {
			x = g.cur[s.kind] / c
		}
	default:
		x = dominant(g.cur, nil, s.cap)
	}
	return x / g.weight
}

// keyOf is an indexed job's key in phase p's heaps. Out of a round (the
// refresh at the start of a heartbeat) nothing is chosen yet, so the
// key is the job's own share, without its batch state (the jobs'
// per-heartbeat states are scattered: not touching them saves a cache
// miss per refreshed job); the same value jobKey gives with nothing
// chosen.
func (s *sharer) keyOf(e *entry, p int, inRound bool) float64 {
	if s.measure != byCount {
		p = -1
	}
	if inRound {
		return s.jobKey(e.j, s.batch.state(e.j), p)
	}
	return s.jobKey(e.j, nil, p)
}

// Submit implements sim.Policy: every job is accepted and indexed.
func (s *sharer) Submit(_ time.Time, j *sim.Job) error {
	if s.idx.order == nil {
		s.idx.order, s.idx.rank = before, submitRank
		s.idx.keyOf = s.keyOf
		s.idx.groupKey = s.groupKey
	}
	var g *group
	k := len(j.Allocated())
	if s.grouped {
		if s.groups == nil {
			s.groups = map[string]*group{}
		}
		if g = s.groups[j.Class()]; g == nil {
			w, l := 1.0, math.Inf(1)
			if s.weight != nil {
				w = s.weight(j.Class())
			}
			if s.limit != nil {
				l = s.limit(j.Class())
			}
			g = newGroup(k, w, l)
			s.groups[j.Class()] = g
		}
	}
	s.idx.add(j, g, k)
	return nil
}

// TaskEnded implements sim.TaskWatcher: the job's shares changed.
func (s *sharer) TaskEnded(_ time.Time, t *sim.Task, _ schedkit.TaskState) error {
	if e := s.idx.entry(t.Owner()); e != nil {
		s.idx.markDirty(e)
	}
	return nil
}

// JobEnded implements sim.JobWatcher: the job leaves the index.
func (s *sharer) JobEnded(_ time.Time, j *sim.Job, _ sim.Outcome) error {
	s.idx.remove(j)
	return nil
}

// Fair is max-min fairness between jobs, or between pools (JobSpec.Class)
// and then between the jobs of a pool, with equal weights. By default it
// equalises running task counts phase by phase (Hadoop-1's Fair
// Scheduler, maps and reduces shared separately); with FairConfig.Kind it
// equalises the allocation of one kind, all phases together (YARN's
// FairSharePolicy on memory). Request-based. Not safe for concurrent use.
type Fair struct{ sharer }

// FairConfig configures Fair.
type FairConfig struct {
	// Pools shares between pools (job classes) first.
	Pools bool
	// Kind, if set, names the resource kind whose allocation is shared
	// (e.g. "memory"); empty shares running tasks per phase.
	Kind string
}

// NewFair returns a Fair policy.
func NewFair(cfg FairConfig) *Fair {
	f := &Fair{sharer{name: "Fair", measure: byCount, kind: -1, grouped: cfg.Pools}}
	if cfg.Kind != "" {
		f.measure, f.kindStr = byKind, cfg.Kind
	}
	if cfg.Pools {
		f.name = "Fair(pools)"
	}
	return f
}

// DRF is Dominant Resource Fairness (Ghodsi et al., NSDI 2011) by
// progressive filling: each task in turn goes to the job (or, with
// DRFConfig.Pools, the pool and then the job) whose dominant share, its
// largest allocation/capacity ratio over kinds, is smallest.
// Request-based. Not safe for concurrent use.
type DRF struct{ sharer }

// DRFConfig configures DRF.
type DRFConfig struct {
	// Pools shares between pools (job classes, "users") first.
	Pools bool
}

// NewDRF returns a DRF policy.
func NewDRF(cfg DRFConfig) *DRF {
	d := &DRF{sharer{name: "DRF", measure: byDominant, kind: -1, grouped: cfg.Pools}}
	if cfg.Pools {
		d.name = "DRF(pools)"
	}
	return d
}

// Capacity is Hadoop's Capacity Scheduler reduced to its core: one queue
// per job class with a guaranteed share; a free resource goes to the
// queue furthest below its guarantee (smallest dominant share ÷
// guaranteed share), so capacity a queue leaves idle is lent to the
// others; within a queue, jobs in submission order. An optional maximum
// share caps a queue's elasticity. Request-based. Not safe for
// concurrent use.
type Capacity struct {
	sharer
	shares map[string]float64
	max    map[string]float64
	def    float64
	total  float64
}

// CapacityConfig configures Capacity.
type CapacityConfig struct {
	// Shares are the queues' guaranteed shares as weights (normalised
	// over the configured queues plus Default for each other class seen).
	// Empty: every class gets an equal share.
	Shares map[string]float64
	// Default is the weight of a class not in Shares; 0 means 1 if Shares
	// is empty, else the smallest configured weight.
	Default float64
	// Max caps a queue's dominant share (0 < max ≤ 1); absent: no cap.
	Max map[string]float64
}

// NewCapacity returns a Capacity policy or a *ConfigError for a negative,
// zero or non-finite weight or cap.
func NewCapacity(cfg CapacityConfig) (*Capacity, error) {
	c := &Capacity{sharer: sharer{name: "Capacity", measure: byDominant, kind: -1, grouped: true, fifoWithin: true},
		shares: map[string]float64{}, max: map[string]float64{}}
	names := make([]string, 0, len(cfg.Shares))
	for q := range cfg.Shares {
		names = append(names, q)
	}
	sort.Strings(names)
	minW := math.Inf(1)
	for _, q := range names {
		w := cfg.Shares[q]
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, &ConfigError{Field: "Shares[" + q + "]", Reason: fmt.Sprintf("%v is not a positive finite weight", w)}
		}
		c.shares[q] = w
		c.total += w
		minW = math.Min(minW, w)
	}
	switch {
	case cfg.Default < 0 || math.IsNaN(cfg.Default) || math.IsInf(cfg.Default, 0):
		return nil, &ConfigError{Field: "Default", Reason: fmt.Sprintf("%v is not a finite weight ≥ 0", cfg.Default)}
	case cfg.Default > 0:
		c.def = cfg.Default
	case len(names) == 0:
		c.def = 1
	default:
		c.def = minW
	}
	for q, m := range cfg.Max {
		if !(m > 0 && m <= 1) {
			return nil, &ConfigError{Field: "Max[" + q + "]", Reason: fmt.Sprintf("%v is outside (0, 1]", m)}
		}
		c.max[q] = m
	}
	c.weight = c.queueWeight
	c.limit = func(q string) float64 {
		if m, ok := c.max[q]; ok {
			// the group key is share ÷ guarantee; cap the share itself
			return m / c.queueWeight(q)
		}
		return math.Inf(1)
	}
	if len(names) > 0 {
		var b strings.Builder
		for i, q := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%g", q, c.shares[q])
		}
		c.name = "Capacity(" + b.String() + ")"
	}
	return c, nil
}

// queueWeight is the queue's guaranteed fraction: its weight over the sum
// of the weights of every queue seen so far. Seeing a new class changes
// the fractions of the others; a group's weight is fixed when the group
// is first seen, so the fraction is computed from raw weights instead:
// comparing share ÷ weight orders queues the same as share ÷ fraction.
func (c *Capacity) queueWeight(q string) float64 {
	if w, ok := c.shares[q]; ok {
		return w
	}
	return c.def
}

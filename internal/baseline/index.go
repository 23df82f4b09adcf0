package baseline

import (
	"math"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// index keeps a baseline's active jobs so that a heartbeat finds the next
// job to serve without scanning the queue: cost per decision is
// O(classes · log jobs), independent of how many jobs wait.
//
// A job's phase whose tasks all ask alike (sim.Job.PhaseRequest) belongs
// to a class: (phase, request vector). Each class holds one slot per
// group (pool or queue; a single slot when not grouped), ordered by
// (group key, key of the slot's first job, its order), and each slot an
// indexed heap of the jobs whose phase has ready tasks, ordered by (job
// key, order). When a class's request does not fit what is left on the
// node, no job of it can take a task there, so the whole class is
// skipped in O(1): a heartbeat serves jobs in exactly the order a scan of
// every job would, skipping only jobs that would take nothing. Jobs with
// a phase whose tasks ask differently are kept in a list and scanned as
// before (misc); a workload of such jobs costs what a scan costs.
//
// Keys are cached in the heaps and brought up to date when they change:
// in the heartbeat that chooses a job's task, and, for jobs whose tasks
// started or ended since (TaskEnded, and the decisions of the last
// heartbeat), at the start of the next heartbeat. Readiness is checked
// lazily: a job found at a heap's top without ready tasks in the phase
// leaves that heap until it has some again.
type index struct {
	// keyOf returns e's key in phase p's heaps (nil: key 0, order only);
	// inRound says whether this heartbeat's choices count (rekey), or
	// none has been made yet (refresh, at the start of a heartbeat).
	keyOf func(e *entry, p int, inRound bool) float64
	// groupKey returns g's key for phase p's classes (nil: ungrouped).
	groupKey func(g *group, p int) float64
	// order is the job order among equal keys.
	order func(a, b *sim.Job) bool
	// rank, if set, is order's primary key: rank(a) < rank(b) implies
	// order(a, b). The heaps compare cached ranks first and call order
	// only on equal ranks.
	rank func(j *sim.Job) int64

	entries  []*entry // by sim.Job.Index; nil when not active
	classes  []*class
	misc     []*entry // jobs with a phase whose tasks ask differently, in order
	dirty    []*entry
	regroup  []*group
	round    uint32
	tmpJobs  []parked
	tmpSlots []*slot
}

// maxClasses bounds the number of classes; jobs of further request
// vectors are scanned (misc), so a workload where every job asks
// differently costs a scan, not a search over thousands of classes.
const maxClasses = 64

type entry struct {
	// The fields a refresh reads come first, then the phases (their
	// lowest, the ones in use, right after): schedkit.MaxPhases is 64,
	// so the entry spans many cache lines and only its head is hot.
	j     *sim.Job
	g     *group
	rank  int64  // index.rank of the job (0 without one)
	seen  uint32 // round in which the job was filled or blocked
	misc  bool
	dirty bool
	// what the job last contributed to g (grouped policies): its
	// allocation, held in allocArr for up to extraInline kinds (entries
	// never move), and its running tasks per phase (phaseEntry.run)
	alloc    resource.Vector
	allocArr [extraInline]float64
	ph       [schedkit.MaxPhases]phaseEntry
}

type phaseEntry struct {
	slot *slot   // nil: phase not indexed (misc job)
	pos  int32   // in slot.jobs; -1 when absent
	run  int32   // running tasks the job last contributed to g.count
	key  float64 // in slot.jobs
}

type class struct {
	phase int
	req   resource.Vector
	slots slotHeap
	of    map[*group]*slot
}

type slot struct {
	cls    *class
	g      *group
	pos    int32 // in cls.slots; -1 when absent
	parked bool  // in tmpSlots until the round ends
	key    float64
	jobs   jobHeap
}

type parked struct {
	e *entry
	p int
}

// group is a pool or queue of a grouped sharer.
type group struct {
	weight, limit float64
	base          resource.Vector // Σ members' allocation, as last refreshed
	count         [schedkit.MaxPhases]int
	// this round's choices: cur = base + requests chosen, extra chosen count
	cur     resource.Vector
	extra   int
	round   uint32
	queued  bool // in index.regroup
	slots   []*slot
	members int
	roundPh int // the phase of the round cur and extra are for
}

func (x *index) entry(j *sim.Job) *entry {
	if i := j.Index(); i < len(x.entries) {
		return x.entries[i]
	}
	return nil
}

// add indexes a newly submitted job (its phases are not ready yet: it is
// refreshed at the next heartbeat).
func (x *index) add(j *sim.Job, g *group, k int) {
	i := j.Index()
	for len(x.entries) <= i {
		x.entries = append(x.entries, nil)
	}
	e := &entry{j: j, g: g}
	if x.rank != nil {
		e.rank = x.rank(j)
	}
	if g != nil {
		if k <= extraInline {
			e.alloc = e.allocArr[:k:k]
		} else {
			e.alloc = make(resource.Vector, k)
		}
		g.members++
	}
	for p := 0; p < j.Phases(); p++ {
		e.ph[p].pos = -1
		req, ok := j.PhaseRequest(schedkit.Phase(p))
		if !ok {
			e.misc = true
			break
		}
		cls := x.classFor(p, req)
		if cls == nil {
			e.misc = true
			break
		}
		e.ph[p].slot = cls.slotFor(g, x)
	}
	if e.misc {
		for p := range e.ph {
			e.ph[p].slot = nil
		}
		x.insertMisc(e)
	}
	x.entries[i] = e
	x.markDirty(e)
}

func (x *index) insertMisc(e *entry) {
	i := len(x.misc)
	for i > 0 && x.order(e.j, x.misc[i-1].j) {
		i--
	}
	x.misc = append(x.misc, nil)
	copy(x.misc[i+1:], x.misc[i:])
	x.misc[i] = e
}

func (x *index) classFor(p int, req resource.Vector) *class {
	for _, c := range x.classes {
		if c.phase == p && c.req.Equal(req) {
			return c
		}
	}
	if len(x.classes) >= maxClasses {
		return nil
	}
	c := &class{phase: p, req: append(resource.Vector(nil), req...), of: map[*group]*slot{}}
	c.slots = newSlotHeap(x.order)
	x.classes = append(x.classes, c)
	return c
}

func (c *class) slotFor(g *group, x *index) *slot {
	if s := c.of[g]; s != nil {
		return s
	}
	p := c.phase
	s := &slot{cls: c, g: g, pos: -1}
	s.jobs = newJobHeap(p, x.order, x.keyOf != nil)
	c.of[g] = s
	if g != nil {
		g.slots = append(g.slots, s)
	}
	return s
}

func (x *index) markDirty(e *entry) {
	if !e.dirty {
		e.dirty = true
		x.dirty = append(x.dirty, e)
	}
}

// remove drops an ended job.
func (x *index) remove(j *sim.Job) {
	e := x.entry(j)
	if e == nil {
		return
	}
	for p := range e.ph {
		if s := e.ph[p].slot; s != nil && e.ph[p].pos >= 0 {
			s.jobs.Remove(e)
			x.fixSlot(s)
		}
	}
	if e.misc {
		for i, m := range x.misc {
			if m == e {
				x.misc = append(x.misc[:i], x.misc[i+1:]...)
				break
			}
		}
	}
	if g := e.g; g != nil {
		_ = g.base.Sub(e.alloc)
		for p := range e.ph {
			g.count[p] -= int(e.ph[p].run)
		}
		g.members--
		x.queueGroup(g)
	}
	x.entries[j.Index()] = nil
	e.j = nil
}

// fixSlot restores s's place in its class after its first job or key
// changed, entering or leaving the class as it gains or loses jobs.
func (x *index) fixSlot(s *slot) {
	switch {
	case s.parked:
	case s.jobs.Len() == 0:
		s.cls.slots.Remove(s)
	case s.pos < 0:
		s.cls.slots.Push(s)
	default:
		s.cls.slots.Fix(s)
	}
}

// queueGroup marks g's base changed: its in-round values are stale and
// its slots' keys are recomputed by the next refresh.
func (x *index) queueGroup(g *group) {
	g.round = 0
	if !g.queued {
		g.queued = true
		x.regroup = append(x.regroup, g)
	}
}

// refreshAll marks every job and group for refresh (the cluster's
// capacity changed, so every share did).
func (x *index) refreshAll() {
	for _, e := range x.entries {
		if e != nil {
			x.markDirty(e)
			if e.g != nil {
				x.queueGroup(e.g)
			}
		}
	}
}

// refresh brings dirty jobs' keys, readiness and group contributions up
// to date, then the keys of the groups that changed. Called at the start
// of a heartbeat, after batch.begin.
func (x *index) refresh() {
	for i, e := range x.dirty {
		x.dirty[i] = nil
		e.dirty = false
		if e.j == nil {
			continue
		}
		j := e.j
		if g := e.g; g != nil {
			a := j.Allocated()
			_ = g.base.Sub(e.alloc)
			copy(e.alloc, a)
			_ = g.base.Add(a)
			for p := 0; p < j.Phases(); p++ {
				r := j.Progress(schedkit.Phase(p)).Running
				g.count[p] += r - int(e.ph[p].run)
				e.ph[p].run = int32(r)
			}
			x.queueGroup(g)
		}
		if e.misc {
			continue
		}
		for p := 0; p < j.Phases(); p++ {
			pe := &e.ph[p]
			changed := false
			if x.keyOf != nil {
				k := x.keyOf(e, p, false)
				changed, pe.key = k != pe.key, k
			}
			s := pe.slot
			if pe.pos >= 0 {
				if !changed {
					continue // in place already: Fix would move nothing
				}
				s.jobs.Fix(e)
			} else if j.Progress(schedkit.Phase(p)).Ready > 0 {
				s.jobs.Push(e)
			} else {
				continue
			}
			x.fixSlot(s)
		}
	}
	x.dirty = x.dirty[:0]
	x.regroupAll()
}

// regroupAll recomputes the keys of queued groups' slots.
func (x *index) regroupAll() {
	for i, g := range x.regroup {
		x.regroup[i] = nil
		g.queued = false
		x.rekeyGroup(g)
	}
	x.regroup = x.regroup[:0]
}

func (x *index) rekeyGroup(g *group) {
	for _, s := range g.slots {
		s.key = x.groupKey(g, s.cls.phase)
		x.fixSlot(s)
	}
}

// beginRound starts a round of choices (a heartbeat of an ordered policy,
// a phase's progressive filling of a sharer).
func (x *index) beginRound() { x.round++ }

// endRound puts back what the round set aside.
func (x *index) endRound() {
	for i, pk := range x.tmpJobs {
		x.tmpJobs[i] = parked{}
		e := pk.e
		if e.j == nil || e.ph[pk.p].pos >= 0 {
			continue
		}
		s := e.ph[pk.p].slot
		s.jobs.Push(e)
		x.fixSlot(s)
	}
	x.tmpJobs = x.tmpJobs[:0]
	for i, s := range x.tmpSlots {
		x.tmpSlots[i] = nil
		s.parked = false
		x.fixSlot(s)
	}
	x.tmpSlots = x.tmpSlots[:0]
}

// top returns the first job of class c that may take a task in phase
// c.phase this round, and its group key; nil if none. eligible reports
// whether a job may; a job that may not is set aside for the round, or
// dropped from the heap for good when it has no ready task in the phase.
func (x *index) top(c *class, b *batch) (*entry, float64) {
	p := c.phase
	for c.slots.Len() > 0 {
		s := c.slots.Top()
		if s.g != nil && s.key >= s.g.limit {
			c.slots.Remove(s)
			s.parked = true
			x.tmpSlots = append(x.tmpSlots, s)
			continue
		}
		e := s.jobs.Top()
		ready := e.j.Progress(schedkit.Phase(p)).Ready
		switch {
		case ready == 0:
			s.jobs.Remove(e)
		case e.seen == x.round || ready <= int(b.state(e.j).chosen[p]):
			s.jobs.Remove(e)
			x.tmpJobs = append(x.tmpJobs, parked{e, p})
		default:
			return e, s.key
		}
		x.fixSlot(s)
	}
	return nil, 0
}

// rekey updates e's key in phase p's heap after a choice.
func (x *index) rekey(e *entry, p int) {
	pe := &e.ph[p]
	if pe.slot == nil {
		return
	}
	k := x.keyOf(e, p, true)
	if k == pe.key {
		return // in place already: Fix would move nothing
	}
	pe.key = k
	if pe.pos >= 0 {
		pe.slot.jobs.Fix(e)
		x.fixSlot(pe.slot)
	}
}

func newGroup(k int, weight, limit float64) *group {
	if math.IsNaN(limit) {
		limit = math.Inf(1)
	}
	return &group{base: make(resource.Vector, k), cur: make(resource.Vector, k), weight: weight, limit: limit}
}

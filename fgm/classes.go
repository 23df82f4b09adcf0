package fgm

// Demand classes, an acceleration of Algorithm 1's walk: the pending
// entries are indexed by class (their signature: similarity key and
// request), each class with a lower bound of what every test of its
// tasks asks of a server now, so that a server's room selects the
// classes that may fit. When none may, the walk stops (or is not made):
// every remaining task would be refused, as it is when the room is a
// fragment (1 core left when every task wants 3) or only the
// compression allowance; a job none of whose classes may fit is passed
// by. The walk's cost then follows what it places, not the queue.
//
// Passing tasks by must change nothing but the cost: the visits it saves
// would start delay-scheduling waits (data locations), so the waits of
// the tasks with data locations not yet waiting are started as the walk
// would have started them.

import (
	"math"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// classes is the stage. It holds when tasks alike are predicted alike
// (estimation.alike) and the Space has at most four kinds (a class's
// signature holds four request amounts).
type classes struct {
	noStage
	s     *Scheduler
	keyed bool // predictions from a History: the key is part of a class
	bySig map[classSig]*class
	// byKey and byID hold the classes of each key, found by the key or
	// by any number it was given (ptask.keyID: keyTable renumbers keys
	// now and then, so one key may have several).
	byKey map[schedkit.SimilarityKey]*keyClasses
	byID  map[uint64]*keyClasses
	list  []*class
	jobs  slotTable[jobClasses]
	// freshJobs lists the jobs whose fresh list may hold a task with
	// data locations not yet waiting (compacted at each call's start).
	freshJobs []*jobEntry
	// groups holds the classes by the kinds their bound is zero in (a
	// kind a task does not demand never refuses it), with a lower bound
	// of each other kind's least bound; raised to the least again after
	// updates outnumber the classes (regroup).
	groups  [1 << 4]classGroup
	updates int
	// hist is the History version the bounds were computed at, but for
	// the keys in learnt, learned since; stale: every bound must be
	// computed again (the History changed elsewhere).
	hist   uint64
	stale  bool
	learnt []*keyClasses
	room   []float64
	// stops counts the calls and walks stopped, passes the jobs passed
	// by.
	stops, passes uint64
}

// classSig is a class's signature: the key's number (ptask.keyID; 0
// without a History) and the request's bits.
type classSig struct {
	key uint64
	req [4]uint64
}

// class is the pending entries of one signature.
type class struct {
	sig  classSig
	key  schedkit.SimilarityKey
	req  resource.Vector
	n    int       // pending entries
	lb   []float64 // lower bound of every test's demand of a kind now
	zero int       // kinds whose bound is 0 (bit k)
	pos  int       // in classes.list
}

// keyClasses is the classes of one key, and the numbers it was given;
// learned: the History learned the key since the classes' bounds were
// computed (it is in classes.learnt).
type keyClasses struct {
	key     schedkit.SimilarityKey
	ids     []uint64
	classes []*class
	learned bool
}

// classGroup is the classes whose bounds are zero in the same kinds.
type classGroup struct {
	n   int
	min [4]float64 // per kind, at most the least bound of the group's classes
}

// jobClasses is a job's entries by class, and its tasks with data
// locations that may not be waiting yet.
type jobClasses struct {
	counts []classCount
	fresh  []*ptask
	listed bool // in freshJobs
}

type classCount struct {
	c *class
	n int
}

func newClasses(s *Scheduler) stage {
	if !s.est.alike || s.dims > 4 {
		return noStage{}
	}
	return &classes{s: s, keyed: s.est.hist != nil, bySig: map[classSig]*class{},
		byKey: map[schedkit.SimilarityKey]*keyClasses{}, byID: map[uint64]*keyClasses{}, room: make([]float64, s.dims)}
}

func (c *classes) hooks() hookSet { return onQueue | onBegin | onJob | onPlaced }

func (c *classes) counts(add func(string, uint64)) {
	add("classStops", c.stops)
	add("classJobs", c.passes)
}

func (c *classes) sig(p *ptask) classSig {
	var g classSig
	if c.keyed {
		g.key = p.keyID
	}
	for k, x := range p.requested {
		g.req[k] = math.Float64bits(x)
	}
	return g
}

func resetJobClasses(jc *jobClasses) {
	clear(jc.counts)
	clear(jc.fresh)
	*jc = jobClasses{counts: jc.counts[:0], fresh: jc.fresh[:0]}
}

// counted keeps the classes' and j's counts, and j's fresh tasks.
func (c *classes) counted(j *jobEntry, p *ptask, d int) {
	g := c.sig(p)
	cl := c.bySig[g]
	jc := c.jobs.of(j, resetJobClasses)
	if d > 0 {
		if cl == nil {
			cl = c.add(g, p)
		}
		cl.n++
		c.countIn(jc, cl)
		if len(p.locs) > 0 && !p.waiting && c.s.cfg.LocalityWait >= 0 {
			c.addFresh(j, jc, p)
		}
		return
	}
	if cl == nil {
		return
	}
	for i := range jc.counts {
		if jc.counts[i].c == cl {
			if jc.counts[i].n--; jc.counts[i].n == 0 {
				last := len(jc.counts) - 1
				jc.counts[i] = jc.counts[last]
				jc.counts[last] = classCount{}
				jc.counts = jc.counts[:last]
			}
			break
		}
	}
	if cl.n--; cl.n == 0 {
		c.remove(cl)
	}
}

func (c *classes) countIn(jc *jobClasses, cl *class) {
	for i := range jc.counts {
		if jc.counts[i].c == cl {
			jc.counts[i].n++
			return
		}
	}
	jc.counts = append(jc.counts, classCount{c: cl, n: 1})
}

func (c *classes) addFresh(j *jobEntry, jc *jobClasses, p *ptask) {
	for _, q := range jc.fresh {
		if q == p {
			return
		}
	}
	jc.fresh = append(jc.fresh, p)
	if !jc.listed {
		jc.listed = true
		c.freshJobs = append(c.freshJobs, j)
	}
}

// add makes the class of signature g, p its first entry.
func (c *classes) add(g classSig, p *ptask) *class {
	cl := &class{sig: g, key: p.key, req: p.requested.Clone(), lb: make([]float64, c.s.dims), pos: len(c.list)}
	c.list = append(c.list, cl)
	c.bySig[g] = cl
	if c.keyed {
		kc := c.byID[p.keyID]
		if kc == nil {
			if kc = c.byKey[p.key]; kc == nil {
				kc = &keyClasses{key: p.key}
				c.byKey[p.key] = kc
			}
			kc.ids = append(kc.ids, p.keyID)
			c.byID[p.keyID] = kc
		}
		kc.classes = append(kc.classes, cl)
	}
	c.bound(cl)
	c.join(cl)
	return cl
}

// remove forgets an empty class.
func (c *classes) remove(cl *class) {
	c.groups[cl.zero].n--
	last := c.list[len(c.list)-1]
	c.list[cl.pos], last.pos = last, cl.pos
	c.list[len(c.list)-1] = nil
	c.list = c.list[:len(c.list)-1]
	delete(c.bySig, cl.sig)
	if c.keyed {
		kc := c.byKey[cl.key]
		for i, x := range kc.classes {
			if x == cl {
				last := len(kc.classes) - 1
				kc.classes[i], kc.classes[last] = kc.classes[last], nil
				kc.classes = kc.classes[:last]
				break
			}
		}
		if len(kc.classes) == 0 {
			delete(c.byKey, cl.key)
			for _, id := range kc.ids {
				delete(c.byID, id)
			}
		}
	}
}

// bound sets cl's lower bound: the request, and with a valid
// prediction the least of it, the first stage's demand and the first
// stage of positive length's (integral kinds at the request, as
// wholeUnits makes them). Every test of a task of the class holds one
// of those against the server now (the request when unpredictable or
// unusable; Algorithm 2 the first stage of positive length at now, the
// coarse-grained match the peak; the measured idle amount and the host's
// free amounts the first stage), so a task whose bound exceeds the room
// in some kind is refused. A prediction the walk would refuse as invalid
// gets the bound 0: the walk must meet its error.
func (c *classes) bound(cl *class) {
	s := c.s
	copy(cl.lb, cl.req)
	if c.keyed {
		if prof, ok := s.est.hist.Predict(cl.key); ok {
			// Profiles a History makes are valid but for their number of
			// stages, which may exceed MaxStages.
			if len(prof.Stages) == 0 || len(prof.Stages) > s.cfg.MaxStages {
				clear(cl.lb)
			} else {
				first := prof.Stages[0]
				for _, st := range prof.Stages {
					if st.Duration > 0 {
						first = st
						break
					}
				}
				for k := range cl.lb {
					if !s.isIntegral[k] {
						cl.lb[k] = min(cl.lb[k], prof.Stages[0].Demand[k], first.Demand[k])
					}
				}
			}
		}
	}
	cl.zero = 0
	for k, x := range cl.lb {
		if x <= 0 {
			cl.zero |= 1 << k
		}
	}
}

// join counts cl in its group, lowering the group's bounds to cl's.
func (c *classes) join(cl *class) {
	c.groups[cl.zero].add(cl.lb)
	if c.updates++; c.updates > 2*len(c.list)+16 {
		c.regroup()
	}
}

// regroup sets every group's bounds to the least of its classes'.
func (c *classes) regroup() {
	c.updates = 0
	for i := range c.groups {
		c.groups[i] = classGroup{}
	}
	for _, cl := range c.list {
		c.groups[cl.zero].add(cl.lb)
	}
}

// add counts a class of bound lb in g, lowering g's bounds to it.
func (g *classGroup) add(lb []float64) {
	if g.n == 0 {
		for k := range g.min {
			g.min[k] = math.Inf(1)
		}
	}
	g.n++
	for k, x := range lb {
		g.min[k] = min(g.min[k], x)
	}
}

// rebound computes again the bounds learned keys changed, or every
// bound if the History changed elsewhere.
func (c *classes) rebound() {
	if c.stale || c.hist != c.s.est.hist.Version() {
		for _, cl := range c.list {
			c.bound(cl)
		}
		c.regroup()
		c.stale, c.hist = false, c.s.est.hist.Version()
	} else {
		for _, kc := range c.learnt {
			for _, cl := range kc.classes {
				c.groups[cl.zero].n--
				c.bound(cl)
				c.join(cl)
			}
		}
	}
	for _, kc := range c.learnt {
		kc.learned = false
	}
	clear(c.learnt)
	c.learnt = c.learnt[:0]
}

// keyOf returns the classes of p's key, nil if none: found by p's key
// number, else by its key.
func (c *classes) keyOf(p *ptask) *keyClasses {
	if kc := c.byID[p.keyID]; kc != nil {
		return kc
	}
	return c.byKey[p.key]
}

// learned records that the bounds of the classes of p's key must be
// computed again (of every class if the History changed elsewhere since
// they were computed), at the next call's begin: a key several of whose
// tasks end between two calls is computed once. A key the History
// evicted to make room needs nothing: its tasks become unpredictable,
// tested at their request, and a bound is never above the request.
func (c *classes) learned(p *ptask, before uint64) {
	if !c.keyed {
		return
	}
	if before != c.hist {
		c.stale = true
	} else if kc := c.keyOf(p); kc != nil && !kc.learned {
		kc.learned = true
		c.learnt = append(c.learnt, kc)
	}
	c.hist = c.s.est.hist.Version()
}

// begin brings the bounds and the fresh tasks up to date, and stops the
// call if no class may fit the server's room.
func (c *classes) begin(w *walk) bool {
	if c.keyed {
		c.rebound()
	}
	c.compactFresh()
	return c.fitsAny(w)
}

func (c *classes) placed(w *walk) bool { return c.fitsAny(w) }

// fitsAny reports whether some class may fit w's server now; if none
// may, it starts the waits the rest of the walk would have started.
func (c *classes) fitsAny(w *walk) bool {
	c.roomOf(w)
	for m := range c.groups {
		g := &c.groups[m]
		if g.n == 0 {
			continue
		}
		fits := true
		for k, r := range c.room {
			if m&(1<<k) == 0 && g.min[k] > r {
				fits = false
				break
			}
		}
		if fits {
			return true
		}
	}
	for _, j := range c.freshJobs {
		if jc := c.jobs.held(j); jc != nil {
			c.startWaits(w, jc)
		}
	}
	c.stops++
	return false
}

// passJob passes j by if none of its classes may fit.
func (c *classes) passJob(w *walk, j *jobEntry) bool {
	jc := c.jobs.held(j)
	if jc == nil {
		return false
	}
	for _, cc := range jc.counts {
		if c.fits(cc.c) {
			return false
		}
	}
	c.startWaits(w, jc)
	c.passes++
	return true
}

// fits reports whether cl's bound fits the room in every kind.
func (c *classes) fits(cl *class) bool {
	for k, x := range cl.lb {
		if x > 0 && x > c.room[k] {
			return false
		}
	}
	return true
}

// roomOf sets room to the most any task may ask of each kind of w's
// server now and pass every test: the free amount now, plus the
// compression allowance limit × N of a compressible kind when the policy
// compresses; for an incompressible kind at most the measured idle
// amount and, with HostChecksSteps, what the host reports free. Twice
// the fit's slack is added, so that rounding in the tests' sums cannot
// make the room smaller than what they let through.
func (c *classes) roomOf(w *walk) {
	s, v := c.s, w.v
	free := v.free.At(w.now)
	compress := v.policy == FineGrainedCompress && !s.cfg.Ablations.CoarseOnly && s.cfg.CompressionLimit > 0
	for k := range c.room {
		n := v.capacity[k]
		r := free[k] + 2*slack*n
		switch {
		case s.comp[k]:
			if compress {
				r += s.cfg.CompressionLimit * n
			}
		default:
			if v.measured {
				r = min(r, n-v.lastUsed[k]-v.placed[k]+2*slack*n)
			}
			if s.cfg.HostChecksSteps {
				r = min(r, s.scr.hostFree[k]+2*slack*n)
			}
		}
		c.room[k] = r
	}
}

// startWaits starts the delay-scheduling waits of jc's fresh tasks on
// w's server, as the walk's visits would (a task visited already, or
// local to the server, is left as it is).
func (c *classes) startWaits(w *walk, jc *jobClasses) {
	for _, p := range jc.fresh {
		if c.pending(p) && !p.waiting {
			c.s.local(p, w.v, w.now)
		}
	}
}

// pending reports whether task p is still pending.
func (c *classes) pending(p *ptask) bool { return !p.running && c.s.tasks[p.id] == p }

// compactFresh drops from the fresh lists the tasks no longer pending
// or waiting (between calls: a call's rollback may end a wait).
func (c *classes) compactFresh() {
	n := 0
	for _, j := range c.freshJobs {
		jc := c.jobs.held(j)
		if jc == nil {
			continue
		}
		k := 0
		for _, p := range jc.fresh {
			if c.pending(p) && !p.waiting {
				jc.fresh[k] = p
				k++
			}
		}
		clear(jc.fresh[k:])
		jc.fresh = jc.fresh[:k]
		if k == 0 {
			jc.listed = false
			continue
		}
		c.freshJobs[n] = j
		n++
	}
	clear(c.freshJobs[n:])
	c.freshJobs = c.freshJobs[:n]
}

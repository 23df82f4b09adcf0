package fgm

import (
	"cmp"
	"time"
)

// Job sets, an acceleration of Algorithm 1's walk: the active jobs in
// compareJobs order, one ordered set per combination of integral kinds
// requested (Scheduler.needs): a job is in set m while one of its queue
// entries requests exactly the kinds m. A Schedule call on a server with
// closed kinds (Scheduler.closedKinds) walks the union of the sets whose
// kinds are all open, in order, by merging them: every job it visits has
// a task that can have a slot, and the jobs it leaves out would have
// been refused outright. Each set is a treap (a binary search tree
// balanced by priorities drawn from a counter), so a job whose state
// changed is moved in O(log n) rather than by a pass over the queue, and
// only in the sets a walk visits (fixSets).

// jobSets is the stage.
type jobSets struct {
	noStage
	s *Scheduler
	// sets holds, per combination of integral kinds, the active jobs
	// with a queue entry requesting exactly those, in compareJobs order;
	// staleIn[m] the jobs whose place in set m is stale; jobs each job's
	// nodes and stale sets.
	sets    [1 << maxNeedKinds]jobSet
	staleIn [1 << maxNeedKinds][]*jobEntry
	jobs    slotTable[setsOfJob]
	all     bool // every share changed: rebuild the sets
	// drfKey: DRF, and every job's Submitted orders as its offset from
	// the epoch (jobEntry.sub) does: the sets compare keys cached in
	// their nodes (tnode). Cleared when a job's Submitted and the epoch
	// differ in having a monotonic reading.
	drfKey  bool
	prioSeq uint64
	walk    setWalk
	walks   uint64 // walks over the merged sets
}

// setsOfJob is a job's part in the sets: its nodes, and the sets (bit
// m: set m) where its place is stale (it is then in staleIn[m]).
type setsOfJob struct {
	nodes []*tnode
	stale uint64
}

// newJobSets returns the stage, or none without 1 to maxNeedKinds
// integral kinds (Scheduler.needs counts the combinations of those).
func newJobSets(s *Scheduler) stage {
	if len(s.integral) == 0 || len(s.integral) > maxNeedKinds {
		return noStage{}
	}
	js := &jobSets{s: s, drfKey: s.drf}
	js.walk.js = js
	return js
}

func (js *jobSets) hooks() hookSet { return onQueue | onOrder }

func (js *jobSets) counts(add func(string, uint64)) { add("setWalks", js.walks) }

func (js *jobSets) jobAdded(j *jobEntry) {
	if hasMonotonic(j.state.Submitted) != hasMonotonic(js.s.clock.Epoch()) {
		// time.Time.Before compares monotonic clock readings when both
		// times have one, the offsets came from the wall clock: the
		// orders may differ. The jobs so far (same kind of reading as
		// the epoch) order alike both ways.
		js.drfKey = false
	}
}

// jobDropped takes a dropped job's nodes out of their sets (no
// comparisons: its key may be stale), before its slot is reused.
func (js *jobSets) jobDropped(j *jobEntry) {
	st := js.jobs.held(j)
	if st == nil {
		return
	}
	for _, x := range st.nodes {
		if x.in {
			js.sets[x.mask].remove(x)
		}
	}
	clear(st.nodes)
	st.nodes = st.nodes[:0]
}

func (js *jobSets) jobMoved(j *jobEntry) { js.staleJob(j) }

func (js *jobSets) reshared() { js.all = true }

// order is the merged sets when kinds are closed on the call's server
// (not under Progressive, which orders again after every placement);
// else nil, after fixing the sets whose backlog outgrew the jobs.
func (js *jobSets) order(w *walk) jobSource {
	s := js.s
	closed := s.closedKinds(w.v, w.v.free.At(w.now))
	if closed == 0 || s.cfg.Progressive {
		js.fixSets(0)
		return nil
	}
	js.fixSets(js.openSets(closed))
	js.walk.start(closed)
	js.walks++
	return &js.walk
}

// hasMonotonic reports whether t carries a monotonic clock reading
// (Round(0) strips it).
func hasMonotonic(t time.Time) bool { return t != t.Round(0) }

// tnode is a job's node in the set of its combination mask, 64 bytes
// (one cache line). With DRF it carries the job's key as of its last
// placing in the set (Share, and Submitted as an offset from the epoch,
// see jobSets.drfKey): the tree's comparisons then read the nodes only,
// not the jobs. The key is current while the job is not stale in the
// node's set (setsOfJob.stale: every change of what Fairness reads goes
// through moveJob).
type tnode struct {
	left, right, parent *tnode
	share               float64
	sub                 time.Duration
	j                   *jobEntry
	prio                uint64
	mask                int32
	in                  bool // in its set
}

// setKey records x's job's current key in x.
func (js *jobSets) setKey(x *tnode) {
	x.share, x.sub = x.j.state.Share, x.j.sub
}

// compareNodes is compareJobs on the jobs of a and b, read from the
// keys cached in the nodes when they stand for DRF's (drfKey).
func (js *jobSets) compareNodes(a, b *tnode) int {
	if !js.drfKey {
		return js.s.compareJobs(a.j, b.j)
	}
	switch {
	case a.share != b.share:
		// DRF.Less (drfLess) on the share, both ways: a NaN share is
		// neither less nor greater (then the IDs decide).
		if a.share < b.share {
			return -1
		}
		if b.share < a.share {
			return 1
		}
	case a.sub < b.sub:
		return -1
	case b.sub < a.sub:
		return 1
	}
	return cmp.Compare(a.j.state.ID, b.j.state.ID)
}

// jobSet is a treap of jobs in compareJobs order.
type jobSet struct {
	root *tnode
	n    int
}

// treePrio returns the priority of the next node: splitmix64 of a
// counter, so runs are reproducible.
func (js *jobSets) treePrio() uint64 {
	js.prioSeq += 0x9e3779b97f4a7c15
	z := js.prioSeq
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// insert adds x by compareJobs on the jobs' current states.
func (js *jobSets) insert(t *jobSet, x *tnode) {
	x.left, x.right, x.parent = nil, nil, nil
	x.in = true
	js.setKey(x)
	t.n++
	if t.root == nil {
		t.root = x
		return
	}
	p := t.root
	for {
		if js.compareNodes(x, p) < 0 {
			if p.left == nil {
				p.left = x
				break
			}
			p = p.left
		} else {
			if p.right == nil {
				p.right = x
				break
			}
			p = p.right
		}
	}
	x.parent = p
	for x.parent != nil && x.parent.prio < x.prio {
		t.rotateUp(x)
	}
}

// remove takes x out without comparing keys (they may be stale): it is
// rotated down to a leaf by priorities, then cut off.
func (t *jobSet) remove(x *tnode) {
	for x.left != nil || x.right != nil {
		c := x.left
		if c == nil || (x.right != nil && x.right.prio > c.prio) {
			c = x.right
		}
		t.rotateUp(c)
	}
	switch p := x.parent; {
	case p == nil:
		t.root = nil
	case p.left == x:
		p.left = nil
	default:
		p.right = nil
	}
	x.parent = nil
	x.in = false
	t.n--
}

// rotateUp makes x its parent's parent, keeping the in-order sequence.
func (t *jobSet) rotateUp(x *tnode) {
	p := x.parent
	g := p.parent
	if p.left == x {
		p.left = x.right
		if x.right != nil {
			x.right.parent = p
		}
		x.right = p
	} else {
		p.right = x.left
		if x.left != nil {
			x.left.parent = p
		}
		x.left = p
	}
	p.parent = x
	x.parent = g
	switch {
	case g == nil:
		t.root = x
	case g.left == p:
		g.left = x
	default:
		g.right = x
	}
}

// first returns the least node, nil if empty.
func (t *jobSet) first() *tnode {
	x := t.root
	if x == nil {
		return nil
	}
	for x.left != nil {
		x = x.left
	}
	return x
}

// prev returns the node before x in order, nil at the start.
func (x *tnode) prev() *tnode {
	if x.left != nil {
		x = x.left
		for x.right != nil {
			x = x.right
		}
		return x
	}
	for x.parent != nil && x.parent.left == x {
		x = x.parent
	}
	return x.parent
}

// next returns the node after x in order, nil at the end.
func (x *tnode) next() *tnode {
	if x.right != nil {
		x = x.right
		for x.left != nil {
			x = x.left
		}
		return x
	}
	for x.parent != nil && x.parent.right == x {
		x = x.parent
	}
	return x.parent
}

// fixSets brings the sets in open (bit m: set m) up to date with the
// jobs whose state or queue changed since they were last fixed there
// (staleIn[m]). The other sets are left stale: a Schedule call walks
// only the sets of the combinations that request no closed kind (in a
// Hadoop day nearly always those of the maps), so a job that moves
// several times between walks of a set is put in its place there once.
// A set whose backlog outgrows the jobs held is fixed anyway (it keeps
// dropped jobs).
//
// In a set, a moved job's node that stays is left in place when its new
// key still falls between its neighbours' (the in-order sequence is
// then already right); the others are taken out (no comparisons: the
// key may have changed) and put back by the job's current state. A
// neighbour is trusted when its key in that set is current: its job is
// not stale there, or was already dealt with in this call (its node
// kept or taken out). The trusted nodes are in order, so a node whose
// trusted neighbours bracket its new key is in order too; a node next
// to an untrusted one is taken out. The set's order is unique
// (compareJobs), so it is the one of taking every moved node out and
// inserting it again.
func (js *jobSets) fixSets(open uint64) {
	if js.all {
		// Every share changed (membership of the cluster): every job
		// is stale everywhere.
		js.all = false
		for _, j := range js.s.jobs {
			js.staleJob(j)
		}
	}
	for m := range 1 << len(js.s.integral) {
		bit := uint64(1) << m
		list := js.staleIn[m]
		if len(list) == 0 || (open&bit == 0 && len(list) <= len(js.s.jobs)) {
			continue
		}
		set := &js.sets[m]
		for _, j := range list {
			st := js.jobs.held(j)
			if st == nil {
				continue // dropped since (jobDropped took its nodes out)
			}
			if x := st.node(m); x != nil && x.in &&
				!(j.activePos >= 0 && j.needs[m] > 0 && js.inPlace(x, bit)) {
				set.remove(x)
			}
			st.stale &^= bit
		}
		for _, j := range list {
			st := js.jobs.held(j)
			if st == nil {
				continue
			}
			if j.needs[m] > 0 && j.activePos >= 0 {
				x := st.node(m)
				if x == nil {
					x = &tnode{j: j, mask: int32(m), prio: js.treePrio()}
					st.nodes = append(st.nodes, x)
				}
				if !x.in {
					js.insert(set, x)
				}
			}
			if st.stale == 0 {
				// Fixed everywhere: its nodes out of every set go.
				n := 0
				for _, x := range st.nodes {
					if x.in {
						st.nodes[n] = x
						n++
					}
				}
				clear(st.nodes[n:])
				st.nodes = st.nodes[:n]
			}
		}
		clear(list)
		js.staleIn[m] = list[:0]
	}
}

// allSets returns the mask of every set.
func (js *jobSets) allSets() uint64 {
	return ^uint64(0) >> (64 - (1 << len(js.s.integral)))
}

// openSets returns the mask of the sets of the combinations that request
// none of the closed kinds (those a walk visits).
func (js *jobSets) openSets(closed int) uint64 {
	var open uint64
	for m := range 1 << len(js.s.integral) {
		if m&closed == 0 {
			open |= 1 << m
		}
	}
	return open
}

// staleJob marks j's place in every set stale.
func (js *jobSets) staleJob(j *jobEntry) {
	all := js.allSets()
	st := js.jobs.of(j, resetSetsOfJob)
	if st.stale == all {
		return
	}
	for m := range 1 << len(js.s.integral) {
		if st.stale&(1<<m) == 0 {
			js.staleIn[m] = append(js.staleIn[m], j)
		}
	}
	st.stale = all
}

func resetSetsOfJob(st *setsOfJob) {
	clear(st.nodes)
	*st = setsOfJob{nodes: st.nodes[:0]}
}

// node returns the job's node for set m, nil if none.
func (st *setsOfJob) node(m int) *tnode {
	for _, x := range st.nodes {
		if int(x.mask) == m {
			return x
		}
	}
	return nil
}

// inPlace records x's job's current key in x and reports whether x's
// neighbours in its set (bit: the set) are trusted (see fixSets) and
// bracket it.
func (js *jobSets) inPlace(x *tnode, bit uint64) bool {
	js.setKey(x)
	if p := x.prev(); p != nil && (js.staleBit(p.j)&bit != 0 || js.compareNodes(p, x) >= 0) {
		return false
	}
	if n := x.next(); n != nil && (js.staleBit(n.j)&bit != 0 || js.compareNodes(x, n) >= 0) {
		return false
	}
	return true
}

// staleBit returns the sets where j's place is stale.
func (js *jobSets) staleBit(j *jobEntry) uint64 {
	if st := js.jobs.held(j); st != nil {
		return st.stale
	}
	return 0
}

// setWalk merges, in compareJobs order, the sets of the combinations
// that request none of the closed kinds; a job in several appears once.
// It is the call's job order (a jobSource) on a server with closed
// kinds.
type setWalk struct {
	js  *jobSets
	cur []*tnode
}

// start positions w at the least job of the open sets.
func (w *setWalk) start(closed int) {
	js := w.js
	w.cur = w.cur[:0]
	for m := range 1 << len(js.s.integral) {
		if m&closed == 0 {
			if x := js.sets[m].first(); x != nil {
				w.cur = append(w.cur, x)
			}
		}
	}
}

// next returns the next job, nil at the end.
func (w *setWalk) next() *jobEntry {
	var best *tnode
	for _, x := range w.cur {
		if x != nil && (best == nil || (x.j != best.j && w.js.compareNodes(x, best) < 0)) {
			best = x
		}
	}
	if best == nil {
		return nil
	}
	j := best.j
	for i, x := range w.cur {
		if x != nil && x.j == j {
			w.cur[i] = x.next()
		}
	}
	return j
}

// resort is never asked: the sets are not walked under Progressive.
func (w *setWalk) resort() {}

// complete is false: the jobs that need a closed kind are left out.
func (w *setWalk) complete() bool { return false }

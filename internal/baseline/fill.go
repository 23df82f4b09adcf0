package baseline

import (
	"math"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// batch is the per-heartbeat bookkeeping every baseline shares: the
// node's free capacity as the policy's own choices use it up, and, per
// job, how many tasks of each phase it has chosen and what they request.
// Decisions are applied only after Heartbeat returns, so a policy
// placing several tasks must count its own choices; batch does, without
// allocating once its buffers have grown.
type batch struct {
	node  *sim.Node
	avail resource.Vector
	buf   []*sim.Task
	jobs  []jobBatch // indexed by sim.Job.Index
	gen   uint32
}

type jobBatch struct {
	gen         uint32
	blockedMask uint64          // bit p: phase p blocked this heartbeat; bit 63: all
	extra       resource.Vector // requests chosen in this batch
	// extraArr holds extra for up to extraInline kinds, in the state
	// itself (one cache line fewer per job looked at); batch.state
	// re-points extra at it whenever the states move.
	extraArr [extraInline]float64
	// chosen comes last: schedkit.MaxPhases is 64, and only its head
	// (the phases in use) is read, next to the fields above.
	chosen [schedkit.MaxPhases]int32
}

const extraInline = 4

// begin starts a heartbeat of n. It reports false when the node has
// nothing free at all.
func (b *batch) begin(n *sim.Node) bool {
	b.node = n
	b.avail = append(b.avail[:0], n.Available()...)
	b.gen++
	for _, x := range b.avail {
		if x > epsilon {
			return true
		}
	}
	return false
}

const epsilon = 1e-9

// state returns j's bookkeeping for this heartbeat.
func (b *batch) state(j *sim.Job) *jobBatch {
	i := j.Index()
	if i >= len(b.jobs) {
		b.grow(i + 1)
	}
	s := &b.jobs[i]
	if s.gen != b.gen {
		s.gen, s.blockedMask = b.gen, 0
		for p := 0; p < j.Phases(); p++ {
			s.chosen[p] = 0
		}
		if s.extra == nil {
			if k := len(b.avail); k <= extraInline {
				s.extra = s.extraArr[:k:k]
			} else {
				s.extra = make(resource.Vector, k)
			}
		}
		for k := range s.extra {
			s.extra[k] = 0
		}
	}
	return s
}

// grow makes room for the states of the first n jobs. The states are
// reallocated only when the capacity runs out, doubling it, so a day's
// jobs, first looked at one by one in submission order, cost O(1)
// amortised each: only then have the states moved, and an inline extra
// must follow its array (its values moved with it). (Growing by exactly
// the missing states and re-pointing every extra each time cost
// O(jobs²) over a trace day.)
func (b *batch) grow(n int) {
	old := len(b.jobs)
	if n <= cap(b.jobs) {
		b.jobs = b.jobs[:n] // never used before: zero
		return
	}
	grown := make([]jobBatch, n, max(n, 2*cap(b.jobs)))
	copy(grown, b.jobs)
	b.jobs = grown
	for x := range b.jobs[:old] {
		if st := &b.jobs[x]; st.extra != nil && len(st.extra) <= extraInline {
			st.extra = st.extraArr[:len(st.extra):len(st.extra)]
		}
	}
}

// peek returns the next ready task of j's phase p not yet chosen in this
// batch, or nil. Tasks whose data is on the node come first (sim.Job.
// ReadyTasks).
func (b *batch) peek(j *sim.Job, p schedkit.Phase) *sim.Task {
	s := b.state(j)
	ready := j.Progress(p).Ready - int(s.chosen[p])
	if ready <= 0 {
		return nil
	}
	want := int(s.chosen[p]) + 1
	b.buf = j.ReadyTasks(p, b.node, b.buf[:0], want)
	if len(b.buf) < want {
		return nil
	}
	t := b.buf[want-1]
	for i := range b.buf {
		b.buf[i] = nil
	}
	return t
}

// fits reports whether req fits what is left on the node.
func (b *batch) fits(req resource.Vector) bool {
	for k, r := range req {
		if r > b.avail[k]+epsilon*math.Max(1, r) {
			return false
		}
	}
	return true
}

// take records t as chosen and returns the decision.
func (b *batch) take(j *sim.Job, t *sim.Task) sim.Decision {
	s := b.state(j)
	req := t.Requested()
	_ = b.avail.Sub(req)
	_ = s.extra.Add(req)
	s.chosen[t.Phase()]++
	return sim.AssignTask(t, nil)
}

// tryPhase chooses the next ready task of j's phase p if it fits. Within
// a phase only the next task is tried: tasks of one phase are taken to
// ask alike.
func (b *batch) tryPhase(j *sim.Job, p schedkit.Phase, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, bool) {
	if c.ReadyIn(p) == 0 {
		return dst, false
	}
	t := b.peek(j, p)
	if t == nil || !b.fits(t.Requested()) {
		return dst, false
	}
	return append(dst, b.take(j, t)), true
}

// tryJob chooses one task of j, lowest phase first.
func (b *batch) tryJob(j *sim.Job, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, bool) {
	for p := 0; p < j.Phases(); p++ {
		var ok bool
		if dst, ok = b.tryPhase(j, schedkit.Phase(p), c, dst); ok {
			return dst, true
		}
	}
	return dst, false
}

// fillJob gives j every task that fits, phase by phase.
func (b *batch) fillJob(j *sim.Job, c *sim.Cluster, dst []sim.Decision) []sim.Decision {
	for p := 0; p < j.Phases(); p++ {
		for {
			var ok bool
			if dst, ok = b.tryPhase(j, schedkit.Phase(p), c, dst); !ok {
				break
			}
		}
	}
	return dst
}

// exhausted reports whether nothing is left on the node.
func (b *batch) exhausted() bool {
	for _, x := range b.avail {
		if x > epsilon {
			return false
		}
	}
	return true
}

// dominant returns the dominant share of alloc + extra in total.
func dominant(alloc, extra, total resource.Vector) float64 {
	share := 0.0
	for k, c := range total {
		if c <= 0 {
			continue
		}
		x := alloc[k]
		if extra != nil {
			x += extra[k]
		}
		if s := x / c; s > share {
			share = s
		}
	}
	return share
}

// before is the baselines' tie-break: earlier submission, then ID.
func before(a, b *sim.Job) bool {
	if !a.Submitted().Equal(b.Submitted()) {
		return a.Submitted().Before(b.Submitted())
	}
	return a.ID() < b.ID()
}

// submitRank is before's primary key: the submission's offset from
// sim.Epoch (saturating).
func submitRank(j *sim.Job) int64 { return int64(j.Submitted().Sub(sim.Epoch)) }

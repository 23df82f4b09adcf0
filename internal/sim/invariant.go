package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/drf"
	"github.com/schedkit/schedkit/resource"
)

// CheckInvariants verifies the simulator's conservation invariants and
// returns an error wrapping ErrInvariant describing the first broken one:
//
//   - every task is in exactly one state, and each active job's phase
//     counters (running, finished, ready, start and duration sums) equal
//     what its tasks say;
//   - every running task is on exactly one live node's list, at its slot,
//     and on its host's guest list iff its node offloads to a bound node
//     or to the live node its assignment pinned it to;
//   - no node's allocations exceed its capacity in an incompressible kind,
//     and no live node's true usage of one exceeds capacity (settled);
//   - node allocation and availability equal the sum over running tasks;
//   - every ended job ended exactly once and holds nothing; the active
//     list holds exactly the active jobs, in submission order;
//   - the holding set is the jobs allocated a positive amount of some
//     kind, and the Jain sums a sample takes over it are those over every
//     active job, bit for bit; the unmet-demand sums over the wanting set
//     are those over every active job with a ready task;
//   - each node's allocation and usage are bit for bit those of adding
//     up its running tasks' terms in order (sums.go): every running
//     attempt's recorded terms are its current ones, and the node's
//     incremental sums, when current, are the sums of those;
//   - the cluster counters (ready, running, progressing) match; each
//     node's nodeHot entry (what a quiet heartbeat reads) is its Up and
//     the free mask of its availability;
//   - every running task's rate and pace are what the compression model
//     gives now (settled); its pace is in [0, 1], its rate at most the
//     node's speed times its pace; under Limits its pace is at most a/d
//     of every compressible kind it demands and its load at most its
//     allocation; its plan position is consistent.
//
// It costs O(tasks of active jobs + nodes); tests call it after every
// event through Config.AfterEvent.
func (s *Sim) CheckInvariants() error {
	msg := s.w.checkNodes()
	if msg == "" {
		msg = s.b.checkJainSums(s.w.capacity)
	}
	var c tally
	if msg == "" {
		msg = s.b.checkJobs(&c)
	}
	if msg == "" {
		msg = s.checkTally(&c)
	}
	if msg == "" {
		msg = s.w.checkAllocations(s.rec.stats.PlanOvercommit > 0)
	}
	if msg != "" {
		return fmt.Errorf("%w at %v: %s", ErrInvariant, time.Duration(s.eng.now), msg)
	}
	return nil
}

// tally is what the tasks of the jobs add up to, for the counters.
type tally struct {
	ready, running, progressing, ended, active int
	readyIn                                    [schedkit.MaxPhases]int
	readyBy                                    [1 << maxSupportKinds]int
}

// checkTally compares the counters kept with what the jobs' tasks add
// up to; "" if they agree.
func (s *Sim) checkTally(c *tally) string {
	b, w := &s.b, &s.w
	switch {
	case c.active != len(b.activeList()) || c.active != b.nActive:
		return fmt.Sprintf("%d active jobs listed (%d counted), %d active", len(b.activeList()), b.nActive, c.active)
	case c.ended != b.ended:
		return fmt.Sprintf("%d jobs ended, counter says %d", c.ended, b.ended)
	case c.ready != b.ready.n || c.running != w.running || c.progressing != w.progressing:
		return fmt.Sprintf("counters ready %d/%d running %d/%d progressing %d/%d", b.ready.n, c.ready, w.running, c.running, w.progressing, c.progressing)
	case c.readyIn != b.ready.in:
		return fmt.Sprintf("ready per phase %v, counters say %v", c.readyIn[:4], b.ready.in[:4])
	case c.readyBy != b.ready.by:
		return fmt.Sprintf("ready by support %v, counters say %v", c.readyBy, b.ready.by)
	}
	for m, n := range c.readyBy {
		if (n > 0) != (b.ready.masks&(1<<m) != 0) {
			return fmt.Sprintf("ready supports %b, counters %v", b.ready.masks, c.readyBy)
		}
	}
	return ""
}

// checkNodes checks each node's nodeHot entry and its sums (checkSums).
func (w *world) checkNodes() string {
	for i := range w.nodes {
		n := &w.nodes[i]
		if h := w.hot[i]; h.up != n.up || h.free != freeMask(n.avail) {
			return fmt.Sprintf("node %s: hot %+v, up %v, available %v (free %b)", n.id, h, n.up, n.avail, freeMask(n.avail))
		}
		if err := w.checkSums(n); err != "" {
			return fmt.Sprintf("node %s: %s", n.id, err)
		}
	}
	return ""
}

// checkJainSums compares the Jain sums over the holding and wanting
// sets with those of adding up every active job's share, and every
// active job's with a ready task in some phase.
func (b *book) checkJainSums(capacity resource.Vector) string {
	var all, unmet JainSums
	for _, j := range b.activeList() {
		all.Add(drf.Share(j.alloc, capacity))
		ready := 0
		for p := range j.phases {
			ready += j.phases[p].prog.Ready
		}
		if ready > 0 {
			unmet.Add(drf.Share(j.alloc, capacity))
		}
	}
	if got := b.jainSums(capacity); got != all {
		return fmt.Sprintf("Jain sums %+v over the holding set, %+v over the active jobs", got, all)
	}
	if got := b.unmetJainSums(capacity); got != unmet {
		return fmt.Sprintf("unmet-demand Jain sums %+v over the wanting set, %+v over the active jobs with ready tasks", got, unmet)
	}
	return ""
}

// checkJobs checks every job (checkJob), adding up its tasks in c.
func (b *book) checkJobs(c *tally) string {
	active := b.activeList()
	for ji := range b.jobs {
		j := &b.jobs[ji]
		if msg := b.checkSets(j); msg != "" {
			return msg
		}
		switch j.state {
		case jobEnded:
			c.ended++
			if msg := j.checkEnded(); msg != "" {
				return msg
			}
		case jobWaiting:
			if msg := j.checkWaiting(); msg != "" {
				return msg
			}
		default:
			if ai := c.active; ai >= len(active) || active[ai] != j || j.activeIdx != ai {
				return fmt.Sprintf("active list out of step at job %s", j.id)
			}
			c.active++
			for p := range j.phases {
				if msg := b.checkPhase(j, p, c); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

// checkSets checks j's places in the holding and wanting sets and its
// ready count.
func (b *book) checkSets(j *Job) string {
	ji := int(j.idx)
	holds := false
	for _, x := range j.alloc {
		holds = holds || x > 0
	}
	if in := b.holding[ji>>6]&(1<<(ji&63)) != 0; in != holds {
		return fmt.Sprintf("job %s in the holding set: %v, allocation %v", j.id, in, j.alloc)
	}
	ready := 0
	for p := range j.phases {
		ready += j.phases[p].prog.Ready
	}
	if in := b.wanting[ji>>6]&(1<<(ji&63)) != 0; ready != j.ready || in != (ready > 0) {
		return fmt.Sprintf("job %s: ready count %d, phases say %d; in the wanting set: %v", j.id, j.ready, ready, in)
	}
	return ""
}

// checkEnded checks that ended job j runs nothing, has no task pending
// and holds nothing.
func (j *Job) checkEnded() string {
	var view Task
	for i := int32(0); i < int32(j.nTasks); i++ {
		t := j.peek(i, &view)
		if t.run != nil {
			return fmt.Sprintf("ended job %s has running task %s", j.id, t.ID())
		}
		if t.state == schedkit.TaskPending || t.state == schedkit.TaskRunning || t.state == schedkit.TaskFailed {
			return fmt.Sprintf("ended job %s has task %s %v", j.id, t.ID(), t.state)
		}
	}
	for _, x := range j.alloc {
		if x > 1e-6 || x < -1e-6 {
			return fmt.Sprintf("ended job %s still holds %v", j.id, j.alloc)
		}
	}
	return ""
}

// checkWaiting checks that every task of unsubmitted job j is pending
// and never ran.
func (j *Job) checkWaiting() string {
	var view Task
	for i := int32(0); i < int32(j.nTasks); i++ {
		if t := j.peek(i, &view); t.state != schedkit.TaskPending || t.run != nil || t.attempts != 0 {
			return fmt.Sprintf("unsubmitted job %s has task %s %v", j.id, t.ID(), t.state)
		}
	}
	return ""
}

// checkPhase checks phase p of active job j: each task in one state
// (running ones with checkRunning), the counters what the tasks say,
// which it adds to c.
func (b *book) checkPhase(j *Job, p int, c *tally) string {
	ph := &j.phases[p]
	var r, f, pend int
	var startSum time.Duration
	var view Task
	for i := ph.first; i < ph.first+ph.prog.Total; i++ {
		t := j.peek(int32(i), &view)
		if t.phase != schedkit.Phase(p) || t.job != j {
			return fmt.Sprintf("task %s misfiled", t.ID())
		}
		switch t.state {
		case schedkit.TaskRunning:
			if t.run == nil || t.node == nil {
				return fmt.Sprintf("running task %s without attempt or node", t.ID())
			}
			r++
			startSum += time.Duration(t.run.start - j.submitOff)
			if t.run.rate > 0 {
				c.progressing++
			}
			if msg := b.w.checkRunning(t); msg != "" {
				return fmt.Sprintf("task %s: %s", t.ID(), msg)
			}
		case schedkit.TaskSucceeded:
			if t.run != nil {
				return fmt.Sprintf("finished task %s still has an attempt", t.ID())
			}
			f++
		case schedkit.TaskPending:
			if t.run != nil || t.node != nil {
				return fmt.Sprintf("pending task %s has an attempt", t.ID())
			}
			pend++
		default:
			return fmt.Sprintf("task %s of active job %s is %v", t.ID(), j.id, t.state)
		}
	}
	pr := ph.prog
	if err := pr.Validate(); err != nil {
		return fmt.Sprintf("job %s phase %d: %v", j.id, p, err)
	}
	if pr.Running != r || pr.Finished != f || pr.Pending() != pend {
		return fmt.Sprintf("job %s phase %d counters %+v, tasks running %d finished %d pending %d", j.id, p, pr, r, f, pend)
	}
	wantReady := 0
	if ph.unlocked {
		wantReady = pend
	}
	if pr.Ready != wantReady {
		return fmt.Sprintf("job %s phase %d ready %d, want %d", j.id, p, pr.Ready, wantReady)
	}
	if pr.RunningStartSum != startSum {
		return fmt.Sprintf("job %s phase %d start sum %v, want %v", j.id, p, pr.RunningStartSum, startSum)
	}
	c.ready += pr.Ready
	c.readyIn[p] += pr.Ready
	if !b.computingOnly || p <= j.doneThrough {
		c.readyBy[ph.support] += pr.Ready
	}
	c.running += r
	return ""
}

// checkRunning checks running task t's place on its node (at its slot)
// and its host (a guest iff its node offloads to a bound node or the
// node its assignment pinned it to), whether it waits, and its progress
// (checkProgress).
func (w *world) checkRunning(t *Task) string {
	n, a := t.node, t.run
	if !n.up || a.slot >= len(n.running) || n.running[a.slot] != t {
		return fmt.Sprintf("not at its slot on %s", n.id)
	}
	want := (*Node)(nil)
	if n.offload {
		want = n.bound
		if p := a.pin; p != nil {
			want = p
			if !p.up {
				return fmt.Sprintf("pinned to %s, which is down", p.id)
			}
		}
	} else if a.pin != nil {
		return fmt.Sprintf("pinned on %s, which offloads nothing", n.id)
	}
	if a.host != want {
		return "guest of the wrong host"
	}
	if h := a.host; h != nil && (a.gslot >= len(h.guests) || h.guests[a.gslot] != t) {
		return fmt.Sprintf("not at its guest slot on %s", h.id)
	}
	if a.waiting != !t.job.PhaseComputes(t.phase) {
		return fmt.Sprintf("waiting=%v, phase computes=%v", a.waiting, t.job.PhaseComputes(t.phase))
	}
	return w.checkProgress(t)
}

// checkAllocations checks every node's allocation and availability
// against its running tasks and guests, and its incompressible kinds
// against capacity (allocations may exceed it once a plan step
// over-committed, planOvercommit).
func (w *world) checkAllocations(planOvercommit bool) string {
	onNodes := 0
	sum := w.space.Zero()
	for i := range w.nodes {
		n := &w.nodes[i]
		if !n.up && len(n.running) > 0 {
			return fmt.Sprintf("down node %s runs tasks", n.id)
		}
		onNodes += len(n.running)
		if msg := w.checkNodeAllocation(n, sum); msg != "" {
			return msg
		}
		for _, k := range w.kinds.incompKinds {
			if n.alloc[k] > n.capacity[k]+slack(n.capacity[k]) && !planOvercommit {
				return fmt.Sprintf("node %s allocates %g of %s, capacity %g", n.id, n.alloc[k], w.space.Kind(k).Name, n.capacity[k])
			}
			if n.up && n.used[k] > n.capacity[k]+slack(n.capacity[k]) && len(n.running) > 0 {
				for _, t := range n.running {
					if w.demand(t.run, k) > 0 {
						return fmt.Sprintf("node %s uses %g of %s, capacity %g", n.id, n.used[k], w.space.Kind(k).Name, n.capacity[k])
					}
				}
			}
		}
	}
	if onNodes != w.running {
		return fmt.Sprintf("%d tasks on nodes, %d running", onNodes, w.running)
	}
	return ""
}

// checkNodeAllocation checks n's allocation and availability against
// what its running tasks and guests hold (added up in sum).
func (w *world) checkNodeAllocation(n *Node, sum []float64) string {
	for x := range sum {
		sum[x] = 0
	}
	for _, t := range n.running {
		if t.node != n || t.run == nil {
			return fmt.Sprintf("node %s lists task %s running elsewhere", n.id, t.ID())
		}
		for k := range sum {
			if !n.offloaded[k] {
				sum[k] += t.run.alloc[k]
			}
		}
	}
	for _, t := range n.guests {
		if t.run == nil || t.run.host != n {
			return fmt.Sprintf("node %s lists guest %s wrongly", n.id, t.ID())
		}
		for _, k := range w.kinds.offloadKinds {
			if t.node.offloaded[k] {
				sum[k] += t.run.alloc[k]
			}
		}
	}
	for k := range sum {
		if d := sum[k] - n.alloc[k]; d > slack(n.capacity[k]) || -d > slack(n.capacity[k]) {
			return fmt.Sprintf("node %s allocation %v, tasks hold %v", n.id, n.alloc, sum)
		}
		if d := n.capacity[k] - n.alloc[k] - n.avail[k]; d > slack(n.capacity[k]) || -d > slack(n.capacity[k]) {
			return fmt.Sprintf("node %s available %v, capacity %v minus allocation %v", n.id, n.avail, n.capacity, n.alloc)
		}
	}
	return ""
}

// checkProgress checks a running task's compression and plan state; ""
// if it holds.
func (w *world) checkProgress(t *Task) string {
	a, n := t.run, t.node
	r, pace := w.rate(t)
	if r != a.rate || pace != a.pace {
		return fmt.Sprintf("rate %g pace %g, model says %g %g", a.rate, a.pace, r, pace)
	}
	if !(a.pace >= 0 && a.pace <= 1) || a.rate > n.speed*a.pace*(1+1e-12) {
		return fmt.Sprintf("rate %g pace %g on a node of speed %g", a.rate, a.pace, n.speed)
	}
	if w.model.enforcement == Limits {
		for _, k := range w.kinds.compKinds {
			if d := w.demand(a, k); d > 0 && a.pace > a.alloc[k]/d*(1+1e-12) {
				return fmt.Sprintf("pace %g above its %s quota %g/%g", a.pace, w.space.Kind(k).Name, a.alloc[k], d)
			}
			if w.load(a, k) > a.alloc[k]+slack(a.alloc[k]) {
				return fmt.Sprintf("load %g of %s above its allocation %g", w.load(a, k), w.space.Kind(k).Name, a.alloc[k])
			}
		}
	}
	if len(a.plan) > 0 {
		if a.planIdx >= len(a.plan) || a.planNext != (a.planIdx+1 < len(a.plan)) || a.planRem < 0 {
			return fmt.Sprintf("plan step %d of %d, next %v, %g left", a.planIdx, len(a.plan), a.planNext, a.planRem)
		}
		if &a.alloc[0] != &a.plan[a.planIdx].Alloc[0] {
			return "allocation is not its plan step's"
		}
	} else if a.planNext {
		return "plan step pending without a plan"
	}
	return ""
}

// checkSums checks n's allocation and usage against a full recompute,
// bit for bit, and its incremental sums (sums.go); "" if they hold.
func (w *world) checkSums(n *Node) string {
	alloc, used := make([]float64, w.k), append([]float64(nil), n.bg...)
	for _, t := range n.running {
		for k := range alloc {
			if !n.offloaded[k] {
				alloc[k] += t.run.alloc[k]
				used[k] += w.load(t.run, k)
			}
		}
	}
	if len(n.guests) == 0 && n.up && !n.dirty {
		for k := range alloc {
			if math.Float64bits(alloc[k]) != math.Float64bits(n.alloc[k]) || math.Float64bits(used[k]) != math.Float64bits(n.used[k]) {
				return fmt.Sprintf("allocation %v, usage %v; adding up the running tasks gives %v, %v", n.alloc, n.used, alloc, used)
			}
		}
	}
	if !w.fast {
		return ""
	}
	inexact := int32(0)
	inc, incL := make([]float64, w.k), make([]float64, w.k)
	for _, t := range n.running {
		a := t.run
		if !a.cOn {
			return fmt.Sprintf("running task %s not in the sums", t.ID())
		}
		exact := true
		for k := 0; k < w.k; k++ {
			x, l := a.alloc[k], w.load(a, k)
			if math.Float64bits(x) != math.Float64bits(a.cAlloc[k]) || math.Float64bits(l) != math.Float64bits(a.cLoad[k]) {
				return fmt.Sprintf("task %s: terms %v %v recorded, %v %v now", t.ID(), a.cAlloc[:w.k], a.cLoad[:w.k], a.alloc, l)
			}
			exact = exact && exactTerm(x) && exactTerm(l)
			inc[k] += x
			incL[k] += l
		}
		if exact != a.cExact {
			return fmt.Sprintf("task %s: exact %v recorded, %v now", t.ID(), a.cExact, exact)
		}
		if !exact {
			inexact++
		}
	}
	if inexact != n.inexact {
		return fmt.Sprintf("%d inexact attempts counted, %d running", n.inexact, inexact)
	}
	if !n.resync && inexact == 0 {
		for k := range inc {
			if math.Float64bits(inc[k]) != math.Float64bits(n.incAlloc[k]) || math.Float64bits(incL[k]) != math.Float64bits(n.incLoad[k]) {
				return fmt.Sprintf("incremental sums %v %v, running tasks' terms add up to %v %v", n.incAlloc, n.incLoad, inc, incL)
			}
		}
	}
	return ""
}

package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
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
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w at %v: %s", ErrInvariant, time.Duration(s.now), fmt.Sprintf(format, args...))
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if h := s.hot[i]; h.up != n.up || h.free != freeMask(n.avail) {
			return fail("node %s: hot %+v, up %v, available %v (free %b)", n.id, h, n.up, n.avail, freeMask(n.avail))
		}
		if err := s.checkSums(n); err != "" {
			return fail("node %s: %s", n.id, err)
		}
	}
	active := s.activeList()
	if got, want := s.jainSums(), s.naiveJainSums(); got != want {
		return fail("Jain sums %+v over the holding set, %+v over the active jobs", got, want)
	}
	if got, want := s.unmetJainSums(), s.naiveUnmetJainSums(); got != want {
		return fail("unmet-demand Jain sums %+v over the wanting set, %+v over the active jobs with ready tasks", got, want)
	}
	var view Task
	ready, running, progressing := 0, 0, 0
	var readyIn [schedkit.MaxPhases]int
	var readyBy [1 << maxSupportKinds]int
	ai := 0
	ended := 0
	for ji := range s.jobs {
		j := &s.jobs[ji]
		holds := false
		for _, x := range j.alloc {
			holds = holds || x > 0
		}
		if in := s.holding[ji>>6]&(1<<(ji&63)) != 0; in != holds {
			return fail("job %s in the holding set: %v, allocation %v", j.id, in, j.alloc)
		}
		jready := 0
		for p := range j.phases {
			jready += j.phases[p].prog.Ready
		}
		if in := s.wanting[ji>>6]&(1<<(ji&63)) != 0; jready != j.ready || in != (jready > 0) {
			return fail("job %s: ready count %d, phases say %d; in the wanting set: %v", j.id, j.ready, jready, in)
		}
		switch j.state {
		case jobEnded:
			ended++
			for i := int32(0); i < int32(j.nTasks); i++ {
				t := j.peek(i, &view)
				if t.run != nil {
					return fail("ended job %s has running task %s", j.id, t.ID())
				}
				if t.state == schedkit.TaskPending || t.state == schedkit.TaskRunning || t.state == schedkit.TaskFailed {
					return fail("ended job %s has task %s %v", j.id, t.ID(), t.state)
				}
			}
			for _, x := range j.alloc {
				if x > 1e-6 || x < -1e-6 {
					return fail("ended job %s still holds %v", j.id, j.alloc)
				}
			}
			continue
		case jobWaiting:
			for i := int32(0); i < int32(j.nTasks); i++ {
				if t := j.peek(i, &view); t.state != schedkit.TaskPending || t.run != nil || t.attempts != 0 {
					return fail("unsubmitted job %s has task %s %v", j.id, t.ID(), t.state)
				}
			}
			continue
		}
		if ai >= len(active) || active[ai] != j || j.activeIdx != ai {
			return fail("active list out of step at job %s", j.id)
		}
		ai++
		for p := range j.phases {
			ph := &j.phases[p]
			var r, f, pend int
			var startSum, durSum time.Duration
			for i := ph.first; i < ph.first+ph.prog.Total; i++ {
				t := j.peek(int32(i), &view)
				if t.phase != schedkit.Phase(p) || t.job != j {
					return fail("task %s misfiled", t.ID())
				}
				switch t.state {
				case schedkit.TaskRunning:
					if t.run == nil || t.node == nil {
						return fail("running task %s without attempt or node", t.ID())
					}
					r++
					startSum += time.Duration(t.run.start - j.submitOff)
					if t.run.rate > 0 {
						progressing++
					}
					n := t.node
					if !n.up || t.run.slot >= len(n.running) || n.running[t.run.slot] != t {
						return fail("running task %s not at its slot on %s", t.ID(), n.id)
					}
					want := (*Node)(nil)
					if n.offload {
						want = n.bound
						if p := t.run.pin; p != nil {
							want = p
							if !p.up {
								return fail("task %s pinned to %s, which is down", t.ID(), p.id)
							}
						}
					} else if t.run.pin != nil {
						return fail("task %s pinned on %s, which offloads nothing", t.ID(), n.id)
					}
					if t.run.host != want {
						return fail("task %s guest of the wrong host", t.ID())
					}
					if h := t.run.host; h != nil && (t.run.gslot >= len(h.guests) || h.guests[t.run.gslot] != t) {
						return fail("task %s not at its guest slot on %s", t.ID(), h.id)
					}
					if t.run.waiting != !j.PhaseComputes(t.phase) {
						return fail("task %s waiting=%v, phase computes=%v", t.ID(), t.run.waiting, j.PhaseComputes(t.phase))
					}
					if err := s.checkProgress(t); err != "" {
						return fail("task %s: %s", t.ID(), err)
					}
				case schedkit.TaskSucceeded:
					if t.run != nil {
						return fail("finished task %s still has an attempt", t.ID())
					}
					f++
				case schedkit.TaskPending:
					if t.run != nil || t.node != nil {
						return fail("pending task %s has an attempt", t.ID())
					}
					pend++
				default:
					return fail("task %s of active job %s is %v", t.ID(), j.id, t.state)
				}
			}
			pr := ph.prog
			if err := pr.Validate(); err != nil {
				return fail("job %s phase %d: %v", j.id, p, err)
			}
			if pr.Running != r || pr.Finished != f || pr.Pending() != pend {
				return fail("job %s phase %d counters %+v, tasks running %d finished %d pending %d", j.id, p, pr, r, f, pend)
			}
			wantReady := 0
			if ph.unlocked {
				wantReady = pend
			}
			if pr.Ready != wantReady {
				return fail("job %s phase %d ready %d, want %d", j.id, p, pr.Ready, wantReady)
			}
			ready += pr.Ready
			readyIn[p] += pr.Ready
			if !s.computingOnly || p <= j.doneThrough {
				readyBy[ph.support] += pr.Ready
			}
			running += r
			if pr.RunningStartSum != startSum {
				return fail("job %s phase %d start sum %v, want %v", j.id, p, pr.RunningStartSum, startSum)
			}
			_ = durSum
		}
	}
	if ai != len(active) || ai != s.nActive {
		return fail("%d active jobs listed (%d counted), %d active", len(active), s.nActive, ai)
	}
	if ended != s.ended {
		return fail("%d jobs ended, counter says %d", ended, s.ended)
	}
	if ready != s.ready || running != s.running || progressing != s.progressing {
		return fail("counters ready %d/%d running %d/%d progressing %d/%d", s.ready, ready, s.running, running, s.progressing, progressing)
	}
	if readyIn != s.readyIn {
		return fail("ready per phase %v, counters say %v", readyIn[:4], s.readyIn[:4])
	}
	if readyBy != s.readyBy {
		return fail("ready by support %v, counters say %v", readyBy, s.readyBy)
	}
	for m, c := range readyBy {
		if (c > 0) != (s.readyMasks&(1<<m) != 0) {
			return fail("ready supports %b, counters %v", s.readyMasks, readyBy)
		}
	}
	onNodes := 0
	sum := s.space.Zero()
	for i := range s.nodes {
		n := &s.nodes[i]
		if !n.up && len(n.running) > 0 {
			return fail("down node %s runs tasks", n.id)
		}
		onNodes += len(n.running)
		for x := range sum {
			sum[x] = 0
		}
		for _, t := range n.running {
			if t.node != n || t.run == nil {
				return fail("node %s lists task %s running elsewhere", n.id, t.ID())
			}
			for k := range sum {
				if !n.offloaded[k] {
					sum[k] += t.run.alloc[k]
				}
			}
		}
		for _, t := range n.guests {
			if t.run == nil || t.run.host != n {
				return fail("node %s lists guest %s wrongly", n.id, t.ID())
			}
			for _, k := range s.offloadKinds {
				if t.node.offloaded[k] {
					sum[k] += t.run.alloc[k]
				}
			}
		}
		for k := range sum {
			if d := sum[k] - n.alloc[k]; d > slack(n.capacity[k]) || -d > slack(n.capacity[k]) {
				return fail("node %s allocation %v, tasks hold %v", n.id, n.alloc, sum)
			}
			if d := n.capacity[k] - n.alloc[k] - n.avail[k]; d > slack(n.capacity[k]) || -d > slack(n.capacity[k]) {
				return fail("node %s available %v, capacity %v minus allocation %v", n.id, n.avail, n.capacity, n.alloc)
			}
		}
		for _, k := range s.incompKinds {
			if n.alloc[k] > n.capacity[k]+slack(n.capacity[k]) && s.stats.PlanOvercommit == 0 {
				return fail("node %s allocates %g of %s, capacity %g", n.id, n.alloc[k], s.space.Kind(k).Name, n.capacity[k])
			}
			if n.up && n.used[k] > n.capacity[k]+slack(n.capacity[k]) && len(n.running) > 0 {
				for _, t := range n.running {
					if s.demand(t.run, k) > 0 {
						return fail("node %s uses %g of %s, capacity %g", n.id, n.used[k], s.space.Kind(k).Name, n.capacity[k])
					}
				}
			}
		}
	}
	if onNodes != s.running {
		return fail("%d tasks on nodes, %d running", onNodes, s.running)
	}
	return nil
}

// checkProgress checks a running task's compression and plan state; ""
// if it holds.
func (s *Sim) checkProgress(t *Task) string {
	a, n := t.run, t.node
	r, pace := s.rate(t)
	if r != a.rate || pace != a.pace {
		return fmt.Sprintf("rate %g pace %g, model says %g %g", a.rate, a.pace, r, pace)
	}
	if !(a.pace >= 0 && a.pace <= 1) || a.rate > n.speed*a.pace*(1+1e-12) {
		return fmt.Sprintf("rate %g pace %g on a node of speed %g", a.rate, a.pace, n.speed)
	}
	if s.cfg.Enforcement == Limits {
		for _, k := range s.compKinds {
			if d := s.demand(a, k); d > 0 && a.pace > a.alloc[k]/d*(1+1e-12) {
				return fmt.Sprintf("pace %g above its %s quota %g/%g", a.pace, s.space.Kind(k).Name, a.alloc[k], d)
			}
			if s.load(a, k) > a.alloc[k]+slack(a.alloc[k]) {
				return fmt.Sprintf("load %g of %s above its allocation %g", s.load(a, k), s.space.Kind(k).Name, a.alloc[k])
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
func (s *Sim) checkSums(n *Node) string {
	alloc, used := make([]float64, s.k), append([]float64(nil), n.bg...)
	for _, t := range n.running {
		for k := range alloc {
			if !n.offloaded[k] {
				alloc[k] += t.run.alloc[k]
				used[k] += s.load(t.run, k)
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
	if !s.fast {
		return ""
	}
	inexact := int32(0)
	inc, incL := make([]float64, s.k), make([]float64, s.k)
	for _, t := range n.running {
		a := t.run
		if !a.cOn {
			return fmt.Sprintf("running task %s not in the sums", t.ID())
		}
		exact := true
		for k := 0; k < s.k; k++ {
			x, l := a.alloc[k], s.load(a, k)
			if math.Float64bits(x) != math.Float64bits(a.cAlloc[k]) || math.Float64bits(l) != math.Float64bits(a.cLoad[k]) {
				return fmt.Sprintf("task %s: terms %v %v recorded, %v %v now", t.ID(), a.cAlloc[:s.k], a.cLoad[:s.k], a.alloc, l)
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

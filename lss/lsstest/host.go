package lsstest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// Job, Node and Cluster are the in-memory host values of schedkittest.
type (
	Job     = schedkittest.Job
	Node    = schedkittest.Node
	Cluster = schedkittest.Cluster
)

// T0 is the time a Host starts at.
var T0 = time.Date(2013, 10, 1, 0, 0, 0, 0, time.UTC)

// MergeSlot is the slot kind of a third phase in NewCluster's Space.
var MergeSlot = resource.Kind{Name: "merge-slot", Unit: "slots", Integral: true}

// NewCluster returns a cluster of nodes nodes in rack "rack0" over the
// Space {cpu, map-slot, reduce-slot, merge-slot}, each node with 8 CPUs
// and the given slots (map, reduce, merge; missing ones zero).
func NewCluster(nodes int, slots ...float64) *Cluster {
	space, err := resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot, MergeSlot)
	if err != nil {
		panic(err) // a fixed, valid Space
	}
	c := schedkittest.NewCluster(space)
	for range nodes {
		c.AddNode("", "rack0", append([]float64{8}, slots...))
	}
	return c
}

// Task is one running task of a Host.
type Task struct {
	Job        *Job
	Phase      int
	Node       *Node
	Start, End time.Time
}

// Host is a reference in-memory host: a cluster, its jobs and their
// running tasks, driving one or several lss.Schedulers in lockstep (say
// the indexed and the literal implementation, or a host's configuration
// and the paper's) through the same events. It applies decisions as a
// real host does — killing jobs, reserving slots, starting tasks now or
// after the next heartbeat, Update on every change — and after every
// operation it checks, with a Checker, that no slot or task was handed
// out twice, that the schedulers agree (same decisions and errors), and
// that the cluster and jobs pass schedkit's self-checks. A broken
// invariant is reported to Fail.
//
// Step plays one event from a seeded generator (RandomEvent) or a fuzz
// input, so a property test is a loop:
//
//	h := lsstest.NewHost(rng, lsstest.NewCluster(4, 2, 1), 2, cfgs, t.Fatalf)
//	for range 600 {
//		h.Step(lsstest.RandomEvent(rng))
//	}
type Host struct {
	Rand    *rand.Rand
	Cluster *Cluster
	Scheds  []*lss.Scheduler
	Jobs    map[schedkit.JobID]*Job
	Running []Task
	Now     time.Time
	// Phases is the number of phases of the jobs RandomJob makes.
	Phases int
	// Fail is called on a broken invariant (typically t.Fatalf).
	Fail func(format string, args ...any)
	// OnEnd, if set, is called when a job ends (done, killed or
	// withdrawn).
	OnEnd func(j *Job)
	// Counts of what happened.
	Kills, Assigned, Completed int

	checker *Checker
	decs    [][]lss.Decision
	pending []lss.Decision // assignments applied late (delay mode)
	held    map[schedkit.JobID]bool
	hints   bool
	kinds   []int
	nextID  int
}

// NewHost returns a host over cl at T0 driving one scheduler per config
// (Cluster set to cl); every config must resolve the same phase kinds.
func NewHost(rng *rand.Rand, cl *Cluster, phases int, cfgs []lss.Config, fail func(string, ...any)) *Host {
	h := &Host{Rand: rng, Cluster: cl, Jobs: map[schedkit.JobID]*Job{}, held: map[schedkit.JobID]bool{}, Now: T0, Phases: phases, Fail: fail}
	h.hints = cfgs[0].PhaseTaskTimeHints
	kinds := cfgs[0].PhaseKinds
	if len(kinds) == 0 {
		kinds = lss.DefaultPhaseKinds
	}
	for _, name := range kinds[:phases] {
		i, _ := cl.Space().Index(name)
		h.kinds = append(h.kinds, i)
	}
	for i, cfg := range cfgs {
		cfg.Cluster = cl
		s, err := lss.New(cfg)
		if err != nil {
			fail("lsstest: New: %v", err)
			return h
		}
		h.Scheds = append(h.Scheds, s)
		h.decs = append(h.decs, make([]lss.Decision, 0, 64))
		if i == 0 {
			if h.checker, err = NewChecker(cfg); err != nil {
				fail("%v", err)
			}
		}
	}
	return h
}

// Decisions returns the decisions of the first scheduler at the last
// heartbeat.
func (h *Host) Decisions() []lss.Decision { return h.decs[0] }

// Call runs fn on every scheduler and checks that they return the same
// error; it returns the first scheduler's.
func (h *Host) Call(what string, fn func(*lss.Scheduler) error) error {
	var first error
	for i, s := range h.Scheds {
		err := fn(s)
		if i == 0 {
			first = err
		} else if fmt.Sprint(err) != fmt.Sprint(first) {
			h.Fail("lsstest: %s: scheduler %d error %v, scheduler 0 error %v", what, i, err, first)
		}
	}
	return first
}

// RandomJob makes a job submitted now: 1–12 tasks in phase 0, 0–2 in the
// later ones, nominal task times of 5–44 s, and in nine jobs of ten a
// deadline between a tenth and twice its serial work (half of them
// coarse, so ties exercise the tie-breaks). Half the jobs give a task
// time hint, and per-phase hints of every kind are set from the job
// number (drawing nothing from Rand).
func (h *Host) RandomJob() *Job {
	h.nextID++
	j := &Job{Key: schedkit.JobID(fmt.Sprintf("j%05d", h.nextID)), SubmittedAt: h.Now,
		Counters: make([]schedkit.PhaseProgress, h.Phases), Nominal: make([]time.Duration, h.Phases)}
	work := time.Duration(0)
	for p := range h.Phases {
		n := 1 + h.Rand.IntN(12)
		if p > 0 {
			n = h.Rand.IntN(3)
		}
		j.Counters[p] = schedkit.PhaseProgress{Total: n}
		j.Nominal[p] = time.Duration(5+h.Rand.IntN(40)) * time.Second
		work += time.Duration(n) * j.Nominal[p]
	}
	j.Counters[0].Ready = j.Counters[0].Total
	if h.Rand.IntN(10) > 0 {
		j.DeadlineAt = h.Now.Add(work/10 + time.Duration(h.Rand.Int64N(int64(2*work)+1)))
		if h.Rand.IntN(2) == 0 {
			j.DeadlineAt = j.DeadlineAt.Truncate(20 * time.Second)
			if j.DeadlineAt.Before(h.Now) {
				j.DeadlineAt = h.Now
			}
		}
	}
	if h.Rand.IntN(2) == 0 {
		j.Hint = j.Nominal[0]
	}
	j.PhaseHints = make([]time.Duration, h.Phases)
	j.PhaseHintSet = make([]bool, h.Phases)
	for p := range h.Phases {
		k := (h.nextID*7 + 3*p) % 5
		j.PhaseHintSet[p] = k != 0
		switch k {
		case 2:
			j.PhaseHints[p] = j.Nominal[p]
		case 3:
			j.PhaseHints[p] = 3 * j.Nominal[p]
		case 4:
			j.PhaseHints[p] = j.Nominal[p] / 4
		}
	}
	return j
}

// Submit submits j at Now to every scheduler.
func (h *Host) Submit(j *Job) error {
	err := h.Call("Submit "+string(j.Key), func(s *lss.Scheduler) error { return s.Submit(h.Now, j) })
	if err == nil {
		h.Jobs[j.Key] = j
		h.checker.Submitted(j.Key)
	}
	h.check(j)
	return err
}

// Update tells every scheduler that j's counters changed, unless j has
// assignments not yet applied (the host waits until it applies them).
func (h *Host) Update(j *Job) {
	if h.held[j.Key] {
		return
	}
	if err := h.Call("Update "+string(j.Key), func(s *lss.Scheduler) error { return s.Update(j.Key) }); err != nil {
		h.Fail("lsstest: Update %s: %v", j.Key, err)
		return
	}
	h.checker.Updated(j.Key)
	if err := schedkit.CheckJob(j); err != nil {
		h.Fail("lsstest: %v", err)
	}
}

// check runs the self-checks on the cluster and, if given, a job.
func (h *Host) check(j *Job) {
	if err := schedkittest.Check(h.Cluster); err != nil {
		h.Fail("lsstest: %v", err)
	}
	if j != nil {
		if err := schedkit.CheckJob(j); err != nil {
			h.Fail("lsstest: %v", err)
		}
	}
}

// Heartbeat heartbeats node n at Now on every scheduler, requires the
// same decisions from all, checks them with the Checker, applies the
// kills at once and the assignments now or, with delay, after the next
// heartbeat (their slots are reserved at once, as a host does).
func (h *Host) Heartbeat(n *Node, delay bool) {
	for i, s := range h.Scheds {
		var err error
		h.decs[i], err = s.Heartbeat(h.Now, n, h.decs[i][:0])
		if err != nil {
			h.Fail("lsstest: Heartbeat: %v", err)
			return
		}
	}
	for i := 1; i < len(h.Scheds); i++ {
		if d := DiffDecisions(h.decs[0], h.decs[i]); d != "" {
			h.Fail("lsstest: at %v on %s: schedulers 0 and %d differ:\n%s", h.Now.Sub(T0), n.Key, i, d)
		}
	}
	if err := h.checker.Heartbeat(n, h.job, h.decs[0]); err != nil {
		h.Fail("%v (at %v; decisions %v)", err, h.Now.Sub(T0), h.decs[0])
	}
	for _, d := range h.decs[0] {
		if d.Action == lss.Kill {
			h.killJob(d.Job)
		}
	}
	if !delay {
		h.ApplyPending()
	}
	for _, d := range h.decs[0] {
		if d.Action != lss.Assign {
			continue
		}
		if err := n.Take(h.kinds[d.Phase], float64(d.Count)); err != nil {
			h.Fail("lsstest: %v", err)
		}
		h.Assigned += d.Count
		h.pending = append(h.pending, d)
		h.held[d.Job] = true
	}
	if !delay {
		h.ApplyPending()
	}
	h.check(nil)
}

func (h *Host) job(id schedkit.JobID) schedkit.Job {
	if j, ok := h.Jobs[id]; ok {
		return j
	}
	return nil
}

// ApplyPending starts the assigned tasks not yet started (releasing the
// slots of jobs that ended meanwhile) and updates the jobs, in ID order.
func (h *Host) ApplyPending() {
	touched := map[schedkit.JobID]*Job{}
	for _, d := range h.pending {
		j, ok := h.Jobs[d.Job]
		node := h.Cluster.Lookup(d.Node)
		if !ok {
			if node != nil {
				node.Release(h.kinds[d.Phase], float64(d.Count))
			}
			continue
		}
		touched[j.Key] = j
		if node == nil {
			continue // node gone: the host cannot start them
		}
		for range d.Count {
			if err := j.Start(d.Phase, h.Now); err != nil {
				h.Fail("lsstest: job %s over-assigned: %v", d.Job, err)
				break
			}
			dur := j.Nominal[d.Phase] * time.Duration(80+h.Rand.IntN(41)) / 100
			h.Running = append(h.Running, Task{Job: j, Phase: int(d.Phase), Node: node, Start: h.Now, End: h.Now.Add(dur)})
		}
	}
	h.pending = h.pending[:0]
	clear(h.held)
	for _, id := range sortedIDs(touched) {
		h.Update(touched[id])
	}
}

// killJob ends a job the schedulers killed.
func (h *Host) killJob(id schedkit.JobID) {
	j := h.Jobs[id]
	if j == nil {
		h.Fail("lsstest: kill of unknown job %s", id)
		return
	}
	h.Kills++
	h.end(j)
}

// end drops j's running tasks and forgets it.
func (h *Host) end(j *Job) {
	h.DropTasks(j)
	delete(h.Jobs, j.Key)
	delete(h.held, j.Key)
	if h.OnEnd != nil {
		h.OnEnd(j)
	}
}

// Withdraw removes job id from the host and every scheduler (the user
// cancelled it).
func (h *Host) Withdraw(id schedkit.JobID) {
	j := h.Jobs[id]
	if j == nil {
		return
	}
	h.end(j)
	if err := h.Call("Remove "+string(id), func(s *lss.Scheduler) error { return s.Remove(id) }); err != nil {
		h.Fail("lsstest: Remove %s: %v", id, err)
	}
	h.checker.Removed(id)
}

// DropTasks stops j's running tasks and frees their slots (j is ending).
func (h *Host) DropTasks(j *Job) {
	h.Running = slices.DeleteFunc(h.Running, func(t Task) bool {
		if t.Job == j {
			t.Node.Release(h.kinds[t.Phase], 1)
			return true
		}
		return false
	})
}

// Finish completes running task i at its end time (Now moves there if
// later), then updates or, when it was the job's last, removes the job.
func (h *Host) Finish(i int) {
	t := h.Running[i]
	h.Running[i] = h.Running[len(h.Running)-1]
	h.Running[len(h.Running)-1] = Task{}
	h.Running = h.Running[:len(h.Running)-1]
	if t.End.After(h.Now) {
		h.Now = t.End
	}
	t.Node.Release(h.kinds[t.Phase], 1)
	j := t.Job
	if err := j.Finish(schedkit.Phase(t.Phase), t.Start, h.Now); err != nil {
		h.Fail("lsstest: %v", err)
	}
	if j.Done() {
		h.Completed++
		delete(h.Jobs, j.Key)
		if err := h.Call("Remove "+string(j.Key), func(s *lss.Scheduler) error { return s.Remove(j.Key) }); err != nil {
			h.Fail("lsstest: Remove %s: %v", j.Key, err)
		}
		h.checker.Removed(j.Key)
		if h.OnEnd != nil {
			h.OnEnd(j)
		}
		return
	}
	h.Update(j)
}

// FinishDue completes every task that has ended by Now.
func (h *Host) FinishDue() {
	for i := 0; i < len(h.Running); {
		if !h.Running[i].End.After(h.Now) {
			h.Finish(i)
			continue
		}
		i++
	}
}

// FailNode takes node i out of the cluster; its tasks are ready again.
// The last node is never taken.
func (h *Host) FailNode(i int) {
	if len(h.Cluster.NodeList) <= 1 {
		return
	}
	n := h.Cluster.RemoveNode(h.Cluster.NodeList[i].Key)
	touched := map[schedkit.JobID]*Job{}
	h.Running = slices.DeleteFunc(h.Running, func(t Task) bool {
		if t.Node != n {
			return false
		}
		if err := t.Job.Stop(schedkit.Phase(t.Phase), t.Start); err != nil {
			h.Fail("lsstest: %v", err)
		}
		touched[t.Job.Key] = t.Job
		return true
	})
	for _, id := range sortedIDs(touched) {
		h.Update(touched[id])
	}
}

// Event is one host event, drawn by RandomEvent (or decoded from fuzz
// input): Op selects the kind, modulo 16, and Arg the details (which
// job, which node, how long). Drive maps it to one call of an
// Integration:
//
//	Op 0–3   OnArrival     a job arrives
//	Op 4–8   OnHeartbeat   time passes and a node heartbeats
//	Op 9–11  OnTaskEnd     running tasks end
//	Op 12    OnWithdrawal  the host withdraws a job
//	Op 13    OnMembership  a node fails, or one joins
//	Op 14    OnBadInput    input the scheduler must refuse, changing nothing
//	Op 15    OnQuiet       a quiet stretch, then every node heartbeats
type Event struct {
	Op  int
	Arg uint64
}

// RandomEvent draws an event from rng: arrivals, heartbeats and task ends
// most often, then withdrawals, membership changes, bad input and quiet
// stretches.
func RandomEvent(rng *rand.Rand) Event { return Event{Op: rng.IntN(16), Arg: rng.Uint64()} }

// Integration is what a host does for each kind of Event, so that the
// seeded events drive a host's own integration as they drive Host: a
// host's test implements it over its own scheduling loop (with a Checker
// beside its scheduler) and calls Drive(itsIntegration,
// RandomEvent(rng)) in a loop. Each method reads arg as it likes (Host's
// say how Host does); a broken invariant is the implementation's to
// report.
type Integration interface {
	OnArrival(arg uint64)
	OnHeartbeat(arg uint64)
	OnTaskEnd(arg uint64)
	OnWithdrawal(arg uint64)
	OnMembership(arg uint64)
	OnBadInput(arg uint64)
	OnQuiet(arg uint64)
}

var _ Integration = (*Host)(nil)

// Drive performs ev on in: one call of the Integration method its Op
// selects (see Event).
func Drive(in Integration, ev Event) {
	switch op := ev.Op % 16; {
	case op < 4:
		in.OnArrival(ev.Arg)
	case op < 9:
		in.OnHeartbeat(ev.Arg)
	case op < 12:
		in.OnTaskEnd(ev.Arg)
	case op == 12:
		in.OnWithdrawal(ev.Arg)
	case op == 13:
		in.OnMembership(ev.Arg)
	case op == 14:
		in.OnBadInput(ev.Arg)
	default:
		in.OnQuiet(ev.Arg)
	}
}

// Step performs ev on h: Drive(h, ev).
func (h *Host) Step(ev Event) { Drive(h, ev) }

// OnArrival submits a random job (a refusal by admission control is
// fine).
func (h *Host) OnArrival(uint64) {
	if err := h.Submit(h.RandomJob()); err != nil && !errors.Is(err, lss.ErrNotAdmitted) {
		h.Fail("lsstest: Submit: %v", err)
	}
}

// OnHeartbeat lets up to 5 s pass (arg's low bits) and heartbeats a node
// (bits 16 on), applying the assignments late one time in four.
func (h *Host) OnHeartbeat(arg uint64) {
	h.Now = h.Now.Add(time.Duration(arg%5000) * time.Millisecond)
	h.Heartbeat(h.Cluster.Pick(int(arg>>16)), arg>>32%4 == 0)
}

// OnTaskEnd ends a running task, then every task due.
func (h *Host) OnTaskEnd(arg uint64) {
	if len(h.Running) > 0 {
		h.Finish(int(arg % uint64(len(h.Running))))
	}
	h.FinishDue()
}

// OnWithdrawal withdraws a job (by arg, in ID order), if any.
func (h *Host) OnWithdrawal(arg uint64) {
	for _, id := range sortedIDs(h.Jobs) {
		if arg%3 == 0 {
			h.Withdraw(id)
			return
		}
		arg /= 3
	}
}

// OnMembership fails a node (even arg) or, up to 12 nodes, adds one with
// a speed for Heterogeneous (odd arg).
func (h *Host) OnMembership(arg uint64) {
	if arg%2 == 0 {
		h.FailNode(int(arg>>8) % len(h.Cluster.NodeList))
	} else if len(h.Cluster.NodeList) < 12 {
		n := h.Cluster.AddNode("", "rack0", h.Cluster.NodeList[0].Cap)
		h.Call("SetNodeSpeed", func(s *lss.Scheduler) error {
			return s.SetNodeSpeed(n.Key, float64(1+arg%4)/2)
		})
	}
}

// OnBadInput gives the schedulers input they must refuse, changing
// nothing: unknown IDs, an invalid job, inconsistent counters, a
// negative hint, a stale node value.
func (h *Host) OnBadInput(arg uint64) { h.badInput(arg) }

// OnQuiet lets up to a minute pass, ends the tasks due and heartbeats
// every node.
func (h *Host) OnQuiet(arg uint64) {
	h.Now = h.Now.Add(time.Duration(arg%60) * time.Second)
	h.FinishDue()
	for i := range h.Cluster.NodeList {
		h.Heartbeat(h.Cluster.NodeList[i], false)
	}
}

// badInput gives the schedulers input they must refuse, changing nothing.
func (h *Host) badInput(arg uint64) {
	id := schedkit.JobID(fmt.Sprintf("ghost%d", arg%7))
	if err := h.Call("Update ghost", func(s *lss.Scheduler) error { return s.Update(id) }); !errors.Is(err, lss.ErrUnknownJob) {
		h.Fail("lsstest: Update of unknown job: %v", err)
	}
	bad := schedkittest.NewJob("bad", h.Now, h.Now.Add(-time.Second), 1, 1)
	if err := h.Call("Submit bad", func(s *lss.Scheduler) error { return s.Submit(h.Now, bad) }); !errors.Is(err, lss.ErrInvalidJob) {
		h.Fail("lsstest: Submit with deadline before submission: %v", err)
	}
	// A stale value of a node: its capacity is not the cluster's.
	n := h.Cluster.Pick(int(arg >> 8))
	stale := &Node{Key: n.Key, RackName: n.RackName, Cap: n.Cap.Clone(), Free: n.Free.Clone()}
	k := h.kinds[0]
	stale.Cap[k]++
	stale.Free[k]++
	if err := h.Call("Heartbeat stale", func(s *lss.Scheduler) error { _, err := s.Heartbeat(h.Now, stale, nil); return err }); !errors.Is(err, lss.ErrInvalidNode) {
		h.Fail("lsstest: Heartbeat with a stale node value: %v", err)
	}
	for _, id := range sortedIDs(h.Jobs) {
		if h.held[id] {
			continue
		}
		j := h.Jobs[id]
		saved := j.Counters[0]
		j.Counters[0].Running = j.Counters[0].Total + 1
		if err := h.Call("Update corrupt", func(s *lss.Scheduler) error { return s.Update(id) }); !errors.Is(err, schedkit.ErrInvalidProgress) {
			h.Fail("lsstest: Update with inconsistent counters: %v", err)
		}
		j.Counters[0] = saved
		if len(j.PhaseHints) > 0 {
			savedHint, savedSet := j.PhaseHints[0], j.PhaseHintSet[0]
			j.PhaseHints[0], j.PhaseHintSet[0] = -time.Second, true
			err := h.Call("Update bad hint", func(s *lss.Scheduler) error { return s.Update(id) })
			j.PhaseHints[0], j.PhaseHintSet[0] = savedHint, savedSet
			if h.hints != errors.Is(err, lss.ErrInvalidJob) {
				h.Fail("lsstest: Update with a negative phase hint (option %v): %v", h.hints, err)
			}
		}
		break
	}
}

func sortedIDs(m map[schedkit.JobID]*Job) []schedkit.JobID {
	ids := make([]schedkit.JobID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// DiffDecisions returns "" if a and b are the same decisions with the
// same figures, else a side-by-side listing marking the differences.
func DiffDecisions(a, b []lss.Decision) string {
	if slices.EqualFunc(a, b, SameDecision) {
		return ""
	}
	out := ""
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = fmt.Sprintf("%v %+v", a[i], a[i].Figures.Spare)
		}
		if i < len(b) {
			y = fmt.Sprintf("%v %+v", b[i], b[i].Figures.Spare)
		}
		mark := "  "
		if x != y {
			mark = "≠ "
		}
		out += fmt.Sprintf("%s%-60s | %s\n", mark, x, y)
	}
	return out
}

// SameDecision reports whether a and b are equal, their times compared
// with Equal.
func SameDecision(a, b lss.Decision) bool {
	fa, fb := a.Figures, b.Figures
	a.Figures, b.Figures = lss.Figures{}, lss.Figures{}
	return a == b && fa.Now.Equal(fb.Now) && fa.Deadline.Equal(fb.Deadline) &&
		fa.Spare == fb.Spare && fa.TaskTime == fb.TaskTime && fa.Remaining == fb.Remaining
}

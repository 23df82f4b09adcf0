package fgmtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// T0 is the time a Host starts at.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Task is a host task whose true usage comes in stages: Usage[i].Demand
// for Usage[i].Duration of the task's run, one after another; it ends
// when they are done.
type Task struct {
	schedkittest.Task
	Usage []estimate.Stage
}

// Duration returns the sum of the usage stages' durations.
func (t *Task) Duration() time.Duration { return estimate.Profile{Stages: t.Usage}.Duration() }

// UsedAt returns the task's true usage after it has run for d (its last
// stage's once the stages are done).
func (t *Task) UsedAt(d time.Duration) resource.Vector {
	for _, st := range t.Usage {
		if d < st.Duration {
			return st.Demand
		}
		d -= st.Duration
	}
	return t.Usage[len(t.Usage)-1].Demand
}

// Oracle is an fgm.Estimator that knows the truth: it predicts a *Task's
// Usage stages. Any other task, and a Task whose Usage is nil, is
// unpredictable (an empty non-nil Usage is a prediction of no stages,
// which fgm refuses as invalid).
type Oracle struct{}

// Predict returns t's Usage as its profile.
func (Oracle) Predict(t schedkit.Task) (estimate.Profile, bool) {
	tk, ok := t.(*Task)
	if !ok || tk == nil || tk.Usage == nil {
		return estimate.Profile{}, false
	}
	return estimate.Profile{Stages: tk.Usage, Observations: 1}, true
}

var _ fgm.Estimator = Oracle{}

// Host is a reference in-memory host of one fgm.Scheduler: a
// schedkittest cluster, tasks with staged true usage drawn from a few
// similarity keys, noisy usage samples (clamped at each node's
// capacity, as a node agent reads them), every decision applied as the
// fgm package doc's host duties say, and a Checker run after every
// operation. Its fields count what happened.
type Host struct {
	S       *fgm.Scheduler
	C       *Checker
	Cluster *schedkittest.Cluster
	Now     time.Time
	// Noise is the relative standard deviation of the samples'
	// multiplicative noise (0.05 from NewHost).
	Noise float64
	// ForgetRelease makes the host end tasks without calling Release: a
	// host mistake, for showing what the Checker catches.
	ForgetRelease bool

	Placed, Completed, Failed, Reclaimed, Samples int

	rng     *rand.Rand
	keys    []*Task // one template per similarity key
	pending map[schedkit.TaskID]*Task
	running map[schedkit.TaskID]*run
	next    int
	ds      []fgm.Decision
}

type run struct {
	t     *Task
	node  *schedkittest.Node
	start time.Time
}

// NewHost returns a Host of nodes servers of capacity over space (a
// space with CPU and Memory first), its Scheduler made with cfg (the
// Cluster is the host's; with neither History nor Estimator, a History
// with default settings learns from the tasks).
func NewHost(rng *rand.Rand, space *resource.Space, cfg fgm.Config, nodes int, capacity resource.Vector) (*Host, error) {
	cl := schedkittest.NewCluster(space)
	for range nodes {
		cl.AddNode("", "r0", capacity)
	}
	cfg.Cluster = cl
	if cfg.History == nil && cfg.Estimator == nil {
		hist, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
		if err != nil {
			return nil, err
		}
		cfg.History = hist
	}
	s, err := fgm.New(cfg)
	if err != nil {
		return nil, err
	}
	c, err := NewChecker(cfg)
	if err != nil {
		return nil, err
	}
	h := &Host{S: s, C: c, Cluster: cl, Now: T0, Noise: 0.05, rng: rng,
		pending: map[schedkit.TaskID]*Task{}, running: map[schedkit.TaskID]*run{}}
	for i := range 4 {
		t := &Task{Task: schedkittest.Task{Similar: schedkit.SimilarityKey{Logic: fmt.Sprintf("k%d", i), DataSize: 1}}}
		peak := space.Zero()
		for range 1 + rng.IntN(3) {
			d := space.Zero()
			for k := range d {
				d[k] = capacity[k] * (0.02 + 0.2*rng.Float64())
				if space.Kind(k).Integral {
					d[k] = 1
				}
			}
			_ = peak.Max(d)
			t.Usage = append(t.Usage, estimate.Stage{Duration: time.Duration(5+rng.IntN(55)) * time.Second, Demand: d})
		}
		t.Request = peak
		h.keys = append(h.keys, t)
	}
	return h, nil
}

// Event is one random operation of a host, drawn by RandomEvent: Op
// selects the kind, modulo 14, and Arg the details (which task, which
// node, how long). Drive maps it to one call of an Integration:
//
//	Op 0–2   OnSubmit      a task is submitted (Arg picks its similarity key)
//	Op 3–5   OnSchedule    a server is scheduled (Arg picks it) and its placements start
//	Op 6–7   OnSample      every running task and node is sampled
//	Op 8–9   OnTimePasses  1–10 s pass (Arg) and the tasks whose stages are done end
//	Op 10    OnFailure     a running task fails (Arg picks it) and is submitted again
//	Op 11    OnTick        Tick, and its reclaims carried out
//	Op 12    OnMembership  a server is added or removed (Arg decides)
//	Op 13    OnWithdrawal  a pending task is withdrawn (Arg picks it)
type Event struct {
	Op  int
	Arg uint64
}

// RandomEvent returns a random event for Step or Drive.
func RandomEvent(rng *rand.Rand) Event { return Event{Op: rng.IntN(14), Arg: rng.Uint64()} }

// Integration is what a host does for each kind of Event, so that the
// seeded events drive a host's own integration as they drive Host: a
// host's test implements it over its own scheduling loop (with a Checker
// beside its scheduler) and calls Drive(itsIntegration,
// RandomEvent(rng)) in a loop. Each method reads arg as it likes and
// returns the first error of a call that should have succeeded, or of
// its Checker.
type Integration interface {
	OnSubmit(arg uint64) error
	OnSchedule(arg uint64) error
	OnSample(arg uint64) error
	OnTimePasses(arg uint64) error
	OnFailure(arg uint64) error
	OnTick(arg uint64) error
	OnMembership(arg uint64) error
	OnWithdrawal(arg uint64) error
}

var _ Integration = (*Host)(nil)

// Drive performs ev on in: one call of the Integration method its Op
// selects (see Event); it returns that call's error.
func Drive(in Integration, ev Event) error {
	arg := ev.Arg
	switch op := ev.Op % 14; {
	case op < 3:
		return in.OnSubmit(arg)
	case op < 6:
		return in.OnSchedule(arg)
	case op < 8:
		return in.OnSample(arg)
	case op < 10:
		return in.OnTimePasses(arg)
	case op == 10:
		return in.OnFailure(arg)
	case op == 11:
		return in.OnTick(arg)
	case op == 12:
		return in.OnMembership(arg)
	default:
		return in.OnWithdrawal(arg)
	}
}

// Step carries out ev (Drive) and then checks the scheduler against the
// host (Checker.Check). It returns the first error of a call that should
// have succeeded, or of the Checker.
func (h *Host) Step(ev Event) error { return h.after(Drive(h, ev)) }

// OnSubmit submits a task of the similarity key arg picks.
func (h *Host) OnSubmit(arg uint64) error { return h.submit(arg) }

// OnSchedule schedules the server arg picks and starts what it places.
func (h *Host) OnSchedule(arg uint64) error { return h.schedule(h.node(arg)) }

// OnSample samples every running task and node.
func (h *Host) OnSample(uint64) error { return h.sample() }

// OnTimePasses lets 1–10 s pass and ends the tasks whose stages are
// done (Release, succeeded).
func (h *Host) OnTimePasses(arg uint64) error {
	h.Now = h.Now.Add(time.Duration(1+arg%10) * time.Second)
	return h.finishDue()
}

// OnFailure fails a running task (Release, failed) and submits it again.
func (h *Host) OnFailure(arg uint64) error { return h.fail(arg) }

// OnTick runs Tick and carries out its reclaims.
func (h *Host) OnTick(uint64) error { return h.tick() }

// OnMembership adds or removes a server.
func (h *Host) OnMembership(arg uint64) error { return h.membership(arg) }

// OnWithdrawal withdraws a pending task.
func (h *Host) OnWithdrawal(arg uint64) error { return h.withdraw(arg) }

func (h *Host) after(err error) error {
	if err != nil {
		return err
	}
	return h.C.Check(h.S)
}

func (h *Host) node(arg uint64) *schedkittest.Node {
	return h.Cluster.NodeList[int(arg%uint64(len(h.Cluster.NodeList)))]
}

func (h *Host) submit(arg uint64) error {
	tpl := h.keys[arg%uint64(len(h.keys))]
	h.next++
	t := &Task{Task: tpl.Task, Usage: tpl.Usage}
	t.Key = schedkit.TaskID(fmt.Sprintf("t%d", h.next))
	t.JobKey = schedkit.JobID(fmt.Sprintf("j%d", arg/7%5))
	return h.enqueue(t)
}

func (h *Host) enqueue(t *Task) error {
	if err := h.S.Submit(h.Now, t); err != nil {
		return err
	}
	h.C.Submitted(t.Key)
	h.pending[t.Key] = t
	return nil
}

// schedule calls Schedule on n and starts every task it places.
func (h *Host) schedule(n *schedkittest.Node) error {
	var err error
	h.ds, err = h.S.Schedule(h.Now, n, h.ds[:0])
	if err != nil {
		return err
	}
	if err := h.C.Decided(h.Now, h.ds); err != nil {
		return err
	}
	for _, d := range h.ds {
		t := h.pending[d.Task]
		if t == nil {
			return fmt.Errorf("fgmtest: host: %v: no such pending task", d)
		}
		delete(h.pending, d.Task)
		h.running[d.Task] = &run{t: t, node: n, start: h.Now}
		h.Placed++
	}
	return nil
}

// sample reports every running task's usage, node by node, and each
// node's total, with noise, clamped at the node's capacity.
func (h *Host) sample() error {
	for _, n := range h.Cluster.NodeList {
		total := h.Cluster.Resources.Zero()
		for _, id := range h.runningOn(n) {
			r := h.running[id]
			u := h.noisy(r.t.UsedAt(h.Now.Sub(r.start)), n.Cap)
			_ = total.Add(u)
			if err := h.S.SampleTask(h.Now, id, u); err != nil {
				return err
			}
			h.Samples++
		}
		if err := h.S.SampleNode(h.Now, n.Key, h.noisy(total, n.Cap)); err != nil {
			return err
		}
	}
	return nil
}

func (h *Host) noisy(x, capacity resource.Vector) resource.Vector {
	v := x.Clone()
	for k := range v {
		v[k] = min(capacity[k], max(0, v[k]*(1+h.Noise*h.rng.NormFloat64())))
	}
	return v
}

// runningOn returns the tasks running on n, sorted.
func (h *Host) runningOn(n *schedkittest.Node) []schedkit.TaskID {
	var ids []schedkit.TaskID
	for id, r := range h.running {
		if r.node == n {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (h *Host) sortedRunning() []schedkit.TaskID {
	ids := make([]schedkit.TaskID, 0, len(h.running))
	for id := range h.running {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// finishDue ends the tasks whose stages are done.
func (h *Host) finishDue() error {
	for _, id := range h.sortedRunning() {
		r := h.running[id]
		if h.Now.Sub(r.start) < r.t.Duration() {
			continue
		}
		delete(h.running, id)
		h.Completed++
		h.C.Ended(id)
		if h.ForgetRelease {
			continue // the mistake: the task ended, the scheduler is not told
		}
		if err := h.S.Release(h.Now, id, true); err != nil {
			return err
		}
	}
	return nil
}

// fail ends a running task as failed and submits it again.
func (h *Host) fail(arg uint64) error {
	ids := h.sortedRunning()
	if len(ids) == 0 {
		return nil
	}
	id := ids[arg%uint64(len(ids))]
	r := h.running[id]
	delete(h.running, id)
	if err := h.S.Release(h.Now, id, false); err != nil {
		return err
	}
	h.C.Ended(id)
	h.Failed++
	return h.enqueue(r.t)
}

// tick calls Tick and carries out its reclaims: the task is stopped and
// submitted again.
func (h *Host) tick() error {
	var err error
	h.ds, err = h.S.Tick(h.Now, h.ds[:0])
	if err != nil {
		return err
	}
	if err := h.C.Decided(h.Now, h.ds); err != nil {
		return err
	}
	for _, d := range h.ds {
		r := h.running[d.Task]
		delete(h.running, d.Task)
		h.Reclaimed++
		if err := h.enqueue(r.t); err != nil {
			return err
		}
	}
	return nil
}

// membership adds a server, or (odd arg, more than one server) removes
// one and submits its tasks again.
func (h *Host) membership(arg uint64) error {
	if arg%2 == 1 && len(h.Cluster.NodeList) > 1 {
		n := h.node(arg / 2)
		if err := h.S.RemoveNode(n.Key); err != nil {
			return err
		}
		h.C.NodeRemoved(n.Key)
		h.Cluster.RemoveNode(n.Key)
		for _, id := range h.runningOn(n) {
			r := h.running[id]
			delete(h.running, id)
			if err := h.enqueue(r.t); err != nil {
				return err
			}
		}
		return nil
	}
	n := h.Cluster.AddNode("", "r0", h.Cluster.NodeList[0].Cap)
	if err := h.S.AddNode(n); err != nil {
		return err
	}
	h.C.NodeAdded(n)
	return nil
}

// withdraw drops a pending task.
func (h *Host) withdraw(arg uint64) error {
	ids := make([]schedkit.TaskID, 0, len(h.pending))
	for id := range h.pending {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	id := ids[arg%uint64(len(ids))]
	if err := h.S.Withdraw(id); err != nil {
		return err
	}
	h.C.Withdrawn(id)
	delete(h.pending, id)
	return nil
}

package dbstest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// T0 is the time a Host starts at.
var T0 = time.Date(2014, 3, 1, 8, 0, 0, 0, time.UTC)

// Job is an in-memory dbs.Job: a schedkittest.Job (ID, times, counters,
// task time hint) with a budget, φ, the cost so far and data sizes.
type Job struct {
	*schedkittest.Job
	// Money is the budget B (0: none), PhiValue the time-influence
	// factor φ, Paid the cost so far.
	Money, PhiValue, Paid float64
	// Input and ReduceInput are δ and f·δ in bytes.
	Input, ReduceInput int64
}

var _ dbs.Job = (*Job)(nil)

// Budget returns Money.
func (j *Job) Budget() float64 { return j.Money }

// Phi returns PhiValue.
func (j *Job) Phi() float64 { return j.PhiValue }

// CostSoFar returns Paid.
func (j *Job) CostSoFar() float64 { return j.Paid }

// DataSizes returns Input and ReduceInput.
func (j *Job) DataSizes() (int64, int64) { return j.Input, j.ReduceInput }

// NewCluster returns a cluster of nodes nodes ("n00", …) over the Space
// {map-slot, reduce-slot}, each with maps map slots and reduces reduce
// slots, all free.
func NewCluster(nodes, maps, reduces int) *schedkittest.Cluster {
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		panic(err) // two distinct predefined kinds
	}
	c := schedkittest.NewCluster(space)
	for range nodes {
		c.AddNode("", "rack0", resource.Vector{float64(maps), float64(reduces)})
	}
	return c
}

// Task is one running task of a Host.
type Task struct {
	Job        *Job
	Phase      schedkit.Phase
	Node       *schedkittest.Node
	Start, End time.Time
}

// Event is one step of a host, drawn by RandomEvent. Drive maps it to
// one call of an Integration.
type Event uint8

// Events, and the Integration method each calls.
const (
	Arrive   Event = iota // OnArrival: a job is submitted
	Beat                  // OnHeartbeat: a node heartbeats; the host starts what it is assigned
	Complete              // OnTaskEnd: the earliest running task ends
	Update                // OnWeightUpdate: time moves Δ and the weight update runs
	Withdraw              // OnWithdrawal: the user withdraws a job
	numEvents
)

// RandomEvent draws an event: arrivals, heartbeats, task ends and
// updates in proportion 2:4:4:3, a withdrawal rarely.
func RandomEvent(rng *rand.Rand) Event {
	switch r := rng.IntN(14); {
	case r < 2:
		return Arrive
	case r < 6:
		return Beat
	case r < 10:
		return Complete
	case r < 13:
		return Update
	}
	return Withdraw
}

// Integration is what a host does for each kind of Event, so that the
// seeded events drive a host's own integration as they drive Host: a
// host's test implements it over its own scheduling loop, its own random
// choices and a Checker beside its scheduler, and calls
// Drive(itsIntegration, RandomEvent(rng)) in a loop. Each method returns
// the first broken invariant or unexpected scheduler error.
type Integration interface {
	OnArrival() error
	OnHeartbeat() error
	OnTaskEnd() error
	OnWeightUpdate() error
	OnWithdrawal() error
}

var _ Integration = (*Host)(nil)

// Drive performs ev on in: one call of the Integration method the event
// names (see the Events); it returns that call's error.
func Drive(in Integration, ev Event) error {
	switch ev % numEvents {
	case Arrive:
		return in.OnArrival()
	case Beat:
		return in.OnHeartbeat()
	case Complete:
		return in.OnTaskEnd()
	case Update:
		return in.OnWeightUpdate()
	default:
		return in.OnWithdrawal()
	}
}

// Host is a reference in-memory host of one dbs.Scheduler keeping every
// host duty of package dbs: Submit at arrival, Update after every
// counter change, each job charged its queue's price per slot-second of
// its running tasks and the price changed at each move, Tick every Δ,
// Heartbeat of live nodes with their true free slots, Remove at the end.
// Its Checker runs after every operation. Fields are for reading.
type Host struct {
	Now     time.Time
	Cluster *schedkittest.Cluster
	Sched   *dbs.Scheduler
	Check   *Checker
	Jobs    []*Job // queued, in submission order
	Running []Task
	// Assigned, Completed and Moves count tasks started, jobs finished
	// and queue moves.
	Assigned, Completed, Moves int

	rng    *rand.Rand
	queues [3]dbs.QueueConfig
	queue  map[schedkit.JobID]dbs.Queue
	next   int
	ds     []dbs.Decision
}

// NewHost returns a host over cl at T0 driving a scheduler made with cfg
// (its Cluster set to cl), with random jobs and durations from rng.
func NewHost(rng *rand.Rand, cl *schedkittest.Cluster, cfg dbs.Config) (*Host, error) {
	cfg.Cluster = cl
	s, err := dbs.New(cfg)
	if err != nil {
		return nil, err
	}
	c, err := NewChecker(cfg)
	if err != nil {
		return nil, err
	}
	return &Host{Now: T0, Cluster: cl, Sched: s, Check: c, rng: rng, queues: s.Queues(), queue: map[schedkit.JobID]dbs.Queue{}}, nil
}

// Step plays one event, Drive(h, ev); it returns the first broken
// invariant or scheduler error.
func (h *Host) Step(ev Event) error { return Drive(h, ev) }

// OnArrival submits a random job (RandomJob).
func (h *Host) OnArrival() error { return h.Submit(h.RandomJob()) }

// OnHeartbeat heartbeats a random node.
func (h *Host) OnHeartbeat() error {
	return h.Heartbeat(h.Cluster.Pick(h.rng.IntN(len(h.Cluster.NodeList))))
}

// OnTaskEnd ends the earliest running task (Finish).
func (h *Host) OnTaskEnd() error { return h.Finish() }

// OnWeightUpdate moves time by Δ and runs the weight update (Tick).
func (h *Host) OnWeightUpdate() error { return h.Tick() }

// OnWithdrawal withdraws a random job, if any.
func (h *Host) OnWithdrawal() error {
	if len(h.Jobs) == 0 {
		return nil
	}
	return h.Withdraw(h.Jobs[h.rng.IntN(len(h.Jobs))].ID())
}

// RandomJob makes a job submitted now: 1–12 maps and 0–3 reduces, φ 0,
// 0.5 or 1, a deadline 1–10 min away, a budget of 0.8–2 times its work
// at Mid's price (none for φ = 1), a 10 s task time hint half the time.
func (h *Host) RandomJob() *Job {
	maps, reds := 1+h.rng.IntN(12), h.rng.IntN(4)
	tasks := []int{maps}
	if reds > 0 {
		tasks = append(tasks, reds)
	}
	h.next++
	sj := schedkittest.NewJob(schedkit.JobID(fmt.Sprintf("j%03d", h.next)), h.Now, h.Now.Add(time.Duration(60+h.rng.IntN(540))*time.Second), tasks...)
	if h.rng.IntN(2) == 0 {
		sj.Hint = 10 * time.Second
	}
	j := &Job{Job: sj, PhiValue: []float64{0, 0.5, 1}[h.rng.IntN(3)]}
	if j.PhiValue < 1 {
		j.Money = (0.8 + 1.2*h.rng.Float64()) * h.queues[dbs.Mid].Price * float64(maps+reds) * 10
	}
	return j
}

// Submit submits j at Now.
func (h *Host) Submit(j *Job) error {
	if err := h.Sched.Submit(h.Now, j); err != nil {
		return err
	}
	h.Check.Submitted(h.Now, j)
	h.Jobs = append(h.Jobs, j)
	h.queue[j.ID()], _ = dbs.QueueFor(j.PhiValue)
	return nil
}

func (h *Host) lookup(id schedkit.JobID) dbs.Job {
	if j := h.find(id); j != nil {
		return j
	}
	return nil
}

func (h *Host) find(id schedkit.JobID) *Job {
	for _, j := range h.Jobs {
		if j.ID() == id {
			return j
		}
	}
	return nil
}

// Heartbeat heartbeats n at Now, checks the assignments, starts them
// (5–20 s tasks) and Updates their jobs.
func (h *Host) Heartbeat(n *schedkittest.Node) error {
	var err error
	h.ds, err = h.Sched.Heartbeat(h.Now, n, h.ds[:0])
	if err != nil {
		return err
	}
	if err := h.Check.Heartbeat(n, h.lookup, h.ds); err != nil {
		return err
	}
	for _, d := range h.ds {
		j := h.find(d.Job)
		for range d.Count {
			if err := n.Take(int(d.Phase), 1); err != nil {
				return err
			}
			if err := j.Start(d.Phase, h.Now); err != nil {
				return err
			}
			if err := h.Check.Started(j.ID(), h.Now); err != nil {
				return err
			}
			h.Running = append(h.Running, Task{Job: j, Phase: d.Phase, Node: n, Start: h.Now,
				End: h.Now.Add(time.Duration(5+h.rng.IntN(16)) * time.Second)})
			h.Assigned++
		}
		if err := h.update(j); err != nil {
			return err
		}
	}
	return nil
}

func (h *Host) update(j *Job) error {
	if err := h.Sched.Update(j.ID()); err != nil {
		return err
	}
	h.Check.Updated(j.ID())
	return nil
}

// advance moves Now to t, charging every running task its job's price
// in force for the time (host duty 3).
func (h *Host) advance(t time.Time) {
	if !t.After(h.Now) {
		return
	}
	for _, tk := range h.Running {
		tk.Job.Paid += h.queues[h.queue[tk.Job.ID()]].Price * t.Sub(h.Now).Seconds()
	}
	h.Now = t
}

// Finish ends the earliest running task (Now moves to its end), Updates
// its job, and Removes the job when it is done.
func (h *Host) Finish() error {
	if len(h.Running) == 0 {
		return nil
	}
	i := 0
	for k, tk := range h.Running {
		if tk.End.Before(h.Running[i].End) {
			i = k
		}
	}
	tk := h.Running[i]
	h.advance(tk.End)
	h.Running = slices.Delete(h.Running, i, i+1)
	tk.Node.Release(int(tk.Phase), 1)
	if err := tk.Job.Finish(tk.Phase, tk.Start, h.Now); err != nil {
		return err
	}
	if err := h.Check.Ended(tk.Job.ID(), h.Now); err != nil {
		return err
	}
	if err := h.update(tk.Job); err != nil {
		return err
	}
	if tk.Job.Done() {
		h.Completed++
		return h.remove(tk.Job.ID())
	}
	return nil
}

// Tick moves Now by the scheduler's Δ, runs the weight update, carries
// out its moves (the new price from now on) and checks every job's
// cost.
func (h *Host) Tick() error {
	h.advance(h.Now.Add(dbs.DefaultInterval))
	var err error
	h.ds, err = h.Sched.Tick(h.Now, h.ds[:0])
	if err != nil {
		return err
	}
	if err := h.Check.Tick(h.Now, h.ds); err != nil {
		return err
	}
	for _, d := range h.ds {
		h.queue[d.Job] = d.To
		h.Moves++
	}
	for _, j := range h.Jobs {
		if err := h.Check.Cost(h.Now, j); err != nil {
			return err
		}
	}
	return nil
}

// Withdraw stops job id's running tasks and Removes it.
func (h *Host) Withdraw(id schedkit.JobID) error {
	kept := h.Running[:0]
	for _, tk := range h.Running {
		if tk.Job.ID() != id {
			kept = append(kept, tk)
			continue
		}
		tk.Node.Release(int(tk.Phase), 1)
		if err := h.Check.Ended(id, h.Now); err != nil {
			return err
		}
	}
	h.Running = kept
	return h.remove(id)
}

func (h *Host) remove(id schedkit.JobID) error {
	if err := h.Sched.Remove(id); err != nil {
		return err
	}
	h.Check.Removed(id)
	h.Jobs = slices.DeleteFunc(h.Jobs, func(j *Job) bool { return j.ID() == id })
	delete(h.queue, id)
	return nil
}

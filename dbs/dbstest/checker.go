package dbstest

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
)

// Checker checks one dbs.Scheduler's decisions and the host's cost
// accounting against what the host told it (see the package doc). A
// Checker is not safe for concurrent use.
type Checker struct {
	kinds  [2]int // map and reduce slot kinds' indices in the Space
	queues [3]dbs.QueueConfig
	jobs   map[schedkit.JobID]*checked
}

// checked is what the Checker knows of one queued job.
type checked struct {
	queue    dbs.Queue
	assigned [2]int    // tasks assigned since the last Update, per phase
	running  int       // slots held (tasks started, not ended)
	since    time.Time // when cost was last brought up to date
	cost     float64   // Σ price × slot-seconds until since
}

// NewChecker returns a Checker for a scheduler made with cfg (its
// Cluster, slot kinds and queues are read).
func NewChecker(cfg dbs.Config) (*Checker, error) {
	if cfg.Cluster == nil || cfg.Cluster.Space() == nil {
		return nil, fmt.Errorf("dbstest: NewChecker: no cluster or no Space")
	}
	sp := cfg.Cluster.Space()
	c := &Checker{queues: cfg.Queues, jobs: map[schedkit.JobID]*checked{}}
	if c.queues == ([3]dbs.QueueConfig{}) {
		c.queues = dbs.DefaultQueues
		if cfg.Sharing == dbs.CapacitySharing {
			c.queues = dbs.DefaultCapacityQueues
		}
	}
	for k, name := range [2]string{cfg.MapKind, cfg.ReduceKind} {
		if name == "" {
			name = [2]string{"map-slot", "reduce-slot"}[k]
		}
		i, ok := sp.Index(name)
		if !ok {
			return nil, fmt.Errorf("dbstest: NewChecker: kind %q not in the Space", name)
		}
		c.kinds[k] = i
	}
	return c, nil
}

// Submitted records a successful Submit of j at now: the job is in the
// queue of its φ, at that queue's price.
func (c *Checker) Submitted(now time.Time, j dbs.Job) {
	q, _ := dbs.QueueFor(j.Phi())
	c.jobs[j.ID()] = &checked{queue: q, since: now, cost: j.CostSoFar()}
}

// Updated records a successful Update: the job's counters include every
// assignment made to it.
func (c *Checker) Updated(id schedkit.JobID) {
	if cj, ok := c.jobs[id]; ok {
		cj.assigned = [2]int{}
	}
}

// Removed records a successful Remove.
func (c *Checker) Removed(id schedkit.JobID) { delete(c.jobs, id) }

// Started records that the host started one task of job id at now (it
// holds a slot, and pays for it, from now on).
func (c *Checker) Started(id schedkit.JobID, now time.Time) error {
	cj, err := c.job(id, "Started")
	if err != nil {
		return err
	}
	c.accrue(cj, now)
	cj.running++
	return nil
}

// Ended records that one task of job id ended at now (its slot is free).
func (c *Checker) Ended(id schedkit.JobID, now time.Time) error {
	cj, err := c.job(id, "Ended")
	if err != nil {
		return err
	}
	if cj.running == 0 {
		return fmt.Errorf("dbstest: Ended: job %q has no task running", id)
	}
	c.accrue(cj, now)
	cj.running--
	return nil
}

func (c *Checker) job(id schedkit.JobID, op string) (*checked, error) {
	cj, ok := c.jobs[id]
	if !ok {
		return nil, fmt.Errorf("dbstest: %s: job %q not queued", op, id)
	}
	return cj, nil
}

// accrue brings cj's cost up to now at its queue's price.
func (c *Checker) accrue(cj *checked, now time.Time) {
	if now.After(cj.since) {
		cj.cost += c.queues[cj.queue].Price * float64(cj.running) * now.Sub(cj.since).Seconds()
		cj.since = now
	}
}

// Heartbeat checks the decisions a Heartbeat of node returned, against
// the node's free slots and the jobs' counters as they were when the
// scheduler was called (call it before applying them). job returns the
// host's job by ID (nil if unknown).
func (c *Checker) Heartbeat(node schedkit.Node, job func(schedkit.JobID) dbs.Job, ds []dbs.Decision) error {
	var used [2]int
	free := node.Available()
	for _, d := range ds {
		cj, ok := c.jobs[d.Job]
		switch {
		case d.Action != dbs.Assign:
			return fmt.Errorf("dbstest: %v: not an assignment", d)
		case !ok:
			return fmt.Errorf("dbstest: %v: job not queued", d)
		case d.Node != node.ID():
			return fmt.Errorf("dbstest: %v: heartbeat was from node %q", d, node.ID())
		case d.Count < 1:
			return fmt.Errorf("dbstest: %v: count below 1", d)
		case d.Phase > schedkit.PhaseReduce:
			return fmt.Errorf("dbstest: %v: phase beyond reduce", d)
		case d.From != cj.queue || d.To != cj.queue:
			return fmt.Errorf("dbstest: %v: the job is in the %v queue", d, cj.queue)
		}
		k := d.Phase
		used[k] += d.Count
		if float64(used[k]) > free[c.kinds[k]] {
			return fmt.Errorf("dbstest: %v: slot handed out twice: %d assigned, %v free", d, used[k], free[c.kinds[k]])
		}
		j := job(d.Job)
		if j == nil {
			return fmt.Errorf("dbstest: %v: the host has no such job", d)
		}
		cj.assigned[k] += d.Count
		if ready := j.Progress(k).Ready; cj.assigned[k] > ready {
			return fmt.Errorf("dbstest: %v: task started twice: %d assigned since the last Update, %d ready", d, cj.assigned[k], ready)
		}
	}
	return nil
}

// Tick checks the moves a Tick at now returned and records them: each
// job moves one queue from the queue it is in, at the new queue's
// price, charged from now on.
func (c *Checker) Tick(now time.Time, ds []dbs.Decision) error {
	for _, d := range ds {
		cj, ok := c.jobs[d.Job]
		switch {
		case !ok:
			return fmt.Errorf("dbstest: %v: job not queued", d)
		case d.Action != dbs.Promote && d.Action != dbs.Demote:
			return fmt.Errorf("dbstest: %v: not a move", d)
		case d.From != cj.queue:
			return fmt.Errorf("dbstest: %v: the job is in the %v queue", d, cj.queue)
		case (d.Action == dbs.Promote && d.To != d.From+1) || (d.Action == dbs.Demote && d.To+1 != d.From):
			return fmt.Errorf("dbstest: %v: not to the adjacent queue", d)
		case d.Price != c.queues[d.To].Price:
			return fmt.Errorf("dbstest: %v: price %v, the %v queue's is %v", d, d.Price, d.To, c.queues[d.To].Price)
		}
		c.accrue(cj, now)
		cj.queue = d.To
	}
	return nil
}

// Cost checks j's CostSoFar at now against Σ price × slot-seconds of its
// tasks at the price in force when each second was used (to a relative
// 1e-9).
func (c *Checker) Cost(now time.Time, j dbs.Job) error {
	cj, err := c.job(j.ID(), "Cost")
	if err != nil {
		return err
	}
	c.accrue(cj, now)
	got := j.CostSoFar()
	if math.Abs(got-cj.cost) > 1e-9*max(1, math.Abs(cj.cost)) {
		return fmt.Errorf("dbstest: job %q costs %.6g at %v; its slot-seconds at the prices in force make %.6g", j.ID(), got, now, cj.cost)
	}
	return nil
}

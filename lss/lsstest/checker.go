package lsstest

import (
	"fmt"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
)

// Checker checks the decisions of one lss.Scheduler against the host's
// own state, heartbeat by heartbeat: the invariants a host's integration
// must keep whatever its jobs and timing. A host runs one beside its
// scheduler in its integration tests and tells it what it tells the
// scheduler (Submitted, Updated, Removed); Heartbeat then reports, as an
// error, any decision that
//
//   - hands out a slot twice: more tasks of a kind on the node than it
//     had free when it heartbeat;
//   - starts a task twice: more tasks of a phase than the job has ready
//     and not yet assigned since its last Update;
//   - concerns a job that is not queued (never submitted, removed, or
//     killed before), or assigns to a job killed in the same heartbeat;
//   - names another node, or a count below 1.
//
// A Checker is not safe for concurrent use.
type Checker struct {
	kinds  []int // phase → the index of its slot kind in the Space
	queued map[schedkit.JobID][]int
	used   []int
}

// NewChecker returns a Checker for a scheduler made with cfg (its
// Cluster and PhaseKinds are read).
func NewChecker(cfg lss.Config) (*Checker, error) {
	if cfg.Cluster == nil || cfg.Cluster.Space() == nil {
		return nil, fmt.Errorf("lsstest: NewChecker: no cluster or no Space")
	}
	names := cfg.PhaseKinds
	if len(names) == 0 {
		names = lss.DefaultPhaseKinds
	}
	c := &Checker{queued: map[schedkit.JobID][]int{}, used: make([]int, cfg.Cluster.Space().Len())}
	for _, name := range names {
		i, ok := cfg.Cluster.Space().Index(name)
		if !ok {
			return nil, fmt.Errorf("lsstest: NewChecker: kind %q not in the Space", name)
		}
		c.kinds = append(c.kinds, i)
	}
	return c, nil
}

// Submitted records a successful Submit.
func (c *Checker) Submitted(id schedkit.JobID) { c.queued[id] = make([]int, len(c.kinds)) }

// Updated records a successful Update: the job's counters now include
// every assignment made to it.
func (c *Checker) Updated(id schedkit.JobID) {
	if out, ok := c.queued[id]; ok {
		clear(out)
	}
}

// Removed records a successful Remove.
func (c *Checker) Removed(id schedkit.JobID) { delete(c.queued, id) }

// Heartbeat checks the decisions a Heartbeat of node returned, against
// the node's free slots and the jobs' counters as they were when the
// scheduler was called (call it before applying them). job returns the
// host's job by ID (nil if unknown). Killed jobs leave the queue.
func (c *Checker) Heartbeat(node schedkit.Node, job func(schedkit.JobID) schedkit.Job, ds []lss.Decision) error {
	clear(c.used)
	killed := map[schedkit.JobID]bool{}
	free := node.Available()
	for _, d := range ds {
		out, ok := c.queued[d.Job]
		switch {
		case d.Action == lss.Kill || d.Action == lss.Infeasible:
			if !ok {
				return fmt.Errorf("lsstest: %v: job not queued", d)
			}
			if d.Action == lss.Kill {
				killed[d.Job] = true
				delete(c.queued, d.Job)
			}
			continue
		case d.Action != lss.Assign:
			return fmt.Errorf("lsstest: %v: unknown action", d)
		case killed[d.Job]:
			return fmt.Errorf("lsstest: %v: job killed in the same heartbeat", d)
		case !ok:
			return fmt.Errorf("lsstest: %v: job not queued", d)
		case d.Node != node.ID():
			return fmt.Errorf("lsstest: %v: heartbeat was from node %q", d, node.ID())
		case d.Count < 1:
			return fmt.Errorf("lsstest: %v: count below 1", d)
		case int(d.Phase) >= len(c.kinds):
			return fmt.Errorf("lsstest: %v: phase not configured", d)
		}
		k := c.kinds[d.Phase]
		c.used[k] += d.Count
		if float64(c.used[k]) > free[k] {
			return fmt.Errorf("lsstest: %v: slot handed out twice: %d of kind %d assigned, %v free", d, c.used[k], k, free[k])
		}
		j := job(d.Job)
		if j == nil {
			return fmt.Errorf("lsstest: %v: the host has no such job", d)
		}
		out[d.Phase] += d.Count
		if ready := j.Progress(d.Phase).Ready; out[d.Phase] > ready {
			return fmt.Errorf("lsstest: %v: task started twice: %d assigned since the last Update, %d ready", d, out[d.Phase], ready)
		}
	}
	return nil
}

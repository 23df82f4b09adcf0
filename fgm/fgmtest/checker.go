package fgmtest

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// tolerance is the relative slack of the Checker's capacity tests: the
// scheduler's own fits allow rounding in sums of reservations.
const tolerance = 1e-6

// Checker checks one fgm.Scheduler's decisions against what its host
// did. The host tells it what it tells the scheduler (Submitted,
// SubmittedRun, Withdrawn, Ended, NodeAdded, NodeRemoved) and shows
// it every decision (Decided) and, after each operation, the scheduler
// (Check). It reports, as an error:
//
//   - an Allocate that leaves an incompressible kind of its server
//     reserved beyond capacity, or a compressible kind beyond
//     capacity × (1 + CompressionLimit), at an instant where the new
//     task reserves it; or a plan step whose Compression exceeds
//     CompressionLimit, or whose Reserved or Alloc holds NaN or negative
//     amounts;
//   - an Allocate of a task that is not pending (never submitted,
//     withdrawn, or running) or on a server not registered; a Reclaim of
//     a task not running on that server;
//   - a scheduler that holds a different number of running or pending
//     tasks than the host: a host that does not Release a task that
//     ended, or does not resubmit what it must.
//
// A Checker is not safe for concurrent use.
type Checker struct {
	space   *resource.Space
	comp    []bool
	limit   float64
	horizon time.Duration
	nodes   map[schedkit.NodeID]resource.Vector
	pending map[schedkit.TaskID]bool
	runs    map[schedkit.JobID]int // tasks of runs pending, per job
	running map[schedkit.TaskID]*running
}

type running struct {
	node  schedkit.NodeID
	start time.Time
	open  bool
	plan  []fgm.PlanStep // copied
	peak  resource.Vector
	due   time.Time
}

// NewChecker returns a Checker for a scheduler made with cfg: it reads
// the Cluster (its Space and live nodes), CompressionLimit and Horizon,
// their defaults filled in as fgm.New fills them.
func NewChecker(cfg fgm.Config) (*Checker, error) {
	s, err := fgm.New(cfg)
	if err != nil {
		return nil, err
	}
	cfg = s.Config()
	space := cfg.Cluster.Space()
	c := &Checker{space: space, comp: make([]bool, space.Len()), limit: cfg.CompressionLimit, horizon: cfg.Horizon,
		nodes: map[schedkit.NodeID]resource.Vector{}, pending: map[schedkit.TaskID]bool{},
		runs: map[schedkit.JobID]int{}, running: map[schedkit.TaskID]*running{}}
	for k := range c.comp {
		c.comp[k] = space.Compressible(k)
	}
	for i := range cfg.Cluster.Nodes() {
		c.NodeAdded(cfg.Cluster.Node(i))
	}
	return c, nil
}

// NodeAdded records a successful AddNode (New's nodes are recorded by
// NewChecker).
func (c *Checker) NodeAdded(n schedkit.Node) { c.nodes[n.ID()] = n.Capacity().Clone() }

// NodeRemoved records a successful RemoveNode: its running tasks are
// released.
func (c *Checker) NodeRemoved(id schedkit.NodeID) {
	delete(c.nodes, id)
	for tid, r := range c.running {
		if r.node == id {
			delete(c.running, tid)
		}
	}
}

// Submitted records a successful Submit.
func (c *Checker) Submitted(id schedkit.TaskID) { c.pending[id] = true }

// SubmittedRun records a successful SubmitRun of n tasks of job.
func (c *Checker) SubmittedRun(job schedkit.JobID, n int) { c.runs[job] += n }

// Withdrawn records a successful Withdraw.
func (c *Checker) Withdrawn(id schedkit.TaskID) { delete(c.pending, id) }

// JobWithdrawn records a WithdrawJob of job whose pending single tasks
// were ids.
func (c *Checker) JobWithdrawn(job schedkit.JobID, ids []schedkit.TaskID) {
	delete(c.runs, job)
	for _, id := range ids {
		delete(c.pending, id)
	}
}

// Ended records that a running task ended on the host (it completed,
// failed or was stopped): the host must Release it. Call it whether or
// not the Release was made, so that Check sees a forgotten one.
func (c *Checker) Ended(id schedkit.TaskID) { delete(c.running, id) }

// Running returns the tasks the Checker counts as running, sorted.
func (c *Checker) Running() []schedkit.TaskID {
	ids := make([]schedkit.TaskID, 0, len(c.running))
	for id := range c.running {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Decided checks the decisions a Schedule or Tick at now returned and
// records them (a Reclaim releases its task). Call it before applying
// them.
func (c *Checker) Decided(now time.Time, ds []fgm.Decision) error {
	var errs []error
	for _, d := range ds {
		switch d.Action {
		case fgm.Allocate:
			errs = append(errs, c.allocate(now, d))
		case fgm.Reclaim:
			r := c.running[d.Task]
			if r == nil || r.node != d.Node {
				errs = append(errs, fmt.Errorf("fgmtest: reclaim of %s on %s, which is not running there", d.Task, d.Node))
				continue
			}
			delete(c.running, d.Task)
		default:
			errs = append(errs, fmt.Errorf("fgmtest: decision %v has no action", d))
		}
	}
	return errors.Join(errs...)
}

func (c *Checker) allocate(now time.Time, d fgm.Decision) error {
	capacity := c.nodes[d.Node]
	switch {
	case capacity == nil:
		return fmt.Errorf("fgmtest: %v: node not registered", d)
	case c.running[d.Task] != nil:
		return fmt.Errorf("fgmtest: %v: task already running on %s", d, c.running[d.Task].node)
	case c.pending[d.Task]:
		delete(c.pending, d.Task)
	case c.runs[d.Job] > 0:
		c.runs[d.Job]--
	default:
		return fmt.Errorf("fgmtest: %v: task not pending", d)
	}
	if len(d.Plan) == 0 {
		return fmt.Errorf("fgmtest: %v: empty plan", d)
	}
	r := &running{node: d.Node, start: now, open: d.Mode == fgm.Requested, peak: c.space.Zero()}
	due := now
	for i, st := range d.Plan {
		for _, v := range []resource.Vector{st.Reserved, st.Alloc} {
			if len(v) != c.space.Len() || v.Validate() != nil {
				return fmt.Errorf("fgmtest: %v: step %d holds %v", d, i, v)
			}
		}
		for k, x := range st.Compression {
			if !(x >= 0 && x <= c.limit+tolerance) {
				return fmt.Errorf("fgmtest: %v: step %d compresses %s by %v, beyond the bound %v", d, i, c.space.Kind(k).Name, x, c.limit)
			}
		}
		r.plan = append(r.plan, fgm.PlanStep{Duration: st.Duration, Reserved: st.Reserved.Clone()})
		_ = r.peak.Max(st.Reserved)
		due = due.Add(st.Duration)
	}
	r.due = due
	c.running[d.Task] = r
	// At each instant where the newcomer reserves a kind, the sum of
	// the server's reservations of that kind.
	for _, at := range c.instants(now, d.Node) {
		mine := r.at(now, at, c.horizon)
		if mine == nil {
			continue
		}
		sum := c.space.Zero()
		for _, o := range c.running {
			if o.node == d.Node {
				if v := o.at(now, at, c.horizon); v != nil {
					_ = sum.Add(v)
				}
			}
		}
		for k, x := range sum {
			n := capacity[k]
			bound := n
			if c.comp[k] {
				bound = n * (1 + c.limit)
			}
			if mine[k] > 0 && x > bound+tolerance*max(n, 1) {
				return fmt.Errorf("fgmtest: %v: %s reserved %v at %v, more than %v of capacity %v", d, c.space.Kind(k).Name, x, at.Sub(now), bound, n)
			}
		}
	}
	return nil
}

// instants returns the breakpoints of node's reservations from now on.
func (c *Checker) instants(now time.Time, node schedkit.NodeID) []time.Time {
	pts := []time.Time{now}
	for _, r := range c.running {
		if r.node != node || r.open || !now.Before(r.due) {
			continue
		}
		t := r.start
		for _, st := range r.plan {
			if t.After(now) {
				pts = append(pts, t)
			}
			t = t.Add(st.Duration)
		}
	}
	return pts
}

// at returns what r reserves at instant at, checked at now, as the
// scheduler reserves it: an open (requested) or overdue task its peak
// over [now, now+horizon); another its plan's step; nil for nothing.
func (r *running) at(now, at time.Time, horizon time.Duration) resource.Vector {
	if r.open || !now.Before(r.due) {
		if at.Before(now.Add(horizon)) {
			return r.peak
		}
		return nil
	}
	t := r.start
	for _, st := range r.plan {
		e := t.Add(st.Duration)
		if !at.Before(t) && at.Before(e) {
			return st.Reserved
		}
		t = e
	}
	return nil
}

// Check compares the scheduler with what the host did: the same number
// of running tasks (a host that does not Release an ended task leaves
// the scheduler holding it) and the same number of pending ones.
func (c *Checker) Check(s *fgm.Scheduler) error {
	var errs []error
	if n := s.Running(); n != len(c.running) {
		errs = append(errs, fmt.Errorf("fgmtest: the scheduler holds %d running tasks, the host runs %d (a task ended without Release, or a Reclaim not carried out)", n, len(c.running)))
	}
	want := len(c.pending)
	for _, n := range c.runs {
		want += n
	}
	if n := s.Pending(); n != want {
		errs = append(errs, fmt.Errorf("fgmtest: the scheduler holds %d pending tasks, the host submitted %d not yet placed", n, want))
	}
	return errors.Join(errs...)
}

package baseline

import (
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
)

// ordered is a policy that serves jobs in a fixed total order, each job
// taking every task that fits before the next is considered: Hadoop's
// FIFO (JobQueueTaskScheduler) and EDF.
type ordered struct {
	name  string
	less  func(a, b *sim.Job) bool
	rank  func(j *sim.Job) int64 // less's primary key
	idx   index
	batch batch
}

// FIFO is Hadoop-1's default scheduler: jobs in submission order (ties:
// ID), each taking every ready task that fits the heartbeating node
// (lowest phase first, node-local tasks first) before the next job.
// Request-based: it allocates each task's Requested vector. Not safe for
// concurrent use.
type FIFO struct{ ordered }

// EDF serves jobs earliest deadline first; jobs without a deadline come
// last; ties by submission time, then ID. Otherwise as FIFO. Not safe
// for concurrent use.
type EDF struct{ ordered }

var (
	_ sim.Policy      = (*FIFO)(nil)
	_ sim.JobWatcher  = (*FIFO)(nil)
	_ sim.TaskWatcher = (*FIFO)(nil)
	_ sim.Policy      = (*EDF)(nil)
	_ sim.JobWatcher  = (*EDF)(nil)

	_ sim.FullNodeSkipper = (*FIFO)(nil)
	_ sim.FullNodeSkipper = (*EDF)(nil)
)

// NewFIFO returns a FIFO policy.
func NewFIFO() *FIFO { return &FIFO{ordered{name: "FIFO", less: before, rank: submitRank}} }

// NewEDF returns an EDF policy.
func NewEDF() *EDF { return &EDF{ordered{name: "EDF", less: edfBefore, rank: deadlineRank}} }

// deadlineRank is edfBefore's primary key: the deadline's offset from
// sim.Epoch (saturating), jobs without one last.
func deadlineRank(j *sim.Job) int64 {
	d := j.Deadline()
	if d.IsZero() {
		return math.MaxInt64
	}
	return int64(d.Sub(sim.Epoch))
}

func edfBefore(a, b *sim.Job) bool {
	da, db := a.Deadline(), b.Deadline()
	switch {
	case da.IsZero() != db.IsZero():
		return !da.IsZero()
	case !da.Equal(db):
		return da.Before(db)
	}
	return before(a, b)
}

// Name implements sim.Policy.
func (o *ordered) Name() string { return o.name }

// SkipFullNodes implements sim.FullNodeSkipper: on a node with nothing
// free, or where no ready task's request fits, a heartbeat decides
// nothing (it would only bring the index's keys up to date, which the
// next heartbeat does as well).
func (o *ordered) SkipFullNodes() bool { return true }

// Submit implements sim.Policy: it queues j in order and accepts it.
func (o *ordered) Submit(_ time.Time, j *sim.Job) error {
	if o.idx.order == nil {
		o.idx.order, o.idx.rank = o.less, o.rank
	}
	o.idx.add(j, nil, 0)
	return nil
}

// TaskEnded implements sim.TaskWatcher: the job may have ready tasks
// again.
func (o *ordered) TaskEnded(_ time.Time, t *sim.Task, _ schedkit.TaskState) error {
	if e := o.idx.entry(t.Owner()); e != nil {
		o.idx.markDirty(e)
	}
	return nil
}

// JobEnded implements sim.JobWatcher: it drops j from the queue.
func (o *ordered) JobEnded(_ time.Time, j *sim.Job, _ sim.Outcome) error {
	o.idx.remove(j)
	return nil
}

// Heartbeat implements sim.Policy: jobs in order, each taking every task
// that fits; jobs that could take nothing on the node are skipped through
// the index without being visited.
func (o *ordered) Heartbeat(_ time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.Ready() == 0 || !o.batch.begin(n) {
		return dst, nil
	}
	x, b := &o.idx, &o.batch
	x.refresh()
	x.beginRound()
	defer x.endRound()
	mi := 0
	for {
		var best *entry
		for _, cls := range x.classes {
			if !b.fits(cls.req) {
				continue
			}
			if e, _ := x.top(cls, b); e != nil && (best == nil || o.less(e.j, best.j)) {
				best = e
			}
		}
		for mi < len(x.misc) && x.misc[mi].seen == x.round {
			mi++
		}
		if mi < len(x.misc) && (best == nil || o.less(x.misc[mi].j, best.j)) {
			best = x.misc[mi]
		}
		if best == nil {
			break
		}
		best.seen = x.round
		x.markDirty(best)
		dst = b.fillJob(best.j, c, dst)
		if b.exhausted() {
			break
		}
	}
	return dst, nil
}

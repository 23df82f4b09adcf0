package baseline

import (
	"sort"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// ordered is a policy that serves jobs in a fixed total order, each job
// taking every task that fits before the next is considered: Hadoop's
// FIFO (JobQueueTaskScheduler) and EDF.
type ordered struct {
	name  string
	less  func(a, b *sim.Job) bool
	jobs  []*sim.Job
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
	_ sim.Policy     = (*FIFO)(nil)
	_ sim.JobWatcher = (*FIFO)(nil)
	_ sim.Policy     = (*EDF)(nil)
	_ sim.JobWatcher = (*EDF)(nil)
)

// NewFIFO returns a FIFO policy.
func NewFIFO() *FIFO { return &FIFO{ordered{name: "FIFO", less: before}} }

// NewEDF returns an EDF policy.
func NewEDF() *EDF { return &EDF{ordered{name: "EDF", less: edfBefore}} }

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

// Submit implements sim.Policy: it queues j in order and accepts it.
func (o *ordered) Submit(_ time.Time, j *sim.Job) error {
	i := sort.Search(len(o.jobs), func(i int) bool { return o.less(j, o.jobs[i]) })
	o.jobs = append(o.jobs, nil)
	copy(o.jobs[i+1:], o.jobs[i:])
	o.jobs[i] = j
	return nil
}

// JobEnded implements sim.JobWatcher: it drops j from the queue.
func (o *ordered) JobEnded(_ time.Time, j *sim.Job, _ metrics.Outcome) {
	i := sort.Search(len(o.jobs), func(i int) bool { return !o.less(o.jobs[i], j) })
	for ; i < len(o.jobs); i++ {
		if o.jobs[i] == j {
			o.jobs = append(o.jobs[:i], o.jobs[i+1:]...)
			return
		}
	}
}

// Heartbeat implements sim.Policy.
func (o *ordered) Heartbeat(_ time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.Ready() == 0 || !o.batch.begin(n) {
		return dst, nil
	}
	for _, j := range o.jobs {
		dst = o.batch.fillJob(j, c, dst)
		if o.batch.exhausted() {
			break
		}
	}
	return dst, nil
}

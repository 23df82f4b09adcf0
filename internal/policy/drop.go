package policy

import (
	"container/heap"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
)

// DropAtDeadline returns inner with one rule added: a job still active
// after its deadline is ended (a sim.Kill decision; its running tasks
// stop and free their slots) at the first heartbeat past the deadline.
// Jobs without a deadline are never dropped. It gives a baseline the
// half of lss's advantage that does not come from its order — not
// spending slots on a job that has already missed — so that a
// comparison can tell the two apart.
//
// A dropped job is reported to inner as ended (JobWatcher.JobEnded with
// metrics.Killed) before inner's Heartbeat runs, so inner does not
// schedule it; any decision inner still makes for it in that heartbeat
// is left out. The wrapper implements exactly the optional interfaces
// inner implements among sim.Ticker and sim.UsageWatcher (their presence
// changes what the simulator does), and always sim.JobWatcher,
// sim.TaskWatcher and sim.NodeWatcher, forwarding each call to inner when
// inner implements it.
//
// Deadlines wait in a min-heap ordered by (deadline, job index): a
// heartbeat with nothing due costs one comparison, and each job is
// pushed and popped once, so the cost per event does not grow with the
// number of queued jobs. Its Name is inner's with "-drop" appended.
func DropAtDeadline(inner sim.Policy) sim.Policy {
	d := &drop{inner: inner, name: inner.Name() + "-drop"}
	d.jw, _ = inner.(sim.JobWatcher)
	d.tw, _ = inner.(sim.TaskWatcher)
	d.nw, _ = inner.(sim.NodeWatcher)
	tk, isTicker := inner.(sim.Ticker)
	uw, isUsage := inner.(sim.UsageWatcher)
	switch {
	case isTicker && isUsage:
		return &dropTickUsage{d, tk, uw}
	case isTicker:
		return &dropTick{d, tk}
	case isUsage:
		return &dropUsage{d, uw}
	}
	return d
}

// drop is DropAtDeadline's policy.
type drop struct {
	inner   sim.Policy
	name    string
	jw      sim.JobWatcher
	tw      sim.TaskWatcher
	nw      sim.NodeWatcher
	due     deadlineHeap
	dropped []bool // by sim.Job.Index: ended here, inner already told
	now     []*sim.Job
}

var (
	_ sim.Policy      = (*drop)(nil)
	_ sim.JobWatcher  = (*drop)(nil)
	_ sim.TaskWatcher = (*drop)(nil)
	_ sim.NodeWatcher = (*drop)(nil)
)

// Name implements sim.Policy.
func (d *drop) Name() string { return d.name }

// Submit implements sim.Policy: inner decides; an accepted job with a
// deadline is queued for its check.
func (d *drop) Submit(now time.Time, j *sim.Job) error {
	if err := d.inner.Submit(now, j); err != nil {
		return err
	}
	if dl := j.Deadline(); !dl.IsZero() {
		heap.Push(&d.due, dueJob{at: dl, job: j})
	}
	return nil
}

// expire ends every active job whose deadline is before now: it tells
// inner, appends the kills to dst and records the jobs in d.now. inner's
// error stops it (and the run).
func (d *drop) expire(now time.Time, dst []sim.Decision) ([]sim.Decision, error) {
	d.now = d.now[:0]
	for len(d.due) > 0 && d.due[0].at.Before(now) {
		e := heap.Pop(&d.due).(dueJob)
		j := e.job
		if !j.Active() {
			continue
		}
		i := j.Index()
		if i >= len(d.dropped) {
			d.dropped = append(d.dropped, make([]bool, i+1-len(d.dropped))...)
		}
		d.dropped[i] = true
		d.now = append(d.now, j)
		if d.jw != nil {
			if err := d.jw.JobEnded(now, j, sim.Killed); err != nil {
				return dst, err
			}
		}
		dst = append(dst, sim.Kill(j, d.name+": deadline passed "+now.Sub(e.at).String()+" ago"))
	}
	return dst, nil
}

// isDropped reports whether j was ended by this wrapper.
func (d *drop) isDropped(j *sim.Job) bool {
	i := j.Index()
	return i < len(d.dropped) && d.dropped[i]
}

// filter leaves out of dst[from:] inner's decisions about jobs dropped in
// this call.
func (d *drop) filter(dst []sim.Decision, from int) []sim.Decision {
	if len(d.now) == 0 {
		return dst
	}
	out := dst[:from]
	for _, x := range dst[from:] {
		j := x.Job
		if j == nil && x.Task != nil {
			j = x.Task.Owner()
		}
		if j != nil && d.isDropped(j) {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Heartbeat implements sim.Policy: the kills first, then inner's
// decisions.
func (d *drop) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	dst, err := d.expire(now, dst)
	if err != nil {
		return dst, err
	}
	from := len(dst)
	dst, err = d.inner.Heartbeat(now, n, c, dst)
	return d.filter(dst, from), err
}

// JobEnded implements sim.JobWatcher: inner hears of every job's end
// once (of a dropped job, when it was dropped).
func (d *drop) JobEnded(now time.Time, j *sim.Job, outcome sim.Outcome) error {
	if d.jw != nil && !d.isDropped(j) {
		return d.jw.JobEnded(now, j, outcome)
	}
	return nil
}

// TaskEnded implements sim.TaskWatcher by forwarding.
func (d *drop) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	if d.tw != nil {
		return d.tw.TaskEnded(now, t, state)
	}
	return nil
}

// NodeChanged implements sim.NodeWatcher by forwarding.
func (d *drop) NodeChanged(now time.Time, n *sim.Node, up bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if d.nw == nil {
		return dst, nil
	}
	return d.nw.NodeChanged(now, n, up, c, dst)
}

// tick runs inner's Tick after the deadline check.
func (d *drop) tick(tk sim.Ticker, now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	dst, err := d.expire(now, dst)
	if err != nil {
		return dst, err
	}
	from := len(dst)
	dst, err = tk.Tick(now, c, dst)
	return d.filter(dst, from), err
}

type dropTick struct {
	*drop
	tk sim.Ticker
}

// Tick implements sim.Ticker: the deadline check, then inner's Tick.
func (d *dropTick) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return d.tick(d.tk, now, c, dst)
}

type dropUsage struct {
	*drop
	sim.UsageWatcher
}

type dropTickUsage struct {
	*drop
	tk sim.Ticker
	sim.UsageWatcher
}

// Tick implements sim.Ticker: the deadline check, then inner's Tick.
func (d *dropTickUsage) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return d.tick(d.tk, now, c, dst)
}

var (
	_ sim.Ticker       = (*dropTick)(nil)
	_ sim.UsageWatcher = (*dropUsage)(nil)
	_ sim.Ticker       = (*dropTickUsage)(nil)
	_ sim.UsageWatcher = (*dropTickUsage)(nil)
)

// dueJob is a job waiting for its deadline check.
type dueJob struct {
	at  time.Time
	job *sim.Job
}

// deadlineHeap is a container/heap min-heap of dueJobs by (deadline,
// job index).
type deadlineHeap []dueJob

func (h deadlineHeap) Len() int { return len(h) }
func (h deadlineHeap) Less(a, b int) bool {
	if !h[a].at.Equal(h[b].at) {
		return h[a].at.Before(h[b].at)
	}
	return h[a].job.Index() < h[b].job.Index()
}
func (h deadlineHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *deadlineHeap) Push(x any)   { *h = append(*h, x.(dueJob)) }
func (h *deadlineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = dueJob{}
	*h = old[:len(old)-1]
	return x
}

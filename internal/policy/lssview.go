package policy

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// What the LSS adapter shows lss of the simulator: the cluster (before
// and after the simulator exists) and, when an option needs more than
// the simulator's counters, each job.

// clusterView is the schedkit.Cluster handed to lss.New before the
// simulator exists; it forwards to the simulator's cluster once the
// first callback brought it (NodeChanged runs at time zero, before any
// submission).
type clusterView struct {
	space *resource.Space
	c     *sim.Cluster
}

// Space implements schedkit.Cluster.
func (v *clusterView) Space() *resource.Space { return v.space }

// Nodes implements schedkit.Cluster.
func (v *clusterView) Nodes() int {
	if v.c == nil {
		return 0
	}
	return v.c.Nodes()
}

// Node implements schedkit.Cluster.
func (v *clusterView) Node(i int) schedkit.Node {
	if v.c == nil {
		return nil
	}
	if n := v.c.LiveNode(i); n != nil {
		return n
	}
	return nil
}

// Capacity implements schedkit.Cluster.
func (v *clusterView) Capacity() resource.Vector {
	if v.c == nil {
		return v.space.Zero()
	}
	return v.c.Capacity()
}

// lssJob is how a job is shown to lss when an option needs more than the
// simulator's counters: a task time hint for admission control (the mean
// task time of earlier jobs of the same class), and, with heterogeneous
// slots, finished task times in speed-1 units.
type lssJob struct {
	*sim.Job
	p *LSS
	// Heterogeneous: per phase, the raw finished duration sum already
	// accounted for and its speed-normalised counterpart; the speed of the
	// node each running task started on.
	raw, norm []time.Duration
	speed     map[*sim.Task]float64
	// PhaseTaskTimeHints: per phase, the finished duration sum already
	// accounted for, the sum and count of task times measured from the
	// later of start and the end of the previous phase, and when the
	// previous phase ended (zero: not yet).
	hintRaw []time.Duration
	effSum  []time.Duration
	effN    []int
	barrier []time.Time
}

// Progress implements schedkit.Job. With Heterogeneous, the finished
// duration sum is in speed-1 units: each finished task's run time times
// the speed of the node it ran on.
func (j *lssJob) Progress(ph schedkit.Phase) schedkit.PhaseProgress {
	pr := j.Job.Progress(ph)
	if j.p.opt.Heterogeneous {
		if int(ph) < len(j.norm) {
			pr.FinishedDurationSum = j.norm[ph]
		} else {
			pr.FinishedDurationSum = 0
		}
	}
	return pr
}

// TaskTimeHint implements lss.TaskTimeHinter: the mean finished task time
// of earlier jobs of the same class (0, none, before any has ended or
// without admission control).
func (j *lssJob) TaskTimeHint() time.Duration {
	if j.p.history == nil {
		return 0
	}
	h := j.p.history[j.Class()]
	if h == nil || h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// PhaseTaskTimeHint implements lss.PhaseTaskTimeHinter: the mean
// finished task time of phase ph over the earlier ended jobs of the same
// class (none before one of them finished a task of ph). With
// Heterogeneous the figure is in the simulator's raw times, not speed-1
// units; the lss experiment does not combine the two options.
func (j *lssJob) PhaseTaskTimeHint(ph schedkit.Phase) (time.Duration, bool) {
	if !j.p.opt.PhaseTaskTimeHints || int(ph) >= schedkit.MaxPhases {
		return 0, false
	}
	h := j.p.history[j.Class()]
	if h == nil || h.phN[ph] == 0 {
		return 0, false
	}
	return h.phSum[ph] / time.Duration(h.phN[ph]), true
}

// measure accounts a succeeded task for the phase hints: its run time
// is the growth of the simulator's finished duration sum for its phase;
// a task of phase p > 0 counts from the later of its start and the end
// of phase p−1. When the task completes its phase, the next phase's
// barrier is now.
func (j *lssJob) measure(now time.Time, t *sim.Task) {
	if j.hintRaw == nil {
		n := j.Phases()
		j.hintRaw = make([]time.Duration, n)
		j.effSum = make([]time.Duration, n)
		j.effN = make([]int, n)
		j.barrier = make([]time.Time, n)
	}
	ph := t.Phase()
	pr := j.Job.Progress(ph)
	d := pr.FinishedDurationSum - j.hintRaw[ph]
	j.hintRaw[ph] = pr.FinishedDurationSum
	if b := j.barrier[ph]; ph > 0 && !b.IsZero() {
		d = min(d, now.Sub(b))
	}
	j.effSum[ph] += max(d, 0)
	j.effN[ph]++
	if pr.Finished == pr.Total && int(ph)+1 < len(j.barrier) {
		j.barrier[ph+1] = now
	}
}

func (j *lssJob) started(t *sim.Task, speed float64) {
	if j.speed == nil {
		j.speed = make(map[*sim.Task]float64)
		j.raw = make([]time.Duration, j.Phases())
		j.norm = make([]time.Duration, j.Phases())
	}
	if _, ok := j.speed[t]; !ok {
		j.speed[t] = speed
	}
}

// taskEnded accounts a finished task in speed-1 units. Its run time is
// the growth of the simulator's finished duration sum for its phase (the
// simulator adds it before reporting the end). A task whose start went
// unseen counts at speed 1.
func (j *lssJob) taskEnded(t *sim.Task, state schedkit.TaskState) {
	if j.raw == nil {
		j.raw = make([]time.Duration, j.Phases())
		j.norm = make([]time.Duration, j.Phases())
	}
	v, ok := j.speed[t]
	if !ok {
		v = 1
	}
	delete(j.speed, t)
	if state != schedkit.TaskSucceeded {
		return
	}
	ph := t.Phase()
	sum := j.Job.Progress(ph).FinishedDurationSum
	d := sum - j.raw[ph]
	j.raw[ph] = sum
	j.norm[ph] += time.Duration(float64(d) * v)
}

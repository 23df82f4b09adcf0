package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// Stats are the simulator's counters for one run.
type Stats struct {
	Events      int // events processed (stale progress events excluded)
	StaleEvents int // progress events superseded by a rate change
	Heartbeats  int // heartbeats delivered to the policy
	// QuietHeartbeats are heartbeats of full nodes not delivered to a
	// FullNodeSkipper (they count in Events, not in Heartbeats).
	QuietHeartbeats int
	Assigned        int // task attempts started
	Succeeded       int // task attempts that succeeded
	Failed          int // attempts failed by an incompressible over-commit
	Lost            int // attempts lost to a node going down
	Preempted       int // attempts stopped by Preempt decisions
	Retried         int // attempts started for a task that had run before
	KilledJobs      int // jobs ended by KillJob decisions
	RejectedJobs    int // jobs refused at submission
	FailedJobs      int // jobs ended because a task failed MaxAttempts times
	Invalid         int // decisions that could not be carried out
	PolicyCalls     int // Submit, Heartbeat and NodeChanged calls
	PlanOvercommit  int // plan steps applied although their incompressible allocation no longer fit
	Ticks           int // Ticker calls
	UsageSamples    int // usage sampling rounds delivered to a UsageWatcher
	TaskSamples     int // per-task usage samples delivered (UsageWatcher.TaskSampled calls)
}

// Delivered returns st as if every quiet heartbeat had been delivered:
// the counters a run with Config.DeliverFullHeartbeats has when the
// skipped calls were indeed no-ops (how tests of a FullNodeSkipper
// compare the two runs).
func (st Stats) Delivered() Stats {
	st.Heartbeats += st.QuietHeartbeats
	st.PolicyCalls += st.QuietHeartbeats
	st.QuietHeartbeats = 0
	return st
}

// recorder keeps what a run reports: its counters, the invalid
// decisions, the metrics samples and task records, and the time spent
// in the policy's calls. It reads the engine's clock, the world and the
// book, and changes none of them.
type recorder struct {
	eng *engine
	w   *world
	b   *book

	stats   Stats
	decErr  DecisionError
	samples []Sample
	records []TaskRecord
	recVecs []float64 // arena the records' vectors are cut from
	calls   callTimer
}

// callTimer times the policy's calls (Config.TimingSample).
type callTimer struct {
	sample int           // time one call in sample (0 or 1: every call)
	time   time.Duration // timed policy calls
	calls  int
	// timed are the policy calls timed; usage the usage-sample
	// deliveries' time (always timed).
	timed int
	usage time.Duration
}

// sample records the cluster's utilisation per kind and the sums of the
// dominant shares of the active jobs (JainSums).
//
// Utilisation of an integral kind (slots, devices) is allocated over
// capacity: a held slot is a used slot. For other kinds it is the true
// demand of the running tasks (background load excluded), capped at
// capacity node by node, over capacity: what the jobs actually consumed.
// Only live nodes count.
func (r *recorder) sample() {
	w := r.w
	u := make([]float64, w.k)
	for _, n := range w.live {
		for k := 0; k < w.k; k++ {
			c := n.capacity[k]
			if c <= 0 {
				continue
			}
			x := n.alloc[k]
			if !w.kinds.integral[k] {
				x = n.used[k] - n.bg[k]
			}
			u[k] += math.Max(0, math.Min(x, c))
		}
	}
	for k := range u {
		if w.capacity[k] > 0 {
			u[k] /= w.capacity[k]
		} else {
			u[k] = 0
		}
	}
	// Only the sums Jain's index needs are kept: a trace day has
	// thousands of active jobs in each of thousands of samples.
	r.samples = append(r.samples, Sample{At: time.Duration(r.eng.now), Utilisation: u,
		Jain: r.b.jainSums(w.capacity), Unmet: r.b.unmetJainSums(w.capacity)})
}

// recordChunk is how many vectors' worth of floats the record arena
// grows by at a time.
const recordChunk = 4096

// recordAttempt appends t's running attempt to the task records
// (Config.RecordTasks): time-weighted means of allocation, actual usage
// and true demand, and the attempt's cost, up to now.
func (r *recorder) recordAttempt(t *Task, outcome TaskOutcome) {
	a := t.run
	r.w.integrate(a)
	r.w.accrueAttempt(t)
	now := r.eng.now
	rec := TaskRecord{
		Job:     string(t.job.id),
		Task:    string(t.ID()),
		Phase:   int(t.phase),
		Node:    int(t.node.idx),
		Attempt: int(t.attempts),
		Start:   time.Duration(a.start),
		End:     time.Duration(now),
		Outcome: outcome,
		Cost:    a.rec.cost,
	}
	for _, st := range a.profile {
		rec.Work += st.Duration
	}
	if dur := float64(now - a.start); dur > 0 {
		rec.Alloc = r.meanVec(a.rec.allocSum, dur)
		rec.Used = r.meanVec(a.rec.usedSum, dur)
		rec.Demand = r.meanVec(a.rec.demSum, dur)
	}
	r.records = append(r.records, rec)
}

// meanVec returns sum/dur as a vector cut from the record arena.
func (r *recorder) meanVec(sum []float64, dur float64) resource.Vector {
	k := r.w.k
	if len(r.recVecs) < k {
		r.recVecs = make([]float64, recordChunk*k)
	}
	v := resource.Vector(r.recVecs[:k:k])
	r.recVecs = r.recVecs[k:]
	for i, x := range sum {
		v[i] = x / dur
	}
	return v
}

// invalid counts a decision of policy that the simulator could not
// carry out.
func (r *recorder) invalid(policy, format string, args ...any) {
	r.stats.Invalid++
	r.decErr.Count++
	if len(r.decErr.First) < maxDecisionErrors {
		r.decErr.First = append(r.decErr.First,
			fmt.Sprintf("%v: %s: %s", time.Duration(r.eng.now), policy, fmt.Sprintf(format, args...)))
	}
}

// tic starts timing a policy call if it is one of the timed ones (one in
// Config.TimingSample): it returns the wall-clock start, or the zero
// Time for a call left untimed.
func (c *callTimer) tic() time.Time {
	if c.sample > 1 && c.calls%c.sample != 0 {
		return time.Time{}
	}
	return time.Now()
}

// toc counts a policy call and, if tic timed it, its time.
func (c *callTimer) toc(t0 time.Time) {
	if !t0.IsZero() {
		c.time += time.Since(t0)
		c.timed++
	}
	c.calls++
}

// total is the policy calls' wall-clock time, scaled up from the timed
// calls to all of them when only one in Config.TimingSample was timed,
// plus the time of usage-sample deliveries (always timed).
func (c *callTimer) total() time.Duration {
	d := c.time
	if c.timed > 0 && c.timed < c.calls {
		d = time.Duration(float64(d) * float64(c.calls) / float64(c.timed))
	}
	return d + c.usage
}

// record returns the run's record of policy on workload (complete once
// the run ended).
func (r *recorder) record(policy, workload string) Run {
	w, b := r.w, r.b
	run := Run{
		Policy:       policy,
		Workload:     workload,
		Jobs:         make([]JobRecord, len(b.jobs)),
		Kinds:        make([]string, w.k),
		Samples:      r.samples,
		FailedTasks:  r.stats.Failed,
		RetriedTasks: r.stats.Retried,
		DecisionTime: r.calls.total(),
		Decisions:    r.calls.calls,
		TimedCalls:   r.calls.timed,
		Events:       r.stats.Events,
		End:          time.Duration(r.eng.now),
		Tasks:        r.records,
	}
	for i := range run.Kinds {
		run.Kinds[i] = w.space.Kind(i).Name
	}
	for i := range b.jobs {
		b.jobs[i].record(&run.Jobs[i])
	}
	return run
}

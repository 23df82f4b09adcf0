package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// This file holds the simulator's output, the record of a run: what
// Sim.Run returns and package metrics summarises.

// Run is everything one simulation of one policy on one workload produced
// (Sim.Run's record, from which package metrics computes its metrics).
// Times are offsets from the start of the simulation.
type Run struct {
	Policy   string
	Workload string
	Jobs     []JobRecord
	// Kinds names the resource kinds, in the order of Utilisation samples.
	Kinds []string
	// Samples are taken at regular intervals by the simulator.
	Samples []Sample
	// FailedTasks counts task attempts failed by an incompressible
	// over-commit; RetriedTasks the attempts started again after one.
	FailedTasks, RetriedTasks int
	// DecisionTime is the wall-clock time the policy spent deciding, and
	// Decisions the number of calls it took. If TimedCalls < Decisions,
	// only TimedCalls of the calls were timed (Config.TimingSample)
	// and DecisionTime is their total scaled up to every call: an
	// estimate.
	DecisionTime time.Duration
	Decisions    int
	TimedCalls   int
	// Events is the number of simulator events processed.
	Events int
	// End is the virtual time the simulation ended.
	End time.Duration
	// Tasks has one record per task attempt, in the order attempts ended
	// (attempts still running at the end are recorded then, as
	// TaskUnfinished); empty unless the simulator was asked to record
	// them (Config.RecordTasks).
	Tasks []TaskRecord
}

// TaskRecord is one task attempt.
type TaskRecord struct {
	// Job and Task are the IDs; Phase the task's phase; Node the index of
	// the node it ran on; Attempt counts from 1.
	Job, Task            string
	Phase, Node, Attempt int
	// Start and End are virtual times of the attempt.
	Start, End time.Duration
	Outcome    TaskOutcome
	// Alloc is the time-weighted mean allocation of the attempt; Used the
	// time-weighted mean of what it actually consumed (true demand of
	// incompressible kinds, demand times pace of compressible ones);
	// Demand the time-weighted mean of its true demand. All are nil for a
	// zero-length attempt.
	Alloc, Used, Demand resource.Vector
	// Cost is what the attempt's allocation was charged.
	Cost float64
	// Work is the isolated duration of the attempt's true profile (the
	// sum of its stages' durations): how long it takes uncontended, given
	// its demand, on a speed-1 node. It sizes tasks (CompletionBySize).
	Work time.Duration
}

// TaskOutcome is how a task attempt ended.
type TaskOutcome uint8

// Task attempt outcomes.
const (
	TaskSucceeded  TaskOutcome = iota // finished its work
	TaskFailed                        // incompressible over-commit on its node
	TaskKilled                        // its job ended (killed, failed, completed)
	TaskPreempted                     // stopped by a preemption decision
	TaskLost                          // its node (or pinned target) went down
	TaskUnfinished                    // still running when the run ended
)

var taskOutcomeNames = [...]string{"succeeded", "failed", "killed", "preempted", "lost", "unfinished"}

// String returns the outcome's lower-case name.
func (o TaskOutcome) String() string {
	if int(o) < len(taskOutcomeNames) {
		return taskOutcomeNames[o]
	}
	return "TaskOutcome(" + strconv.Itoa(int(o)) + ")"
}

// JobRecord is the outcome of one job.
type JobRecord struct {
	ID     string
	Class  string
	Submit time.Duration
	// Start is when its first task started; equal to Finish for a job
	// that never ran.
	Start time.Duration
	// Finish is when it completed, was killed, or was rejected.
	Finish time.Duration
	// Deadline relative to Submit; 0 means none.
	Deadline time.Duration
	// Outcome says how the job ended.
	Outcome Outcome
	// Cost charged and Budget declared (0 means none).
	Cost, Budget float64
	// Phi is the job's time-influence factor (paper 003), for per-φ
	// success.
	Phi float64
	// Tasks is the job's number of tasks over all phases.
	Tasks int
	// CouldHaveMade is set for killed or rejected jobs when the simulator
	// determined the job would in fact have met its deadline had it been
	// left running (only when the simulator checked; see CheckedKill and
	// the package doc, "Kills").
	CouldHaveMade bool
	// CheckedKill reports that CouldHaveMade was evaluated.
	CheckedKill bool
}

// Outcome is how a job ended.
type Outcome uint8

// Job outcomes.
const (
	Completed  Outcome = iota // ran to completion (deadline met or not)
	Killed                    // killed by the policy before completion
	Rejected                  // refused at submission (admission control)
	Unfinished                // still running when the simulation ended
	Failed                    // a task failed too many times (e.g. incompressible over-commit)
)

// Sample is the cluster state at one instant.
type Sample struct {
	At time.Duration
	// Utilisation per kind in [0, 1]: allocated (or used) over capacity.
	Utilisation []float64
	// Shares is each active job's (or pool's) dominant share, for Jain's
	// fairness index. A producer that keeps only the sums the index
	// needs (the simulator: a trace day has thousands of active jobs in
	// each of thousands of samples) leaves it nil and fills Jain.
	Shares []float64
	// Jain holds the sums of the shares when Shares is nil.
	Jain JainSums
	// Unmet holds the sums of the dominant shares of the active jobs
	// with unmet demand only (tasks ready and waiting for a place): the
	// jobs a DRF allocator is still filling. A job holding nothing and
	// wanting nothing counts in Shares and Jain, not here. N = 0 when
	// the producer does not record it.
	Unmet JainSums
}

// JainSums are what Jain's index needs of a sample's shares: their
// number, sum and sum of squares (accumulated in the shares' order, so
// the index equals Jain(shares) exactly), and whether any share was
// negative, NaN or infinite.
type JainSums struct {
	N          int
	Sum, SumSq float64
	Bad        bool
}

// Add accumulates one share.
func (j *JainSums) Add(x float64) {
	if !(x >= 0) || math.IsInf(x, 0) {
		j.Bad = true
	}
	j.N++
	j.Sum += x
	j.SumSq += x * x
}

// Index returns Jain's index (Σx)²/(n·Σx²); ok is false when a share
// was invalid, there is none, or all are zero (see Jain).
func (j JainSums) Index() (index float64, ok bool) {
	if j.Bad || j.N == 0 || j.SumSq == 0 || math.IsInf(j.SumSq, 0) {
		return 0, false
	}
	return j.Sum * j.Sum / (float64(j.N) * j.SumSq), true
}

// Jobs returns the number of shares in the sample (active jobs).
func (sm *Sample) Jobs() int {
	if sm.Shares != nil {
		return len(sm.Shares)
	}
	return sm.Jain.N
}

// UnmetFairness returns Jain's index over the jobs with unmet demand
// (Unmet), ok false when it is undefined (no such job, or all their
// shares 0).
func (sm *Sample) UnmetFairness() (index float64, ok bool) { return sm.Unmet.Index() }

// Fairness returns Jain's index of the sample's shares (Shares, or the
// Jain sums when Shares is nil), ok false when it is undefined; bad
// reports a sample whose index is undefined although some share is not
// zero (an invalid share, or squares overflowing).
func (sm *Sample) Fairness() (index float64, ok, bad bool) {
	if sm.Shares != nil {
		if x, ok := Jain(sm.Shares); ok {
			return x, true, false
		}
		return 0, false, len(sm.Shares) > 0 && !allZero(sm.Shares)
	}
	x, ok := sm.Jain.Index()
	return x, ok, !ok && (sm.Jain.Bad || sm.Jain.SumSq != 0)
}

// Jain returns Jain's fairness index (Σx)² / (n·Σx²) of the shares, in
// [1/n, 1]: 1 when all are equal. It is undefined (ok = false) for no
// shares, all-zero shares, or any negative, NaN or infinite share.
func Jain(shares []float64) (index float64, ok bool) {
	var sum, sq float64
	for _, x := range shares {
		if !(x >= 0) || math.IsInf(x, 0) {
			return 0, false
		}
		sum += x
		sq += x * x
	}
	if len(shares) == 0 || sq == 0 || math.IsInf(sq, 0) {
		return 0, false
	}
	return sum * sum / (float64(len(shares)) * sq), true
}

func allZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

// ErrInvalidRun is wrapped by every error Run.Validate returns.
var ErrInvalidRun = errors.New("sim: invalid run record")

// RunError names the job record or sample of a Run that is invalid. It
// wraps ErrInvalidRun.
type RunError struct {
	Job    int // index into Run.Jobs, -1 if not about a job
	Sample int // index into Run.Samples, -1 if not about a sample
	Err    error
}

// Error names the record.
func (e *RunError) Error() string {
	switch {
	case e.Job >= 0:
		return fmt.Sprintf("sim: run record: job %d: %v", e.Job, e.Err)
	case e.Sample >= 0:
		return fmt.Sprintf("sim: run record: sample %d: %v", e.Sample, e.Err)
	}
	return fmt.Sprintf("sim: run record: %v", e.Err)
}

// Unwrap returns the wrapped error.
func (e *RunError) Unwrap() error { return e.Err }

func invalidRun(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidRun}, args...)...)
}

// Validate checks one record: 0 ≤ Submit ≤ Start ≤ Finish, Deadline ≥ 0,
// Cost and Budget finite and ≥ 0, Phi in [0, 1], a known Outcome.
func (j *JobRecord) Validate() error {
	switch {
	case j.Submit < 0 || j.Start < j.Submit || j.Finish < j.Start:
		return invalidRun("job %q: want 0 ≤ submit %v ≤ start %v ≤ finish %v", j.ID, j.Submit, j.Start, j.Finish)
	case j.Deadline < 0:
		return invalidRun("job %q: negative deadline %v", j.ID, j.Deadline)
	case !(j.Cost >= 0) || math.IsInf(j.Cost, 0):
		return invalidRun("job %q: cost %v", j.ID, j.Cost)
	case !(j.Budget >= 0) || math.IsInf(j.Budget, 0):
		return invalidRun("job %q: budget %v", j.ID, j.Budget)
	case !(j.Phi >= 0 && j.Phi <= 1):
		return invalidRun("job %q: φ %v outside [0, 1]", j.ID, j.Phi)
	case j.Outcome > Failed:
		return invalidRun("job %q: unknown outcome %d", j.ID, j.Outcome)
	}
	return nil
}

// Validate reports the first record that cannot be true: an invalid job
// (JobRecord.Validate), a sample whose Utilisation does not match Kinds
// or holds a negative or non-finite value, a negative or non-finite
// share, or negative counters. Package metrics leaves such records out
// of the metrics they would corrupt.
func (r Run) Validate() error {
	if r.FailedTasks < 0 || r.RetriedTasks < 0 || r.Decisions < 0 || r.DecisionTime < 0 || r.Events < 0 {
		return &RunError{Job: -1, Sample: -1, Err: invalidRun("negative counter")}
	}
	for i := range r.Jobs {
		if err := r.Jobs[i].Validate(); err != nil {
			return &RunError{Job: i, Sample: -1, Err: err}
		}
	}
	for i, s := range r.Samples {
		if len(s.Utilisation) != len(r.Kinds) {
			return &RunError{Job: -1, Sample: i, Err: invalidRun("%d utilisation values for %d kinds", len(s.Utilisation), len(r.Kinds))}
		}
		for k, u := range s.Utilisation {
			if !(u >= 0) || math.IsInf(u, 0) {
				return &RunError{Job: -1, Sample: i, Err: invalidRun("utilisation of %s = %v", r.Kinds[k], u)}
			}
		}
		for k, x := range s.Shares {
			if !(x >= 0) || math.IsInf(x, 0) {
				return &RunError{Job: -1, Sample: i, Err: invalidRun("share %d = %v", k, x)}
			}
		}
		if s.Shares == nil && s.Jain.Bad {
			return &RunError{Job: -1, Sample: i, Err: invalidRun("a share is negative, NaN or infinite")}
		}
	}
	return nil
}

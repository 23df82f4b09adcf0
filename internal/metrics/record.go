package metrics

import "time"

// Run is everything one simulation of one policy on one workload produced;
// the metrics in this package are computed from it. Times are offsets from
// the start of the simulation.
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
	// Decisions the number of calls it took.
	DecisionTime time.Duration
	Decisions    int
	// Events is the number of simulator events processed.
	Events int
	// End is the virtual time the simulation ended.
	End time.Duration
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
	// CouldHaveMade is set for killed or rejected jobs when the simulator
	// determined the job would in fact have met its deadline had it been
	// left running (only when the simulator checked; see CheckedKill).
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
	// fairness index.
	Shares []float64
}

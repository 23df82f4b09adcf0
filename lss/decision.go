package lss

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// Action is what a Decision asks of the host.
type Action uint8

// Actions.
const (
	// Assign: start Count ready tasks of Job's Phase on Node.
	Assign Action = iota + 1
	// Kill: kill Job and all its tasks. The scheduler has already dropped
	// it from its queue.
	Kill
	// Infeasible (SoftDeadlines only): Job cannot meet its deadline; it
	// stays queued. Reported once per job.
	Infeasible
)

// String returns "assign", "kill" or "infeasible".
func (a Action) String() string {
	switch a {
	case Assign:
		return "assign"
	case Kill:
		return "kill"
	case Infeasible:
		return "infeasible"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Reason says why a job is killed or reported infeasible.
type Reason uint8

// Reasons.
const (
	// NoReason is the Reason of an Assign.
	NoReason Reason = iota
	// DeadlinePassed: Now is after the job's deadline.
	DeadlinePassed
	// SpareExhausted: Spare + Tavg < 0 with Tavg known (the paper's
	// early kill, with its Tavg tolerance), including a spare time of
	// minus infinity when a phase with unfinished work has no slots.
	SpareExhausted
)

// String returns a short description of the reason.
func (r Reason) String() string {
	switch r {
	case NoReason:
		return "none"
	case DeadlinePassed:
		return "deadline passed"
	case SpareExhausted:
		return "spare+tavg<0"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Figures are the estimates behind a decision, at Now.
type Figures struct {
	Now      time.Time
	Deadline time.Time // zero for a job without deadline
	// Spare is formula (4), or (5) before any task has finished (Initial).
	// It is the zero Spare for a job without deadline.
	Spare estimate.Spare
	// TaskTime is the pooled average task time (2), the kill threshold.
	TaskTime estimate.TaskTime
	// Remaining is formula (3); zero while TaskTime is unknown.
	Remaining estimate.Remaining
}

// Decision is one action for the host to carry out. Heartbeat returns
// kills and infeasible reports first (in least-spare-time order), then
// assignments in the order the passes made them.
type Decision struct {
	Action Action
	Job    schedkit.JobID
	// Assign only: Count tasks of Phase on Node, made in Pass (1: first
	// map for jobs that have none; 2: phase-0 kind — the paper's map
	// pass; 3: the next kind — the paper's reduce pass; 2+k for the k-th
	// kind with more phases).
	Phase schedkit.Phase
	Node  schedkit.NodeID
	Count int
	Pass  int
	// Kill and Infeasible only.
	Reason Reason
	// Figures are the job's estimates at the heartbeat.
	Figures Figures
}

// String renders d on one line, e.g. "assign job1 map×2 on n1 (pass 2)"
// or "kill job3: spare+tavg<0 (spare -40s, tavg 20s)".
func (d Decision) String() string {
	switch d.Action {
	case Assign:
		return fmt.Sprintf("assign %s %s×%d on %s (pass %d)", d.Job, d.Phase, d.Count, d.Node, d.Pass)
	case Kill, Infeasible:
		f := d.Figures
		spare := "-inf"
		if !f.Spare.CannotFinish {
			spare = f.Spare.Time.String()
		}
		tavg := "unknown"
		if f.TaskTime.Known {
			tavg = f.TaskTime.Avg.String()
		}
		return fmt.Sprintf("%s %s: %s (spare %s, tavg %s)", d.Action, d.Job, d.Reason, spare, tavg)
	}
	return fmt.Sprintf("%s %s", d.Action, d.Job)
}

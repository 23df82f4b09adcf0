package dbs

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
)

// Action is what a Decision asks of the host.
type Action uint8

// Actions.
const (
	// Assign (from Heartbeat): start Count ready tasks of Job's Phase on
	// Node.
	Assign Action = iota + 1
	// Promote (from Tick): Job moves one queue up, to To; charge it
	// Price per slot-second from now on.
	Promote
	// Demote (from Tick): Job moves one queue down, to To; charge it
	// Price per slot-second from now on.
	Demote
)

// String returns "assign", "promote" or "demote".
func (a Action) String() string {
	switch a {
	case Assign:
		return "assign"
	case Promote:
		return "promote"
	case Demote:
		return "demote"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Reason says why a Decision was taken.
type Reason uint8

// Reasons.
const (
	// ReasonBelowMinimum (Assign): the job held fewer slots of the kind
	// than its model-2 minimum when it was chosen.
	ReasonBelowMinimum Reason = iota + 1
	// ReasonWeight (Assign): the job was chosen by its queue's order
	// (weight, submission, ID), at or above its minimum.
	ReasonWeight
	// ReasonShort (Promote): the job held fewer slots than its model-2
	// minimum, at or above its queue's average weight, at two updates
	// in a row.
	ReasonShort
	// ReasonUnmeetable (Promote): no view of model 2 could be met (the
	// job cannot reach any minimum), at two updates in a row; paper
	// 003's model 3 submits such a job to the queue above.
	ReasonUnmeetable
	// ReasonSurplus (Demote): the job held more slots than its model-2
	// minimum, at or above its queue's average weight, at two updates
	// in a row.
	ReasonSurplus
	// ReasonBudget (Demote): no view of model 2 could be met, at two
	// updates in a row, and the job (φ < 1) could not be promoted; its
	// budget view can be met at the lower queue's price.
	ReasonBudget
)

// String returns the reason in words: "below minimum", "weight",
// "short", "unmeetable", "surplus" or "budget".
func (r Reason) String() string {
	switch r {
	case ReasonBelowMinimum:
		return "below minimum"
	case ReasonWeight:
		return "weight"
	case ReasonShort:
		return "short"
	case ReasonUnmeetable:
		return "unmeetable"
	case ReasonSurplus:
		return "surplus"
	case ReasonBudget:
		return "budget"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Decision is one action for the host to carry out.
type Decision struct {
	Action Action
	// Reason says why (ReasonBelowMinimum or ReasonWeight for an
	// Assign; ReasonShort or ReasonUnmeetable for a Promote;
	// ReasonSurplus for a Demote).
	Reason Reason
	Job    schedkit.JobID
	// Assign only: Count tasks of Phase on Node. BelowMinimum reports
	// that the job held fewer slots of the phase's kind than its model-2
	// minimum when it was chosen.
	Phase        schedkit.Phase
	Node         schedkit.NodeID
	Count        int
	BelowMinimum bool
	// From and To are the job's queue before and after (equal for an
	// Assign: the job's queue). Price is To's price per slot-second.
	From, To Queue
	Price    float64
	// Figures are the job's model-3 figures at the decision.
	Figures Figures
}

// Figures are the figures behind a decision, at Now.
type Figures struct {
	Now time.Time
	// Held and Needed are the slots the job holds (running plus assigned)
	// and the model-2 minimum of its runnable phases (for a job whose
	// views are all unmeetable, every slot its ready and running tasks
	// could use, at least Held).
	Held, Needed int
	// Weight is the job's weight after the update; QueueAverage the mean
	// model-1 weight of its queue (From) at the update.
	Weight, QueueAverage float64
	// CostAtTo is Ĉ at To's price; BudgetLeft is B − cost so far. A
	// promotion requires CostAtTo ≤ BudgetLeft (or no budget).
	CostAtTo, BudgetLeft float64
}

// String renders d on one line, e.g. "assign j1 map×2 on n1 (high)" or
// "promote j2 mid→high (held 1 needed 3, W 0.42 avg 0.30)".
func (d Decision) String() string {
	switch d.Action {
	case Assign:
		below := ""
		if d.BelowMinimum {
			below = ", below minimum"
		}
		return fmt.Sprintf("assign %s %s×%d on %s (%s%s)", d.Job, d.Phase, d.Count, d.Node, d.To, below)
	case Promote, Demote:
		f := d.Figures
		return fmt.Sprintf("%s %s %s→%s (held %d needed %d, W %.3g avg %.3g)",
			d.Action, d.Job, d.From, d.To, f.Held, f.Needed, f.Weight, f.QueueAverage)
	}
	return fmt.Sprintf("%s %s", d.Action, d.Job)
}

// JobStatus is a queued job's state as the scheduler sees it.
type JobStatus struct {
	Job   schedkit.JobID
	Queue Queue
	// Weight is the job's current weight (model 1, adjusted by model 3);
	// Model1 the figures of the last model-1 evaluation.
	Weight float64
	Model1 WeightFigures
	// Min is the last model-2 result; Held the slots held per phase
	// (running plus assigned since the job's last Update).
	Min  MinResult
	Held [2]int
	// TaskTime is the Tm = Tr the models used (pooled formula (2), or a
	// hint before any task finished), TaskTimeUnknown when there was none.
	TaskTime        time.Duration
	TaskTimeUnknown bool
	// DeadlineUnmeetable and BudgetUnmeetable report a view of model 2
	// with a non-positive denominator at the last evaluation.
	DeadlineUnmeetable, BudgetUnmeetable bool
	// PromotionUnaffordable reports that model 3 wanted to promote the
	// job at its last update but its budget would not cover the higher
	// price.
	PromotionUnaffordable bool
	// UpdatedAt is when the weight was last evaluated.
	UpdatedAt time.Time
}

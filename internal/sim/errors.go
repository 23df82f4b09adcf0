package sim

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the simulator returns wraps exactly one of
// them, so callers test with errors.Is and read details with errors.As
// (Run.Validate's wrap ErrInvalidRun).
var (
	// ErrConfig reports an invalid Config (see ConfigError).
	ErrConfig = errors.New("sim: invalid configuration")
	// ErrWorkload reports a workload the simulator cannot run: duplicate
	// IDs, submissions out of order, vectors of the wrong length, a task
	// that fits no node (see WorkloadError).
	ErrWorkload = errors.New("sim: invalid workload")
	// ErrInvalidDecision reports decisions a policy returned that the
	// simulator could not carry out (see DecisionError). They are counted,
	// never applied and never silently dropped.
	ErrInvalidDecision = errors.New("sim: invalid decision")
	// ErrPolicy wraps an error a policy returned from any of its calls
	// but Submit (whose error rejects the job): Heartbeat, Tick,
	// NodeChanged or a notification (TaskEnded, JobEnded, TaskSampled,
	// NodeSampled). The run stops there; the message names the policy,
	// the call and the virtual time.
	ErrPolicy = errors.New("sim: policy error")
	// ErrStalled reports a run that could make no more progress: jobs were
	// waiting, no task was progressing, no outside event was due, and the
	// policy made no decision for Config.StallAfter.
	ErrStalled = errors.New("sim: stalled")
	// ErrInvariant reports a broken conservation invariant
	// (Sim.CheckInvariants); it means a simulator bug.
	ErrInvariant = errors.New("sim: invariant violated")
	// ErrDone reports a call to Run or Step after the run ended.
	ErrDone = errors.New("sim: run already ended")
)

// ConfigError names the Config field at fault.
type ConfigError struct {
	Field  string // e.g. "Nodes[3].Capacity"
	Reason string
}

// Error returns "sim: config Field: reason".
func (e *ConfigError) Error() string { return fmt.Sprintf("sim: config %s: %s", e.Field, e.Reason) }

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// WorkloadError names the job (and task, when relevant) at fault.
type WorkloadError struct {
	Job    string // job ID, or "" for the workload as a whole
	Where  string // e.g. "phase 1 task 4: Requested"
	Reason string
}

// Error names the job and place at fault.
func (e *WorkloadError) Error() string {
	switch {
	case e.Job == "":
		return fmt.Sprintf("sim: workload: %s", e.Reason)
	case e.Where == "":
		return fmt.Sprintf("sim: workload job %q: %s", e.Job, e.Reason)
	}
	return fmt.Sprintf("sim: workload job %q %s: %s", e.Job, e.Where, e.Reason)
}

// Unwrap returns ErrWorkload.
func (e *WorkloadError) Unwrap() error { return ErrWorkload }

// DecisionError describes the invalid decisions of a run: how many there
// were and the first few, each with the virtual time and the reason.
type DecisionError struct {
	Count int
	First []string // at most maxDecisionErrors descriptions
}

const maxDecisionErrors = 8

// Error gives the count and the first invalid decision.
func (e *DecisionError) Error() string {
	if len(e.First) == 0 {
		return fmt.Sprintf("sim: %d invalid decisions", e.Count)
	}
	return fmt.Sprintf("sim: %d invalid decisions; first: %s", e.Count, e.First[0])
}

// Unwrap returns ErrInvalidDecision.
func (e *DecisionError) Unwrap() error { return ErrInvalidDecision }

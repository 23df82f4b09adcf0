package schedkit

import "fmt"

// Phase is the index of a sequential phase of a job: all tasks of phase p
// may depend on phase p−1. A MapReduce job has PhaseMap then PhaseReduce; a
// DAG-staged job has as many phases as it has stages, numbered from 0.
type Phase uint8

// The two phases of a MapReduce job.
const (
	PhaseMap    Phase = 0
	PhaseReduce Phase = 1
)

// MaxPhases is the largest number of phases a job may report.
const MaxPhases = 64

// String returns "map", "reduce" or "phase-N".
func (p Phase) String() string {
	switch p {
	case PhaseMap:
		return "map"
	case PhaseReduce:
		return "reduce"
	}
	return fmt.Sprintf("phase-%d", uint8(p))
}

// TaskState is the lifecycle state of a task. Every task is in exactly one
// state; Succeeded, Failed and Killed are final for that attempt.
type TaskState uint8

// Task states.
const (
	TaskPending   TaskState = iota // waiting for resources (ready or not)
	TaskRunning                    // holding resources, making progress
	TaskSucceeded                  // finished; its duration counts in averages
	TaskFailed                     // failed (e.g. incompressible over-commit); may be retried
	TaskKilled                     // killed by a scheduler decision or its job's kill
)

var taskStateNames = [...]string{"pending", "running", "succeeded", "failed", "killed"}

// String returns the state's lower-case name.
func (s TaskState) String() string {
	if int(s) < len(taskStateNames) {
		return taskStateNames[s]
	}
	return fmt.Sprintf("TaskState(%d)", uint8(s))
}

// Final reports whether s ends the attempt.
func (s TaskState) Final() bool { return s >= TaskSucceeded && s <= TaskKilled }

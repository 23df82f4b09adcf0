package dbs

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
)

// Job is the host's view of one deadline- and budget-constrained job: a
// schedkit.Job (ID, submission, deadline, per-phase counters) plus what
// models 1 and 2 read. Methods must be cheap and must not allocate.
type Job interface {
	schedkit.Job
	// Budget is B, the most the user will pay for the whole job, in the
	// currency of Config prices. Zero means "no budget" and is allowed
	// only with Phi 1 (a job that cares only for its deadline).
	Budget() float64
	// Phi is the time-influence factor φ: 1 (deadline only, High queue),
	// 0.5 (both equally, Mid queue) or 0 (budget only, Low queue).
	Phi() float64
	// CostSoFar is what the job has been charged up to now: its slot
	// seconds, each at the price of the queue the job was in when the
	// second was used. Read at Submit, and at a weight update when it
	// may have changed since it was last read (host duty 3: the job
	// held slots, was assigned one, or was Updated).
	CostSoFar() float64
	// DataSizes returns δ, the job's input size, and f·δ, the reduce
	// input, in bytes: model 2's shuffle time is f·δ·Td (Td from
	// Config.TransferRate). Zero when unknown.
	DataSizes() (input, reduceInput int64)
}

// TaskTimeHinter is optionally implemented by a Job that knows an
// a-priori task time (a user's hint, or a host's mean from earlier runs
// of the same job). Models 1 and 2 use it until the job has a finished
// task of its own (formula (2) of package estimate is undefined before).
// A hint of zero or less means none. It is lss.TaskTimeHinter's method,
// so one host job type gives both schedulers the same hint.
type TaskTimeHinter interface {
	TaskTimeHint() time.Duration
}

// Queue is one of the three price-tiered queues.
type Queue uint8

// The queues, cheapest first. Promotion moves a job one step up.
const (
	Low  Queue = iota // LowtimeQueue, φ = 0
	Mid               // MidtimeQueue, φ = 0.5
	High              // HightimeQueue, φ = 1
	numQueues
)

// String returns "low", "mid" or "high".
func (q Queue) String() string {
	switch q {
	case Low:
		return "low"
	case Mid:
		return "mid"
	case High:
		return "high"
	}
	return fmt.Sprintf("Queue(%d)", uint8(q))
}

// QueueFor returns the queue of time-influence factor phi: High for 1,
// Mid for 0.5, Low for 0. ok is false for any other value (the paper
// restricts φ to these three "to lower the algorithm's complexity"; this
// package does not support a continuum).
func QueueFor(phi float64) (q Queue, ok bool) {
	switch phi {
	case 1:
		return High, true
	case 0.5:
		return Mid, true
	case 0:
		return Low, true
	}
	return 0, false
}

// Success is the paper's success rule (its Job4 example): a φ = 1 job
// succeeds if it met its deadline, a φ = 0 job if it stayed within its
// budget, a φ = 0.5 job if either holds. Any other φ never succeeds.
func Success(phi float64, deadlineMet, withinBudget bool) bool {
	switch phi {
	case 1:
		return deadlineMet
	case 0:
		return withinBudget
	case 0.5:
		return deadlineMet || withinBudget
	}
	return false
}

package schedkit

import (
	"time"

	"github.com/schedkit/schedkit/resource"
)

// SimilarityKey groups tasks that behave alike (paper 004 definition 3):
// tasks with the same execution logic and the same input size are similar,
// so demand observed on one predicts the others. The zero key means "no
// similarity information": such a task is unpredictable and is given its
// requested quantity.
type SimilarityKey struct {
	// Logic names the code the task runs (job type + phase, a function
	// hash, an image digest...). Hosts choose; equality is all that matters.
	Logic string
	// DataSize is the task's input size in bytes.
	DataSize int64
}

// IsZero reports whether k carries no similarity information.
func (k SimilarityKey) IsZero() bool { return k.Logic == "" && k.DataSize == 0 }

// Task is the host's read-only view of one pending task, as fine-grained
// matching (fgm) reads it. Returned slices and vectors belong to the host:
// the caller must not modify or retain them past the call that received
// them.
type Task interface {
	// ID identifies the task.
	ID() TaskID
	// Job returns the ID of the job the task belongs to.
	Job() JobID
	// Phase returns the task's phase within its job.
	Phase() Phase
	// Similarity returns the key used to find similar tasks' history.
	Similarity() SimilarityKey
	// Requested is the quantity the user declared (usually the peak, often
	// padded). Request-based schedulers allocate exactly this.
	Requested() resource.Vector
	// Deadline is the time by which the task must finish; the zero Time
	// means none.
	Deadline() time.Time
	// DataLocations lists the nodes holding the task's input, for
	// locality; empty means no preference.
	DataLocations() []NodeID
}

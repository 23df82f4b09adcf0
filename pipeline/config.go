package pipeline

import (
	"fmt"
	"reflect"

	"github.com/schedkit/schedkit"
)

// Limits on Config sizes. Queues are allocated up front, so a depth is
// capped to keep a typo from allocating gigabytes.
const (
	// MaxDepth is the largest ProcessQueue, WriteQueue, Batch or
	// MaxInFlight that Run accepts.
	MaxDepth = 1 << 20
	// MaxWorkers is the largest number of processing workers
	// (len(Accelerators) × Streams) that Run accepts.
	MaxWorkers = 1 << 12
)

// Config sizes a pipeline. There are no hidden defaults for the sizes that
// matter: Accelerators, Streams, ProcessQueue and WriteQueue must be set
// (Run reports a *ConfigError otherwise). Batch and MaxInFlight may be left
// zero.
type Config struct {
	// Accelerators are the devices the processing stage runs on. Each
	// gets Streams workers (goroutines), each calling Accelerator.Run
	// once per batch. At least one; no nil entries. Use CPU{} where there
	// is no device.
	Accelerators []schedkit.Accelerator
	// Streams is the number of processing workers per accelerator
	// (streams or queues on one device); at least 1. The paper has one
	// processing thread: one accelerator with Streams 1.
	Streams int
	// ProcessQueue is the depth, in items, of the queue between the read
	// and process stages; at least 1. It bounds the queue, not the items
	// between the two stages: a lone worker takes everything queued at
	// once (up to ProcessQueue) and several workers Batch each, so the
	// read stage can run ahead of processing by up to 1 + ProcessQueue +
	// ProcessQueue (lone worker) or + workers × Batch. The whole bound on
	// items in flight is InFlightBound; MaxInFlight caps it exactly.
	ProcessQueue int
	// WriteQueue is the depth, in results, of the queue between the
	// process and write stages; at least 1. The writer takes everything
	// queued at once, so a stalled Write holds up to WriteQueue results
	// besides the queue's WriteQueue (see InFlightBound).
	WriteQueue int
	// Batch is the most items a worker hands to one Accelerator.Run
	// call (and one ProcessBatch call). Stages never wait to fill a
	// batch: a worker takes what is queued, up to Batch (a lone worker
	// takes everything queued and runs it Batch items at a time), so a
	// lone item is never held back. Zero means 1: every item gets its own
	// Accelerator.Run. Larger batches share the per-call cost among small
	// items.
	Batch int
	// Ordered makes the write stage hand each requester's results to
	// Write in the order its items were read, whatever order the workers
	// finish them in. Results of different requesters are not ordered
	// with respect to each other.
	Ordered bool
	// MaxInFlight caps the items read but not yet written or dropped.
	// With Ordered it bounds the reorder buffers; zero then means twice
	// InFlightBound. Without Ordered the queues already bound the items
	// in flight (see InFlightBound) and zero means no further cap.
	MaxInFlight int
}

// workers returns the number of processing workers.
func (c Config) workers() int { return len(c.Accelerators) * c.Streams }

// batch returns Batch with 0 read as 1.
func (c Config) batch() int { return max(c.Batch, 1) }

// InFlightBound returns the most items that can be read but not yet
// written or dropped when MaxInFlight is zero and Ordered is false: the
// item the reader holds, ProcessQueue, what the workers hold (ProcessQueue
// for a lone worker, which takes everything queued; Batch each for
// several), WriteQueue, and what the writer holds (it takes everything
// queued, so WriteQueue):
//
//	1 + ProcessQueue + held + 2×WriteQueue
//
// A stalled writer therefore stops the reader after at most this many
// items. It assumes c is valid.
func (c Config) InFlightBound() int {
	held := c.workers() * c.batch()
	if c.workers() == 1 {
		held = c.ProcessQueue
	}
	return 1 + c.ProcessQueue + held + 2*c.WriteQueue
}

// inFlightLimit returns the effective in-flight cap, 0 for none.
func (c Config) inFlightLimit() int {
	switch {
	case c.MaxInFlight > 0:
		return c.MaxInFlight
	case c.Ordered:
		return 2 * c.InFlightBound()
	}
	return 0
}

// Validate reports the first problem with c as a *ConfigError, or nil.
func (c Config) Validate() error {
	if len(c.Accelerators) == 0 {
		return &ConfigError{Field: "Accelerators", Reason: "no accelerator (use CPU{} for none)"}
	}
	for i, a := range c.Accelerators {
		if a == nil {
			return &ConfigError{Field: fmt.Sprintf("Accelerators[%d]", i), Reason: "nil accelerator"}
		}
		if v := reflect.ValueOf(a); v.Kind() == reflect.Pointer && v.IsNil() {
			return &ConfigError{Field: fmt.Sprintf("Accelerators[%d]", i), Reason: fmt.Sprintf("nil accelerator (a typed nil %T)", a)}
		}
	}
	if err := atLeast("Streams", c.Streams, 1); err != nil {
		return err
	}
	if c.Streams > MaxWorkers || c.workers() > MaxWorkers {
		return &ConfigError{Field: "Streams", Reason: fmt.Sprintf(
			"%d accelerators × %d streams exceeds %d workers", len(c.Accelerators), c.Streams, MaxWorkers)}
	}
	if err := atLeast("ProcessQueue", c.ProcessQueue, 1); err != nil {
		return err
	}
	if err := atLeast("WriteQueue", c.WriteQueue, 1); err != nil {
		return err
	}
	if err := atLeast("Batch", c.Batch, 0); err != nil {
		return err
	}
	if err := atLeast("MaxInFlight", c.MaxInFlight, 0); err != nil {
		return err
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"ProcessQueue", c.ProcessQueue}, {"WriteQueue", c.WriteQueue}, {"Batch", c.Batch}, {"MaxInFlight", c.MaxInFlight}} {
		if f.v > MaxDepth {
			return &ConfigError{Field: f.name, Reason: fmt.Sprintf("%d exceeds MaxDepth %d", f.v, MaxDepth)}
		}
	}
	return nil
}

func atLeast(field string, v, lo int) error {
	if v < lo {
		return &ConfigError{Field: field, Reason: fmt.Sprintf("must be at least %d, got %d", lo, v)}
	}
	return nil
}

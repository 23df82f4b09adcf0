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
// (Run reports an *Error wrapping ErrConfig otherwise). Batch and MaxInFlight may be left
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
	// and process stages; at least 1. It bounds that queue, not the items
	// between the two stages: the workers hold what they took besides
	// (see InFlightBound, the one bound on the items in flight).
	ProcessQueue int
	// WriteQueue is the depth, in results, of the queue between the
	// process and write stages; at least 1. The writer takes everything
	// queued at once, so it holds up to WriteQueue results besides the
	// queue's (see InFlightBound).
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
	// MaxInFlight caps the items read but not yet written or dropped
	// (see InFlightBound); the reader waits while that many are in
	// flight. Zero means: with Ordered, twice what the queues hold (the
	// cap also bounds the reorder buffers); without, no cap beyond the
	// queues.
	MaxInFlight int
}

// workers returns the number of processing workers.
func (c Config) workers() int { return len(c.Accelerators) * c.Streams }

// batch returns Batch with 0 read as 1.
func (c Config) batch() int { return max(c.Batch, 1) }

// InFlightBound returns the most items that can be read but not yet
// written or dropped, in every mode: a writer that stalls stops the
// reader after at most this many items. It assumes c is valid.
//
// The queues and what the goroutines hold of them come to
//
//	Q = 1 + ProcessQueue + held + 2×WriteQueue
//
// the item the reader holds, the process queue, what the workers hold
// (ProcessQueue for a lone worker, which takes everything queued; Batch,
// or 1 if zero, for each of several), the write queue, and what the
// writer holds (it takes everything queued: WriteQueue). Without Ordered
// that is all there is, and the bound is Q, or MaxInFlight if that is
// set and smaller. With Ordered, results that arrive ahead of their turn
// leave the write queue for a reorder buffer, which no queue bounds; the
// in-flight cap does: the bound is MaxInFlight, or 2×Q if it is zero.
func (c Config) InFlightBound() int {
	q := c.queueBound()
	switch {
	case c.Ordered && c.MaxInFlight > 0:
		return c.MaxInFlight
	case c.Ordered:
		return 2 * q
	case c.MaxInFlight > 0:
		return min(q, c.MaxInFlight)
	}
	return q
}

// queueBound returns Q in InFlightBound: the items the queues and the
// goroutines that take from them can hold.
func (c Config) queueBound() int {
	held := c.workers() * c.batch()
	if c.workers() == 1 {
		held = c.ProcessQueue
	}
	return 1 + c.ProcessQueue + held + 2*c.WriteQueue
}

// inFlightLimit returns the cap the reader's gate enforces, 0 for none.
func (c Config) inFlightLimit() int {
	switch {
	case c.MaxInFlight > 0:
		return c.MaxInFlight
	case c.Ordered:
		return 2 * c.queueBound()
	}
	return 0
}

// Validate reports the first problem with c as an *Error wrapping
// ErrConfig, or nil. Run validates its Config the same way.
func (c Config) Validate() error { return c.validate("Validate") }

func (c Config) validate(op string) error {
	if len(c.Accelerators) == 0 {
		return configError(op, "Accelerators", "no accelerator (use CPU{} for none)")
	}
	for i, a := range c.Accelerators {
		if a == nil {
			return configError(op, fmt.Sprintf("Accelerators[%d]", i), "nil accelerator")
		}
		if v := reflect.ValueOf(a); v.Kind() == reflect.Pointer && v.IsNil() {
			return configError(op, fmt.Sprintf("Accelerators[%d]", i), fmt.Sprintf("nil accelerator (a typed nil %T)", a))
		}
	}
	if err := atLeast(op, "Streams", c.Streams, 1); err != nil {
		return err
	}
	if c.Streams > MaxWorkers || c.workers() > MaxWorkers {
		return configError(op, "Streams", fmt.Sprintf(
			"%d accelerators × %d streams exceeds %d workers", len(c.Accelerators), c.Streams, MaxWorkers))
	}
	if err := atLeast(op, "ProcessQueue", c.ProcessQueue, 1); err != nil {
		return err
	}
	if err := atLeast(op, "WriteQueue", c.WriteQueue, 1); err != nil {
		return err
	}
	if err := atLeast(op, "Batch", c.Batch, 0); err != nil {
		return err
	}
	if err := atLeast(op, "MaxInFlight", c.MaxInFlight, 0); err != nil {
		return err
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"ProcessQueue", c.ProcessQueue}, {"WriteQueue", c.WriteQueue}, {"Batch", c.Batch}, {"MaxInFlight", c.MaxInFlight}} {
		if f.v > MaxDepth {
			return configError(op, f.name, fmt.Sprintf("%d exceeds MaxDepth %d", f.v, MaxDepth))
		}
	}
	return nil
}

func atLeast(op, field string, v, lo int) error {
	if v < lo {
		return configError(op, field, fmt.Sprintf("must be at least %d, got %d", lo, v))
	}
	return nil
}

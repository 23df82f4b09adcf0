package pipeline

import (
	"context"

	"github.com/schedkit/schedkit"
)

// Item is one task as the read stage returns it: the input to process and
// the requester that sent it, where its result goes back.
type Item[I any] struct {
	// Requester is the node that sent the task (an NNode bound to this
	// node, in the paper's terms). Its result is addressed to it, and
	// ordering (Config.Ordered) is per requester.
	Requester schedkit.NodeID
	// Input is what the processing stage works on.
	Input I
}

// Result is an item after the processing stage, as the write stage (or
// Stages.Drop) receives it.
type Result[I, R any] struct {
	// Requester is the item's requester: the node to send the result to.
	Requester schedkit.NodeID
	// Seq is the item's position among the items read from Requester
	// during this Run, counting from 0.
	Seq uint64
	// Device is the ID (from Info, read once when Run starts) of the
	// accelerator that ran the item's batch, successfully or not; empty if
	// the pipeline stopped before any ran it.
	Device schedkit.AcceleratorID
	// Input is the item's input, as read.
	Input I
	// Output is the processing stage's output; meaningful only when Err
	// is nil and the item was processed.
	Output R
	// Err is the processing error: the Process function's, or the
	// accelerator's when Accelerator.Run failed for the item's batch. A
	// result with an error is still written, so that its requester
	// learns of the failure.
	Err error
}

// Stages are the host's three functions, plus an optional hook for items
// that are not written. They are called from the pipeline's goroutines:
// Read from one, Process or ProcessBatch from every worker concurrently,
// Write from one. Each receives a context that is done when the pipeline
// stops (cancellation or a fatal stage error) and must then return soon:
// Run waits for every call in progress before returning.
type Stages[I, R any] struct {
	// Read returns the next item. It blocks until one arrives. It returns
	// io.EOF itself (not wrapped, as io.Reader does) at the end of input:
	// the pipeline then drains, processing and writing every item already
	// read, and Run returns nil. Any other error is fatal: reading stops,
	// the items already read are still processed and written, and Run
	// returns a *StageError for StageRead. The Item returned with a
	// non-nil error is ignored. Required.
	Read func(ctx context.Context) (Item[I], error)
	// Process computes one item's output. It runs inside
	// Accelerator.Run, on the worker's device. An error fails that item
	// only: the result is written with Err set. Exactly one of Process
	// and ProcessBatch must be set.
	Process func(ctx context.Context, in I) (R, error)
	// ProcessBatch computes the outputs of up to Config.Batch items in one
	// call, for devices that launch one kernel per batch: it sets out[i]
	// and errs[i] for every in[i] (the three slices have equal lengths;
	// errs comes zeroed). It runs inside one Accelerator.Run. The slices
	// are reused after it returns: it must not retain them.
	ProcessBatch func(ctx context.Context, in []I, out []R, errs []error)
	// Write returns a result to its requester. It receives every
	// processed item, failed or not. Returning nil counts the item as
	// written. An error wrapping ErrUndeliverable drops that item only
	// (reported to Drop) and the pipeline goes on. Any other error is
	// fatal: the pipeline stops at once, the item and every other item
	// not yet written are dropped, and Run returns a *StageError for
	// StageWrite. Required.
	Write func(ctx context.Context, r Result[I, R]) error
	// Drop, if not nil, is told about each item that was read but will
	// not be written, with the reason: the ErrUndeliverable error Write
	// returned (called from the write goroutine, as it happens), or what
	// stopped the pipeline, ctx.Err() or the write stage's *StageError
	// (called from Run's own goroutine after every pipeline goroutine has
	// exited, in order of requester then Seq). r holds what is known of
	// the item: Device, Output and Err are set if a worker ran it.
	// Calls never overlap.
	Drop func(r Result[I, R], reason error)
}

func (s *Stages[I, R]) validate() error {
	switch {
	case s.Read == nil:
		return configError("Run", "Stages.Read", "nil function")
	case s.Process == nil && s.ProcessBatch == nil:
		return configError("Run", "Stages.Process", "nil function (set Process or ProcessBatch)")
	case s.Process != nil && s.ProcessBatch != nil:
		return configError("Run", "Stages.ProcessBatch", "both Process and ProcessBatch set")
	case s.Write == nil:
		return configError("Run", "Stages.Write", "nil function")
	}
	return nil
}

// Package pipeline serves accelerator tasks on a node that has
// accelerators: the three-stage remote-read → process → remote-write
// pipeline of paper 001 §2.4 (Figure 4), on goroutines and bounded queues.
//
// In the paper an accelerator node runs a special container (AcCt) with
// three threads and two blocking queues: a remote-read thread takes tasks
// sent by other nodes into a processing queue, a processing thread runs
// them on the accelerator, and a remote-write thread returns each result,
// from a write queue, to the node that sent the task. Reading, computing
// and writing overlap instead of contending for the device. This package
// is that pipeline with the transport left to the host: the host's Read
// and Write functions do the network I/O, its Process function does the
// computing, and each processing call runs inside a schedkit.Accelerator.
//
//	requests --> Read --> [process queue] --> W workers --> [write queue] --> Write --> results
//	(from other            ProcessQueue       each calls        WriteQueue               (to each
//	 nodes)                items, bounded     Accelerator.Run   items, bounded            requester)
//
// # Usage
//
// Fill a Config and a Stages value and call Run. It returns when the input
// ends (Read returns io.EOF) and everything read has been written, when ctx
// is cancelled, or when the reader or writer fails:
//
//	cfg := pipeline.Config{
//		Accelerators: []schedkit.Accelerator{pipeline.CPU{ID: "cpu0"}}, // or the host's GPUs
//		Streams:      1, // workers per accelerator
//		ProcessQueue: 64,
//		WriteQueue:   64,
//		Ordered:      true, // each requester gets its results in the order it sent them
//	}
//	stats, err := pipeline.Run(ctx, cfg, pipeline.Stages[Task, Answer]{
//		Read:    conn.NextTask,   // func(ctx) (pipeline.Item[Task], error)
//		Process: solve,           // func(ctx, Task) (Answer, error)
//		Write:   conn.SendResult, // func(ctx, pipeline.Result[Task, Answer]) error
//		Drop:    logLost,         // optional: items that will never be written
//	})
//
// Stats tells which stage limits throughput (Stats.Bottleneck), how long
// each stage was busy and blocked on each queue, and how full the queues
// got.
//
// # Host duties
//
// The host's functions must:
//
//  1. Read: block until the next item arrives; return io.EOF itself (not
//     wrapped) at the end of input, any other error to stop reading.
//  2. Process or ProcessBatch: be safe to call from every worker at once;
//     report an item's failure as its error (the result is still
//     written), never by panicking (a panic is recovered into a
//     *StageError wrapping *PanicError, but it is a bug). An
//     Accelerator's Run runs work synchronously, once, and returns its
//     error (a Run that returns nil without running it fails the batch
//     with ErrWorkNotRun).
//  3. Write: return nil once the result is delivered, an error wrapping
//     ErrUndeliverable when its requester has gone, any other error only
//     when the writer itself is broken (it stops the pipeline).
//  4. Drop: tell the requester; every item read and not written reaches
//     Drop exactly once, with the reason.
//  5. All of them: return soon once their ctx is done; Run waits for
//     them.
//  6. The host stops a run by cancelling ctx, reads Stats (String prints
//     them) to find the bottleneck, and in its tests wraps its stages in
//     a pipelinetest.Ledger.
//
// # Semantics
//
// Back-pressure. At most Config.InFlightBound items are read but not yet
// written or dropped, in every mode: a slow writer stalls the workers and
// then the reader, never memory. Both queues are bounded (ProcessQueue,
// WriteQueue items), and so is what each goroutine takes from them;
// with Ordered, results that arrive ahead of their turn leave the write
// queue for a reorder buffer, and the cap on items in flight
// (MaxInFlight, by default twice what the queues hold) bounds those.
// InFlightBound gives the formula.
//
// Cancellation. When ctx is done every stage stops: queue waits return at
// once, no Read, Process batch or Write starts after the stage sees it,
// and the stage functions get a context that is done, so a blocked Read or
// Write must return. Run returns only after every goroutine it started has
// exited (and after every call of a host function has returned).
//
// Accounting. Every item read is accounted for exactly once: written (Write
// returned nil for it) or dropped (reported to Stages.Drop with the
// reason), and Stats.Read.Items == Stats.Write.Items + Stats.Dropped.
// A processing failure does not stop the pipeline and does not drop the
// item: its Result carries the error and is written, so the requester,
// which waits for an answer asynchronously, learns of it. A Write that
// returns an error wrapping ErrUndeliverable drops that one result.
//
// Fatal errors. Any other Write error means the writer is broken: the
// pipeline stops at once, the unwritten items are dropped, and Run returns
// a *StageError for StageWrite. A Read error other than io.EOF means the
// reader is broken: reading stops, but the items already read are still
// processed and written (they can still be delivered), then Run returns a
// *StageError for StageRead. errors.As finds the stage; errors.Is matches
// ErrStageFailed and the host's error.
//
// End of input. Read returns io.EOF itself, unwrapped, at the end of input,
// as io.Reader does (a wrapped io.EOF is an ordinary, fatal error, like
// io.ErrUnexpectedEOF). The pipeline drains: queued items are processed and
// written before Run returns nil. io.EOF was chosen over a package
// sentinel because hosts that read from a stream already return it.
//
// Routing and order. Each Item names its requester (the node that sent
// the task); its Result carries the same requester and a sequence number,
// its position among that requester's items, so the host's Write sends it
// back to the right node. With Ordered, each requester's results reach
// Write in the order its items were read, even with several workers
// finishing out of order: results that arrive early wait in a per-requester
// reorder buffer (a min-heap on the sequence number) until their
// predecessors are written. Requesters do not wait for each other. The
// buffers are bounded because Ordered caps the items in flight
// (Config.InFlightBound): the reader waits when the cap is reached, so
// all reorder buffers together hold fewer results than that. The waiting cannot deadlock: the items that
// complete a requester's sequence are already read.
//
// # Beyond the paper
//
// Several workers: Config.Streams workers per accelerator, so one
// pipeline can drive several devices, or several streams on one device,
// with the ordering guarantee above. The paper's setting is one
// accelerator, Streams 1.
//
// Batching: Config.Batch lets a worker hand up to Batch queued items to a
// single Accelerator.Run call (and to Stages.ProcessBatch, for devices that
// launch one kernel per batch). Nothing waits for a batch to fill: a
// worker takes what is queued when it is free, so batching costs no
// latency and appears only under load.
//
// Statistics: per stage, items, failures, busy time, time blocked on the
// input and output queue, and each queue's high-water mark.
//
// # Design choices
//
// The queues are bounded rings rather than channels: a consumer takes
// every queued item (up to its limit) at once, so the per-item cost of a
// handoff falls as load rises, and a queue knows its own depth for the
// statistics. The writer, being the write queue's only consumer, takes
// everything queued; so does a lone worker, which then runs it Batch
// items at a time. The rings are lock-free between their two sides: one
// atomic add publishes an item (and gives the exact depth for the
// high-water mark), and a side parks on a channel only when its ring is
// empty or full, after yielding the processor once; the reader writes
// each item straight into its slot. With several workers, their side of
// each ring is shared by taking turns (a channel token), once per take
// or put of a batch, so the reader and the writer never lock. Context
// cancellation reaches waiting goroutines through context.AfterFunc,
// which stops both queues. Timing costs nothing on the fast path: the
// clock is read only around waits that actually block, and busy time is
// each goroutine's lifetime minus its waits.
//
// Accelerator.Run is called once per batch with a work function bound
// once per worker (no allocation per item). The pipeline relies on Run
// being synchronous, as the root contract describes it ("executes work and
// returns work's error"): when Run returns, work has returned or will
// never be called. If Run returns an error, every item of the batch
// without an error of its own fails with it (the device's result cannot
// be trusted). If Run returns nil without having called work, the
// batch's items fail with a *StageError wrapping ErrWorkNotRun: an item
// is never passed off as processed when it was not.
//
// Panics. A panic in one of the host's functions is recovered (see
// PanicError), so that a long-running node is not taken down by one bad
// item, and costs nothing per item: each goroutine has one deferred
// recover around its whole loop. The reader and the writer stop after a
// panic, as after an error. A worker's state says where in a batch it
// is, so after a panic it fails the items concerned and resumes the
// batch. The one exception is the work function handed to a device's
// Accelerator.Run: the device may run it on a goroutine of its own,
// which the worker's recover cannot reach, so it has its own, one per
// Run call; a Process panic there fails its item and work goes on with
// the rest of the batch, without unwinding through Accelerator.Run.
//
// Run keeps a small record per distinct requester (its next sequence
// number and reorder buffer) for its whole life; an accelerator node
// serves the bounded set of nodes bound to it.
//
// # Concurrency
//
// Read and Write are each called from a single goroutine, never
// concurrently with themselves; Process and ProcessBatch are called from
// every worker at once; Drop calls never overlap each other or Write.
// Several Runs may run at once; a Config and a Stages value may be reused.
package pipeline

package pipeline

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit"
)

// Run serves items until the input ends, ctx is done, or the reader or
// writer fails. It starts one read goroutine, len(cfg.Accelerators) ×
// cfg.Streams processing workers and one write goroutine, connected by two
// bounded queues, and returns only after all of them have exited.
//
// Run returns nil after a graceful drain (Read returned io.EOF and every
// item read was written or undeliverable); otherwise the first of: a
// *StageError if Read or Write failed, or ctx.Err() if ctx ended the run
// early. Before starting anything it returns an *Error (wrapping ErrConfig) if cfg or s
// is invalid, or ctx.Err() if ctx is already done. Except for those two
// early returns, each item read has been written exactly once or reported
// to s.Drop exactly once when Run returns, and Stats says how many of
// each.
func Run[I, R any](ctx context.Context, cfg Config, s Stages[I, R]) (Stats, error) {
	if err := cfg.validate("Run"); err != nil {
		return Stats{}, err
	}
	if err := s.validate(); err != nil {
		return Stats{}, err
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	p := &run[I, R]{
		cfg:    cfg,
		s:      s,
		parent: ctx,
		batch:  cfg.batch(),
		pq:     newRing[item[I, R]](cfg.ProcessQueue, 1, cfg.workers()),
		wq:     newRing[item[I, R]](cfg.WriteQueue, cfg.workers(), 1),
	}
	if limit := cfg.inFlightLimit(); limit > 0 {
		p.gate = newGate(limit)
	}
	return p.run()
}

// run is the state of one Run call.
type run[I, R any] struct {
	cfg    Config
	s      Stages[I, R]
	parent context.Context
	ctx    context.Context // parent, or cancelled by a fatal write error
	cancel context.CancelFunc
	batch  int
	pq, wq *ring[item[I, R]] // the process and write queues
	gate   *gate             // nil without an in-flight cap
	wg     sync.WaitGroup
	live   atomic.Int32 // processing workers still running

	mu        sync.Mutex
	cause     error              // Run's error: the first failure or interruption
	stopCause error              // what stopped the goroutines: ctx or a write failure
	leftovers []item[I, R]       // items held by goroutines when they stopped
	stats     Stats              // each goroutine adds its own part on exit
	dropped   int64              // undeliverable results
	held      []*requester[I, R] // writer: requesters that buffered results
}

func (p *run[I, R]) run() (Stats, error) {
	p.ctx, p.cancel = context.WithCancel(p.parent)
	defer p.cancel()
	stopped := make(chan struct{})
	stopAfter := context.AfterFunc(p.ctx, func() {
		p.pq.stop()
		p.wq.stop()
		if p.gate != nil {
			p.gate.stop()
		}
		close(stopped)
	})

	workers := make([]*worker[I, R], 0, p.cfg.workers())
	for _, acc := range p.cfg.Accelerators {
		dev := acc.Info().ID
		for range p.cfg.Streams {
			w := &worker[I, R]{p: p, acc: acc, dev: dev}
			w.cpu, w.isCPU = acc.(CPU)
			w.runFn = w.guardedWork
			workers = append(workers, w)
		}
	}
	p.live.Store(int32(len(workers)))

	start := time.Now()
	p.wg.Add(2 + len(workers))
	go p.read()
	for _, w := range workers {
		go w.loop()
	}
	go p.write()
	p.wg.Wait()
	elapsed := time.Since(start)
	if !stopAfter() {
		<-stopped // the stop function ran or is running: wait for it
	}

	st := p.stats
	st.Elapsed = elapsed
	st.Read.Workers, st.Process.Workers, st.Write.Workers = 1, len(workers), 1
	st.ProcessQueue = QueueStats{Depth: p.cfg.ProcessQueue, HighWater: p.pq.highWater()}
	st.WriteQueue = QueueStats{Depth: p.cfg.WriteQueue, HighWater: p.wq.highWater()}

	left := p.wq.drain(p.pq.drain(p.leftovers))
	for _, r := range p.held {
		left = append(left, r.pending...)
		r.pending = nil
	}
	st.Dropped = p.dropped + int64(len(left))
	err := p.cause
	if len(left) > 0 {
		reason := p.stopCause
		if reason == nil {
			reason = errLost // unreachable: items are left only after a stop
		}
		slices.SortFunc(left, func(a, b item[I, R]) int {
			return cmp.Or(cmp.Compare(a.Requester, b.Requester), cmp.Compare(a.Seq, b.Seq))
		})
		for _, it := range left {
			p.drop(it.Result, reason)
		}
	}
	if err == nil {
		err = p.cause // a panic in Drop
	}
	return st, err
}

// errLost would be the drop reason for items left over after a run that
// did not stop early; no such run exists.
var errLost = errors.New("pipeline: item left over after a clean end")

// isDone reports, without blocking, whether the pipeline's context is
// done.
func (p *run[I, R]) isDone() bool {
	return p.ctx.Err() != nil
}

// fail records err as the reason the pipeline stopped, unless one is
// recorded already.
func (p *run[I, R]) fail(err error) {
	p.mu.Lock()
	if p.cause == nil {
		p.cause = err
	}
	p.mu.Unlock()
}

// stop records err as what stopped the pipeline early (the reason given
// for dropped items) and as Run's error, unless earlier ones are recorded.
func (p *run[I, R]) stop(err error) {
	p.mu.Lock()
	if p.cause == nil {
		p.cause = err
	}
	if p.stopCause == nil {
		p.stopCause = err
	}
	p.mu.Unlock()
}

// interrupted records that a goroutine stopped because the context is
// done. A fatal write error records itself before cancelling, so the
// error recorded here is the parent context's.
func (p *run[I, R]) interrupted() {
	err := p.parent.Err()
	if err == nil {
		err = p.ctx.Err()
	}
	p.stop(err)
}

// leave records items a goroutine held when it stopped.
func (p *run[I, R]) leave(its ...item[I, R]) {
	p.mu.Lock()
	p.leftovers = append(p.leftovers, its...)
	p.mu.Unlock()
}

// read is the remote-read goroutine.
func (p *run[I, R]) read() {
	defer p.wg.Done()
	start := time.Now()
	var st StageStats
	p.readAll(&st)
	p.pq.close()
	st.Busy = time.Since(start) - st.BlockedOut
	p.stats.Read = st // only this goroutine writes it; Run reads it after Wait
}

// readAll reads until the input ends, the reader fails or the pipeline
// stops. A panic in Read (the only host function it calls) stops
// reading as a read error does: one deferred recover for the whole loop,
// not one per item, since nothing is resumed after it. Read is called
// before the item's queue slot is taken, so a panic leaves no slot half
// filled.
func (p *run[I, R]) readAll(st *StageStats) {
	defer func() {
		if v := recover(); v != nil {
			p.fail(recovered(StageRead, v))
		}
	}()
	read := p.s.Read
	reqs := make(map[schedkit.NodeID]*requester[I, R])
	var last *requester[I, R]
	slots := 0 // MaxInFlight slots taken from the gate and not yet used
	for {
		if p.isDone() {
			p.interrupted()
			return
		}
		if p.gate != nil && slots == 0 {
			if slots = p.gate.acquire(&st.BlockedOut); slots == 0 {
				p.interrupted()
				return
			}
		}
		in, err := read(p.ctx)
		if err != nil {
			switch {
			case p.isDone():
				p.interrupted()
			case err == io.EOF: // returned unwrapped, as io.Reader does: a graceful end
			default:
				p.fail(&StageError{Stage: StageRead, Err: err})
			}
			return
		}
		slots--
		r := last
		if r == nil || r.id != in.Requester {
			r = reqs[in.Requester]
			if r == nil {
				r = &requester[I, R]{id: in.Requester}
				reqs[in.Requester] = r
			}
			last = r
		}
		st.Items++
		// Fill the queue's next slot in place. It is zero, so only
		// these fields need writing, and no item is built and copied.
		if x := p.pq.slot(&st.BlockedOut); x != nil {
			x.Requester, x.Seq, x.Input, x.req = in.Requester, r.next, in.Input, r
			r.next++
			p.pq.commit()
			continue
		}
		// The queue is stopping.
		p.leave(item[I, R]{Result: Result[I, R]{Requester: in.Requester, Seq: r.next, Input: in.Input}, req: r})
		p.interrupted()
		return
	}
}

// worker is one processing goroutine, bound to one accelerator.
//
// Its state says where it is, so that a panic of a host function can be
// recovered once per worker loop rather than once per item or batch:
// serve recovers it, fails the items it concerns (see recover), and
// loop calls serve again, which resumes the batch where it stopped.
type worker[I, R any] struct {
	p     *run[I, R]
	acc   schedkit.Accelerator
	cpu   CPU  // acc, when it is a CPU
	isCPU bool // acc is a CPU: call its Run statically
	dev   schedkit.AcceleratorID
	runFn func(context.Context) error // w.guardedWork, bound once
	buf   []item[I, R]                // what the last take returned
	held  []item[I, R]                // the part of buf not yet passed on
	batch []item[I, R]                // the group being processed: a prefix of held, nil between groups
	from  int                         // the first item of batch the current Accelerator.Run call covers
	next  int                         // work: the next item of batch to process
	phase phase                       // where a panic would come from
	ins   []I                         // ProcessBatch buffers
	outs  []R
	errs  []error
}

// phase is where a worker is in a batch, which tells recover which host
// function panicked.
type phase uint8

const (
	phaseIdle    phase = iota // between batches: in the pipeline's own code
	phaseRun                  // inside Accelerator.Run, outside work
	phaseProcess              // in work, calling Process for batch[next]
	phaseBatch                // in work, calling ProcessBatch
	phaseWorked               // work returned; Accelerator.Run has not
)

func (w *worker[I, R]) loop() {
	p := w.p
	defer p.wg.Done()
	start := time.Now()
	var st StageStats
	for !w.serve(&st) {
	}
	if p.live.Add(-1) == 0 {
		p.wq.close()
	}
	st.Busy = time.Since(start) - st.BlockedIn - st.BlockedOut
	p.mu.Lock()
	ps := &p.stats.Process
	ps.Items += st.Items
	ps.Failed += st.Failed
	ps.Busy += st.Busy
	ps.BlockedIn += st.BlockedIn
	ps.BlockedOut += st.BlockedOut
	p.mu.Unlock()
}

// serve takes items and processes them until the queue ends or the
// pipeline stops, and then reports true. If a host function panics, it
// recovers the panic, fails the items concerned, and reports false: loop
// calls it again, and it resumes where it stopped. This one deferred
// recover is all the panic containment costs on the fast path.
func (w *worker[I, R]) serve(st *StageStats) (done bool) {
	defer func() {
		if v := recover(); v != nil {
			w.recover(v)
		}
	}()
	p := w.p
	// A lone worker takes everything queued in one go (it would process
	// it in this order anyway) and runs it in groups of Batch; workers
	// that share the queue take one group at a time, to share the load.
	grab := p.batch
	if p.cfg.workers() == 1 {
		grab = max(p.batch, p.cfg.ProcessQueue)
	}
	if w.batch != nil && !w.process(st) { // resume after a panic
		return true
	}
	for {
		var ok bool
		w.buf, ok = p.pq.retake(w.buf, grab, &st.BlockedIn)
		w.held = w.buf
		if !ok {
			if p.isDone() {
				p.interrupted()
			}
			return true
		}
		if !w.process(st) {
			return true
		}
	}
}

// recover fails the items a panic concerns and leaves the worker ready
// to resume: a Process panic (here only on a CPU: a device's work
// recovers its own, see guardedWork) fails its own item and the rest of
// the batch runs in a new call; a ProcessBatch panic fails the batch; a
// panic of Accelerator.Run itself fails every item of the batch that has
// no error of its own (the device's results cannot be trusted). A panic
// outside a batch is the pipeline's own bug: it is not recovered.
func (w *worker[I, R]) recover(v any) {
	switch w.phase {
	case phaseProcess, phaseBatch:
		w.failPanic(v)
		w.from = w.next
	case phaseRun, phaseWorked:
		err := recovered(StageProcess, v)
		for i := range w.batch {
			if w.batch[i].Err == nil {
				w.batch[i].Err = err
			}
		}
		w.next, w.from = len(w.batch), len(w.batch)
	default:
		panic(v)
	}
	w.phase = phaseIdle
}

// failPanic fails the items a panic of Process (the item at w.next) or
// ProcessBatch (the whole batch) concerns, and moves w.next past them.
func (w *worker[I, R]) failPanic(v any) {
	err := recovered(StageProcess, v)
	var zero R
	if w.phase == phaseProcess {
		w.batch[w.next].Output, w.batch[w.next].Err = zero, err
		w.next++
		return
	}
	for i := range w.batch {
		w.batch[i].Output, w.batch[i].Err = zero, err
	}
	clear(w.ins)
	clear(w.outs)
	clear(w.errs)
	w.next = len(w.batch)
}

// process runs the held items in groups of Batch, one Accelerator.Run
// per group, and queues each group's results for the writer. It reports
// false, leaving the unfinished items to Run, if the pipeline stopped.
// Called with a group in progress (w.batch set, after a panic), it
// finishes that group first.
func (w *worker[I, R]) process(st *StageStats) bool {
	p := w.p
	for len(w.held) > 0 {
		if w.batch == nil {
			if p.isDone() {
				p.leave(w.held...)
				p.interrupted()
				return false
			}
			w.batch = w.held[:min(len(w.held), p.batch)]
			w.from, w.next = 0, 0
		}
		n := len(w.batch)
		if w.from < n {
			w.runOn()
		}
		for i := range w.batch {
			it := &w.batch[i]
			it.Device = w.dev
			if it.Err != nil {
				st.Failed++
			}
		}
		st.Items += int64(n)
		put := p.wq.putAll(w.batch, &st.BlockedOut)
		w.batch = nil
		if put < n {
			p.leave(w.held[put:]...)
			p.interrupted()
			return false
		}
		w.held = w.held[n:]
	}
	return true
}

// runOn hands batch[from:] to the worker's accelerator and fails the
// items it leaves unfinished: with Run's error if it returns one (every
// item without an error of its own), or with ErrWorkNotRun if it returns
// nil without work having run to the end.
func (w *worker[I, R]) runOn() {
	w.phase = phaseRun
	var err error
	if ctx := w.p.ctx; w.isCPU {
		// CPU.Run, written out: the same call without the dynamic
		// dispatch and the indirect call of work.
		if err = ctx.Err(); err == nil {
			err = w.work(ctx)
		}
	} else {
		err = w.acc.Run(ctx, w.runFn)
	}
	from := w.from
	if err == nil && w.phase != phaseWorked {
		// Run returned nil, but work never ran or did not finish (a
		// panic of it that Run recovered, if it can panic past work's
		// own recover at all): the items from next on have no result.
		err = &StageError{Stage: StageProcess, Err: ErrWorkNotRun}
		from = w.next
	}
	w.phase = phaseIdle
	w.from = len(w.batch)
	if err == nil {
		return
	}
	for i := from; i < len(w.batch); i++ {
		if it := &w.batch[i]; it.Err == nil {
			it.Err = err
		}
	}
}

// work processes the current batch from w.next on, recording each item's
// output and error. Called again within the same Accelerator.Run call,
// it does nothing: no item is processed twice. A CPU's batch calls it
// directly, on the worker's goroutine, so a panic in it reaches the
// worker loop's recover (serve).
func (w *worker[I, R]) work(ctx context.Context) error {
	if w.phase != phaseRun {
		return nil
	}
	if process := w.p.s.Process; process != nil {
		w.phase = phaseProcess
		for ; w.next < len(w.batch); w.next++ {
			it := &w.batch[w.next]
			it.Output, it.Err = process(ctx, it.Input)
		}
	} else {
		w.phase = phaseBatch
		w.processBatch(ctx)
		w.next = len(w.batch)
	}
	w.phase = phaseWorked
	return nil
}

// guardedWork is the work function handed to a device's Accelerator.Run:
// work with its own recover, one per Run call, because a device may run
// work on a goroutine of its own (a thread bound to the device), where
// the worker loop's recover cannot reach. A Process panic fails its item
// and work goes on with the next; a ProcessBatch panic fails the batch.
// Either way it does not unwind through Accelerator.Run.
func (w *worker[I, R]) guardedWork(ctx context.Context) error {
	for !w.tryWork(ctx) {
	}
	return nil
}

// tryWork runs work, reporting false if it recovered a Process panic and
// work must go on.
func (w *worker[I, R]) tryWork(ctx context.Context) (done bool) {
	defer func() {
		if v := recover(); v != nil {
			switch w.phase {
			case phaseProcess, phaseBatch:
				w.failPanic(v)
				if w.next < len(w.batch) {
					w.phase = phaseRun // go on with the rest of the batch
					return
				}
				w.phase = phaseWorked
				done = true
			default: // not from the host's functions: the pipeline's own bug
				panic(v)
			}
		}
	}()
	_ = w.work(ctx)
	return true
}

// processBatch makes one ProcessBatch call for the batch.
func (w *worker[I, R]) processBatch(ctx context.Context) {
	n := len(w.batch)
	w.ins = slices.Grow(w.ins[:0], n)[:n]
	w.outs = slices.Grow(w.outs[:0], n)[:n]
	w.errs = slices.Grow(w.errs[:0], n)[:n]
	for i := range w.batch {
		w.ins[i] = w.batch[i].Input
	}
	clear(w.outs)
	clear(w.errs)
	w.p.s.ProcessBatch(ctx, w.ins, w.outs, w.errs)
	for i := range w.batch {
		w.batch[i].Output, w.batch[i].Err = w.outs[i], w.errs[i]
	}
	clear(w.ins)
	clear(w.outs)
	clear(w.errs)
}

// write is the remote-write goroutine.
func (p *run[I, R]) write() {
	defer p.wg.Done()
	start := time.Now()
	var st StageStats
	p.writeAll(&st)
	st.Busy = time.Since(start) - st.BlockedIn
	p.stats.Write = st // only this goroutine writes it; Run reads it after Wait
}

// writeAll writes until the queue ends or the pipeline stops. A panic in
// Write is fatal, as a write error is: one deferred recover for the
// whole loop, not one per item. The recovery finds every item not yet
// written: buf[i:] (the item being written is buf[i], or popped when it
// came from a reorder buffer) and the reorder buffers (Run collects
// those through p.held).
func (p *run[I, R]) writeAll(st *StageStats) {
	var buf []item[I, R]
	var popped item[I, R] // the result from a reorder buffer being written
	i := 0                // buf[:i] are written, dropped, left over or held
	defer func() {
		if v := recover(); v != nil {
			p.stop(recovered(StageWrite, v))
			p.cancel()
			if popped.req != nil {
				p.leave(popped)
			}
			p.leave(buf[i:]...)
		}
	}()
	for stop := false; !stop; {
		var ok bool
		buf, ok = p.wq.retake(buf, p.cfg.WriteQueue, &st.BlockedIn)
		if !ok {
			if p.isDone() {
				p.interrupted()
			}
			return
		}
		finished := 0
		for i = 0; i < len(buf) && !stop; {
			it := &buf[i]
			if !p.cfg.Ordered {
				stop = !p.deliver(it, st)
				i++
				finished++
				continue
			}
			r := it.req
			if it.Seq != r.expect {
				if !r.listed {
					r.listed = true
					p.held = append(p.held, r)
				}
				r.hold(*it)
				i++
				continue
			}
			stop = !p.deliver(it, st)
			i++
			r.expect++
			finished++
			for !stop && r.ready() {
				popped = r.pop()
				stop = !p.deliver(&popped, st)
				popped = item[I, R]{}
				r.expect++
				finished++
			}
		}
		if stop {
			// Undelivered: the rest of this take. (Reorder buffers are
			// collected by Run through p.held.)
			p.leave(buf[i:]...)
		}
		if p.gate != nil {
			p.gate.release(finished)
		}
	}
}

// deliver writes one result. It reports false if the pipeline must stop:
// the context is done or the writer failed; the item is then left over.
func (p *run[I, R]) deliver(it *item[I, R], st *StageStats) bool {
	if p.isDone() {
		p.leave(*it)
		p.interrupted()
		return false
	}
	err := p.s.Write(p.ctx, it.Result)
	switch {
	case err == nil:
		st.Items++
		return true
	case errors.Is(err, ErrUndeliverable):
		st.Failed++
		p.dropped++ // only this goroutine writes it; Run reads it after Wait
		p.drop(it.Result, err)
		return true
	case p.isDone():
		p.leave(*it)
		p.interrupted()
		return false
	}
	p.stop(&StageError{Stage: StageWrite, Err: err})
	p.cancel()
	p.leave(*it)
	return false
}

// drop reports r to Stages.Drop, if set; a panic there becomes Run's
// error unless it has one.
func (p *run[I, R]) drop(r Result[I, R], reason error) {
	if p.s.Drop == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			p.fail(recovered(StageWrite, v))
		}
	}()
	p.s.Drop(r, reason)
}

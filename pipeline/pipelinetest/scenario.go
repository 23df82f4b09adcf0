package pipelinetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// Injected errors: what a Scenario makes its stages and devices fail with.
var (
	ErrProcess    = errors.New("pipelinetest: process failed")
	ErrDevice     = errors.New("pipelinetest: device failed")
	ErrReadFatal  = errors.New("pipelinetest: reader broken")
	ErrWriteFatal = errors.New("pipelinetest: writer broken")
	ErrGone       = fmt.Errorf("pipelinetest: requester gone: %w", pipeline.ErrUndeliverable)
)

// FlakyAccelerator is an accelerator for the property tests. It serialises its
// work when serial is set, and on the calls the Scenario's DevFail table
// marks (indexed by its call count) it misbehaves: it fails with
// ErrDevice before or after running the work, or returns nil without
// running it (which the pipeline must catch: ErrWorkNotRun).
type FlakyAccelerator struct {
	ID     schedkit.AcceleratorID
	Serial bool
	S      *Scenario
	mu     sync.Mutex
	calls  atomic.Int64
}

var _ schedkit.Accelerator = (*FlakyAccelerator)(nil)

// Info reports a healthy GPU named ID.
func (a *FlakyAccelerator) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: a.ID, Kind: schedkit.AcceleratorGPU, Healthy: true}
}

// Run runs work, or on the calls the scenario's DevFail table marks,
// fails with ErrDevice before or after it, or skips it and returns nil.
func (a *FlakyAccelerator) Run(ctx context.Context, work func(context.Context) error) error {
	if a.Serial {
		a.mu.Lock()
		defer a.mu.Unlock()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := int(a.calls.Add(1))
	if a.S.N == 0 || !a.S.DevFail[c%a.S.N] {
		return work(ctx)
	}
	switch c % 3 {
	case 0:
		return ErrDevice // before running the work
	case 1:
		return nil // without running it: a broken device or driver
	}
	if err := work(ctx); err != nil {
		return err
	}
	return ErrDevice // after running it
}

// Scenario is one randomised run: a configuration, the items the reader
// returns, and the faults and delays injected in each stage. Every
// decision is drawn up front from a seeded generator and looked up by
// item (the input is the item's index) or by call count, so concurrent
// stages need no shared generator.
type Scenario struct {
	Config       pipeline.Config
	N            int // items the reader returns
	Requester    []schedkit.NodeID
	ProcFail     []bool // Process (or ProcessBatch) fails the item
	DevFail      []bool // FlakyAccelerator call number c misbehaves if DevFail[c%N]
	ProcDelay    []int  // Gosched calls in Process
	WriteDelay   []int
	Undeliver    []bool // Write returns ErrGone
	WriteFatalAt int    // Write call index that fails fatally, -1 none
	ReadFatalAt  int    // Read call index that fails fatally, -1 none
	CancelRead   int    // Read call index that cancels, -1 none
	CancelWrite  int    // Write call index that cancels, -1 none
	CancelAfter  time.Duration
	BlockAtEnd   bool // after n items Read blocks until ctx is done
	UseBatchFn   bool // ProcessBatch instead of Process
}

// String describes the scenario on one line.
func (s *Scenario) String() string {
	return fmt.Sprintf("n=%d workers=%d×%d pq=%d wq=%d batch=%d ordered=%v maxInFlight=%d batchFn=%v writeFatal=%d readFatal=%d cancelRead=%d cancelWrite=%d cancelAfter=%v blockAtEnd=%v",
		s.N, len(s.Config.Accelerators), s.Config.Streams, s.Config.ProcessQueue, s.Config.WriteQueue, s.Config.Batch, s.Config.Ordered,
		s.Config.MaxInFlight, s.UseBatchFn, s.WriteFatalAt, s.ReadFatalAt, s.CancelRead, s.CancelWrite, s.CancelAfter, s.BlockAtEnd)
}

// RandomScenario draws a Scenario. Faults, cancellations and delays are
// each present in a fraction of the runs.
func RandomScenario(rng *rand.Rand, maxItems int) *Scenario {
	s := &Scenario{N: rng.IntN(maxItems + 1), WriteFatalAt: -1, ReadFatalAt: -1, CancelRead: -1, CancelWrite: -1}
	nacc := 1 + rng.IntN(3)
	for i := range nacc {
		id := schedkit.AcceleratorID(fmt.Sprintf("dev%d", i))
		if rng.IntN(2) == 0 {
			s.Config.Accelerators = append(s.Config.Accelerators, pipeline.CPU{ID: id})
		} else {
			s.Config.Accelerators = append(s.Config.Accelerators, &FlakyAccelerator{ID: id, Serial: rng.IntN(2) == 0, S: s})
		}
	}
	s.Config.Streams = 1 + rng.IntN(3)
	if rng.IntN(3) == 0 {
		// A lone worker, the common layout, where no side of either
		// queue is shared and nothing takes a lock: at least a third of
		// the runs.
		s.Config.Accelerators, s.Config.Streams = s.Config.Accelerators[:1], 1
	}
	s.Config.ProcessQueue = 1 + rng.IntN(8)
	s.Config.WriteQueue = 1 + rng.IntN(8)
	s.Config.Batch = rng.IntN(5)
	s.Config.Ordered = rng.IntN(2) == 0
	if rng.IntN(3) == 0 {
		s.Config.MaxInFlight = 1 + rng.IntN(20)
	}
	s.UseBatchFn = rng.IntN(3) == 0
	nreq := 1 + rng.IntN(5)
	pFail := []float64{0, 0.05, 0.3}[rng.IntN(3)]
	pUndeliver := []float64{0, 0, 0.05}[rng.IntN(3)]
	slow := rng.IntN(2) == 0
	for range s.N {
		s.Requester = append(s.Requester, schedkit.NodeID(fmt.Sprintf("n%d", rng.IntN(nreq))))
		s.ProcFail = append(s.ProcFail, rng.Float64() < pFail)
		s.DevFail = append(s.DevFail, rng.Float64() < pFail/2)
		s.Undeliver = append(s.Undeliver, rng.Float64() < pUndeliver)
		d, w := 0, 0
		if slow {
			d, w = rng.IntN(4), rng.IntN(3)
		}
		s.ProcDelay = append(s.ProcDelay, d)
		s.WriteDelay = append(s.WriteDelay, w)
	}
	if s.N > 0 {
		switch rng.IntN(10) {
		case 0:
			s.WriteFatalAt = rng.IntN(s.N)
		case 1:
			s.ReadFatalAt = rng.IntN(s.N + 1)
		case 2:
			s.CancelRead = rng.IntN(s.N + 1)
		case 3:
			s.CancelWrite = rng.IntN(s.N)
		case 4, 5:
			s.CancelAfter = time.Duration(1+rng.IntN(2000)) * time.Microsecond // not 0: blockAtEnd needs the timer
			s.BlockAtEnd = rng.IntN(2) == 0
		}
	}
	return s
}

// Outcome is what a run did, as seen from the host's functions.
type Outcome struct {
	Stats        pipeline.Stats
	Err          error
	Reads        []int // inputs returned by Read, in order
	ReadCalls    int
	LastReadErr  error
	Writes       []WriteCall
	Drops        []DropCall
	Cancelled    bool // cancel was called
	CancelledAtR int  // Read call that cancelled, -1
	CancelledAtW int  // Write call that cancelled, -1
	// Ledger is the accounting of the run's stages.
	Ledger *Ledger[int, int]
	// Problems are contract breaches seen during the run (overlapping
	// calls, bad ProcessBatch slices).
	Problems []string
	mu       sync.Mutex
}

// WriteCall is one Write call: the result and what Write returned.
type WriteCall struct {
	R   pipeline.Result[int, int]
	Err error
}

// DropCall is one Drop call.
type DropCall struct {
	R      pipeline.Result[int, int]
	Reason error
}

// Run executes the scenario once and returns what the host's functions
// saw. It never fails; Check judges the outcome.
func (s *Scenario) Run() *Outcome {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &Outcome{CancelledAtR: -1, CancelledAtW: -1}
	var cancelled atomic.Bool
	doCancel := func() { cancelled.Store(true); cancel() }

	var timerDone chan struct{}
	var timer *time.Timer
	if s.CancelAfter > 0 {
		timerDone = make(chan struct{})
		timer = time.AfterFunc(s.CancelAfter, func() { doCancel(); close(timerDone) })
	}

	next := 0
	writeN := 0
	var writing atomic.Bool // Write in progress: Drop must not overlap it
	stages := pipeline.Stages[int, int]{
		Read: func(ctx context.Context) (pipeline.Item[int], error) {
			call := o.ReadCalls
			o.ReadCalls++
			switch {
			case call == s.CancelRead:
				doCancel()
				o.CancelledAtR = call
				o.LastReadErr = ctx.Err()
				return pipeline.Item[int]{}, ctx.Err()
			case call == s.ReadFatalAt:
				o.LastReadErr = ErrReadFatal
				return pipeline.Item[int]{}, ErrReadFatal
			case next == s.N && s.BlockAtEnd:
				<-ctx.Done()
				o.LastReadErr = ctx.Err()
				return pipeline.Item[int]{}, ctx.Err()
			case next == s.N:
				o.LastReadErr = io.EOF
				return pipeline.Item[int]{}, io.EOF
			}
			i := next
			next++
			o.Reads = append(o.Reads, i)
			return pipeline.Item[int]{Requester: s.Requester[i], Input: i}, nil
		},
		Write: func(ctx context.Context, r pipeline.Result[int, int]) error {
			if !writing.CompareAndSwap(false, true) {
				o.problem("overlapping Write calls")
			}
			defer writing.Store(false)
			call := writeN
			writeN++
			for range s.WriteDelay[r.Input] {
				runtime.Gosched()
			}
			var err error
			switch {
			case call == s.WriteFatalAt:
				err = ErrWriteFatal
			case s.Undeliver[r.Input]:
				err = ErrGone
			case call == s.CancelWrite:
				doCancel()
				o.CancelledAtW = call
			}
			o.Writes = append(o.Writes, WriteCall{R: r, Err: err})
			return err
		},
		Drop: func(r pipeline.Result[int, int], reason error) {
			if writing.Load() {
				o.problem("Drop overlaps Write")
			}
			o.Drops = append(o.Drops, DropCall{R: r, Reason: reason})
		},
	}
	process := func(ctx context.Context, x int) (int, error) {
		for range s.ProcDelay[x] {
			runtime.Gosched()
		}
		if s.ProcFail[x] {
			return 0, fmt.Errorf("item %d: %w", x, ErrProcess)
		}
		return 2*x + 1, nil
	}
	if s.UseBatchFn {
		stages.ProcessBatch = func(ctx context.Context, in []int, out []int, errs []error) {
			if len(in) == 0 || len(in) != len(out) || len(in) != len(errs) || len(in) > max(s.Config.Batch, 1) {
				o.problem("ProcessBatch slices %d %d %d, batch %d", len(in), len(out), len(errs), s.Config.Batch)
			}
			for i, x := range in {
				out[i], errs[i] = process(ctx, x)
			}
		}
	} else {
		stages.Process = process
	}
	o.Ledger = NewLedger(stages)
	o.Stats, o.Err = pipeline.Run(ctx, s.Config, o.Ledger.Stages())
	if timer != nil && !timer.Stop() {
		<-timerDone
	}
	o.Cancelled = cancelled.Load()
	return o
}

// Check verifies every invariant of one run: the Ledger's accounting
// (each item read written or dropped exactly once, stats agree), each
// result's requester, Seq, device and output, queue high-water marks,
// the error Run returned against what happened, drop reasons and order,
// no call after a synchronous stop, and per-requester order with
// Ordered. It returns the first breach.
func (s *Scenario) Check(o *Outcome) error {
	if len(o.Problems) > 0 {
		return s.fail("%s", o.Problems[0])
	}
	if err := o.Ledger.Check(o.Stats, o.Err); err != nil {
		return s.fail("%v", err)
	}
	written, err := s.checkFates(o)
	if err != nil {
		return err
	}
	for _, check := range []func(*Outcome) error{
		func(o *Outcome) error { return s.checkStats(o, written) },
		s.checkErr, s.checkDrops, s.checkStops, s.checkOrder,
	} {
		if err := check(o); err != nil {
			return err
		}
	}
	return nil
}

// fail is a breach of the scenario's invariants, naming the scenario.
func (s *Scenario) fail(format string, args ...any) error {
	return fmt.Errorf("pipelinetest: %v\n%s", s, fmt.Sprintf(format, args...))
}

// checkResult checks one written or dropped result: an item that was
// read, its requester and per-requester Seq, and, if it was processed
// (or names a device), its device, output and processing error.
func (s *Scenario) checkResult(what string, r pipeline.Result[int, int], processed bool, seqOf map[int]uint64) error {
	seq, ok := seqOf[r.Input]
	if !ok {
		return s.fail("%s of item %d that was never read", what, r.Input)
	}
	if r.Seq != seq || r.Requester != s.Requester[r.Input] {
		return s.fail("%s item %d: requester %s seq %d, want %s %d", what, r.Input, r.Requester, r.Seq, s.Requester[r.Input], seq)
	}
	if !processed && r.Device == "" {
		return nil
	}
	if !slices.ContainsFunc(s.Config.Accelerators, func(a schedkit.Accelerator) bool { return a.Info().ID == r.Device }) {
		return s.fail("%s item %d: device %q", what, r.Input, r.Device)
	}
	switch {
	case r.Err == nil && r.Output != 2*r.Input+1:
		return s.fail("%s item %d: output %d", what, r.Input, r.Output)
	case r.Err != nil && !errors.Is(r.Err, ErrProcess) && !errors.Is(r.Err, ErrDevice) && !errors.Is(r.Err, pipeline.ErrWorkNotRun) && !errors.Is(r.Err, context.Canceled):
		return s.fail("%s item %d: unexpected processing error %v", what, r.Input, r.Err)
	case r.Err == nil && s.ProcFail[r.Input]:
		return s.fail("%s item %d: should have failed", what, r.Input)
	}
	return nil
}

// checkFates checks every result against what was read, and that every
// item read is written (Write returned nil) or dropped, never both, never
// twice, nothing else appearing. It returns how many were written.
func (s *Scenario) checkFates(o *Outcome) (written int, err error) {
	// Sequence numbers: per requester read order.
	seqOf := make(map[int]uint64, len(o.Reads))
	perReq := map[schedkit.NodeID]uint64{}
	for _, i := range o.Reads {
		seqOf[i] = perReq[s.Requester[i]]
		perReq[s.Requester[i]]++
	}
	fate := make(map[int]string, len(o.Reads))
	for _, w := range o.Writes {
		if err := s.checkResult("write", w.R, true, seqOf); err != nil {
			return 0, err
		}
		if w.Err != nil {
			continue
		}
		if f, dup := fate[w.R.Input]; dup {
			return 0, s.fail("item %d written after %s", w.R.Input, f)
		}
		fate[w.R.Input] = "written"
		written++
	}
	for _, d := range o.Drops {
		if err := s.checkResult("drop", d.R, false, seqOf); err != nil {
			return 0, err
		}
		if f, dup := fate[d.R.Input]; dup {
			return 0, s.fail("item %d dropped after %s", d.R.Input, f)
		}
		fate[d.R.Input] = "dropped"
	}
	for _, i := range o.Reads {
		if _, ok := fate[i]; !ok {
			return 0, s.fail("item %d read but neither written nor dropped (written %d, dropped %d, err %v)", i, written, len(o.Drops), o.Err)
		}
	}
	return written, nil
}

// checkStats checks that the stats agree with what the host saw.
func (s *Scenario) checkStats(o *Outcome, written int) error {
	st := o.Stats
	if st.Read.Items != int64(len(o.Reads)) || st.Write.Items != int64(written) || st.Dropped != int64(len(o.Drops)) {
		return s.fail("stats read %d written %d dropped %d; host saw %d %d %d",
			st.Read.Items, st.Write.Items, st.Dropped, len(o.Reads), written, len(o.Drops))
	}
	if st.Read.Items != st.Write.Items+st.Dropped {
		return s.fail("stats: read %d != written %d + dropped %d", st.Read.Items, st.Write.Items, st.Dropped)
	}
	if hw := st.ProcessQueue.HighWater; hw > s.Config.ProcessQueue || hw < 0 {
		return s.fail("process queue high water %d of %d", hw, s.Config.ProcessQueue)
	}
	if hw := st.WriteQueue.HighWater; hw > s.Config.WriteQueue || hw < 0 {
		return s.fail("write queue high water %d of %d", hw, s.Config.WriteQueue)
	}
	if st.Read.Busy < 0 || st.Process.Busy < 0 || st.Write.Busy < 0 {
		return s.fail("negative busy time %+v", st)
	}
	return nil
}

// checkErr checks that the error Run returned matches what happened.
func (s *Scenario) checkErr(o *Outcome) error {
	var se *pipeline.StageError
	switch {
	case o.Err == nil:
		if o.LastReadErr != io.EOF {
			return s.fail("nil error but the reader ended with %v", o.LastReadErr)
		}
	case errors.As(o.Err, &se):
		if !errors.Is(o.Err, pipeline.ErrStageFailed) {
			return s.fail("StageError does not match ErrStageFailed")
		}
		switch se.Stage {
		case pipeline.StageRead:
			if !errors.Is(o.Err, ErrReadFatal) || o.LastReadErr != ErrReadFatal {
				return s.fail("read StageError %v, reader ended with %v", o.Err, o.LastReadErr)
			}
		case pipeline.StageWrite:
			if !errors.Is(o.Err, ErrWriteFatal) || len(o.Writes) == 0 || o.Writes[len(o.Writes)-1].Err != ErrWriteFatal {
				return s.fail("write StageError %v but the last Write did not fail", o.Err)
			}
		default:
			return s.fail("StageError for stage %v", se.Stage)
		}
	case errors.Is(o.Err, context.Canceled):
		if !o.Cancelled {
			return s.fail("context error without a cancel")
		}
	default:
		return s.fail("unexpected error %v", o.Err)
	}
	return nil
}

// checkDrops checks the drop reasons and order: undeliverable drops
// follow their Write; the others (late: reported by Run after its
// goroutines stopped) come last, share one reason, and are sorted by
// requester and seq.
func (s *Scenario) checkDrops(o *Outcome) error {
	var reason error
	lateSorted := true
	var prev *pipeline.Result[int, int]
	gone := map[int]bool{}
	for _, w := range o.Writes {
		if w.Err == ErrGone {
			gone[w.R.Input] = true
		}
	}
	for i, d := range o.Drops {
		if errors.Is(d.Reason, pipeline.ErrUndeliverable) {
			if !gone[d.R.Input] || reason != nil {
				return s.fail("undeliverable drop of item %d out of place", d.R.Input)
			}
			delete(gone, d.R.Input)
			continue
		}
		if reason == nil {
			reason = d.Reason
		} else if d.Reason != reason {
			return s.fail("drop reasons differ: %v and %v", reason, d.Reason)
		}
		if !errors.Is(d.Reason, context.Canceled) && !errors.Is(d.Reason, ErrWriteFatal) {
			return s.fail("drop reason %v", d.Reason)
		}
		if prev != nil && cmp.Or(cmp.Compare(prev.Requester, d.R.Requester), cmp.Compare(prev.Seq, d.R.Seq)) >= 0 {
			lateSorted = false
		}
		prev = &o.Drops[i].R
	}
	if len(gone) > 0 {
		return s.fail("undeliverable results not reported to Drop: %v", gone)
	}
	if !lateSorted {
		return s.fail("late drops not in requester, seq order")
	}
	if reason != nil && o.Err == nil {
		return s.fail("items dropped (%v) but Run returned nil", reason)
	}
	return nil
}

// checkStops checks that nothing is called after a synchronous stop.
func (s *Scenario) checkStops(o *Outcome) error {
	if o.CancelledAtR >= 0 && o.ReadCalls != o.CancelledAtR+1 {
		return s.fail("Read called %d times after the cancelling call %d", o.ReadCalls, o.CancelledAtR)
	}
	if (o.CancelledAtW >= 0 && len(o.Writes) != o.CancelledAtW+1) ||
		(errors.Is(o.Err, ErrWriteFatal) && o.Writes[len(o.Writes)-1].Err != ErrWriteFatal) {
		return s.fail("Write called after the call that stopped the pipeline")
	}
	if errors.Is(o.Err, ErrReadFatal) && o.ReadCalls != s.ReadFatalAt+1 {
		return s.fail("Read called after it failed")
	}
	return nil
}

// checkOrder checks, with Ordered, per-requester order over every Write
// call (undeliverable ones included): consecutive Seq from 0.
func (s *Scenario) checkOrder(o *Outcome) error {
	if !s.Config.Ordered {
		return nil
	}
	want := map[schedkit.NodeID]uint64{}
	for _, w := range o.Writes {
		if w.R.Seq != want[w.R.Requester] {
			return s.fail("ordered: %s got seq %d, want %d", w.R.Requester, w.R.Seq, want[w.R.Requester])
		}
		want[w.R.Requester]++
	}
	return nil
}

// WaitGoroutines waits, up to two seconds, for the goroutine count to
// fall to base (taken before a Run), and returns an error with every
// goroutine's stack if it does not: Run must leave none behind.
func WaitGoroutines(base int) error {
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			return fmt.Errorf("pipelinetest: %d goroutines remain, want %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func (o *Outcome) problem(format string, args ...any) {
	o.mu.Lock()
	o.Problems = append(o.Problems, fmt.Sprintf(format, args...))
	o.mu.Unlock()
}

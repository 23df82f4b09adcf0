package pipeline_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// Injected errors.
var (
	errProc       = errors.New("test: process failed")
	errDevice     = errors.New("test: device failed")
	errReadFatal  = errors.New("test: reader broken")
	errWriteFatal = errors.New("test: writer broken")
	errGone       = fmt.Errorf("test: requester gone: %w", pipeline.ErrUndeliverable)
)

// testAcc is an accelerator for the property tests. It serialises its
// work when serial is set, and fails some calls with errDevice, before or
// after running the work, by a pattern drawn from the scenario's devFail
// table indexed by its call count.
type testAcc struct {
	id     schedkit.AcceleratorID
	serial bool
	s      *scenario
	mu     sync.Mutex
	calls  atomic.Int64
}

var _ schedkit.Accelerator = (*testAcc)(nil)

func (a *testAcc) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: a.id, Kind: schedkit.AcceleratorGPU, Healthy: true}
}

func (a *testAcc) Run(ctx context.Context, work func(context.Context) error) error {
	if a.serial {
		a.mu.Lock()
		defer a.mu.Unlock()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := int(a.calls.Add(1))
	if a.s.n == 0 || !a.s.devFail[c%a.s.n] {
		return work(ctx)
	}
	if c%2 == 0 {
		return errDevice // before running the work
	}
	if err := work(ctx); err != nil {
		return err
	}
	return errDevice // after running it
}

// scenario is one randomised run: a configuration, the items the reader
// returns, and the faults and delays injected in each stage. Every
// decision is drawn up front from a seeded generator and looked up by
// item (the input is the item's index) or by call count, so concurrent
// stages need no shared generator.
type scenario struct {
	cfg          pipeline.Config
	n            int
	requester    []schedkit.NodeID
	procFail     []bool // Process (or ProcessBatch) fails the item
	devFail      []bool // testAcc call number c fails if devFail[c%n]
	procDelay    []int  // Gosched calls in Process
	writeDelay   []int
	undeliver    []bool // Write returns errGone
	writeFatalAt int    // Write call index that fails fatally, -1 none
	readFatalAt  int    // Read call index that fails fatally, -1 none
	cancelRead   int    // Read call index that cancels, -1 none
	cancelWrite  int    // Write call index that cancels, -1 none
	cancelAfter  time.Duration
	blockAtEnd   bool // after n items Read blocks until ctx is done
	useBatchFn   bool // ProcessBatch instead of Process
}

func (s *scenario) String() string {
	return fmt.Sprintf("n=%d workers=%d×%d pq=%d wq=%d batch=%d ordered=%v maxInFlight=%d batchFn=%v writeFatal=%d readFatal=%d cancelRead=%d cancelWrite=%d cancelAfter=%v blockAtEnd=%v",
		s.n, len(s.cfg.Accelerators), s.cfg.Streams, s.cfg.ProcessQueue, s.cfg.WriteQueue, s.cfg.Batch, s.cfg.Ordered,
		s.cfg.MaxInFlight, s.useBatchFn, s.writeFatalAt, s.readFatalAt, s.cancelRead, s.cancelWrite, s.cancelAfter, s.blockAtEnd)
}

// randomScenario draws a scenario. Faults, cancellations and delays are
// each present in a fraction of the runs.
func randomScenario(rng *rand.Rand, maxItems int) *scenario {
	s := &scenario{n: rng.IntN(maxItems + 1), writeFatalAt: -1, readFatalAt: -1, cancelRead: -1, cancelWrite: -1}
	nacc := 1 + rng.IntN(3)
	for i := range nacc {
		id := schedkit.AcceleratorID(fmt.Sprintf("dev%d", i))
		if rng.IntN(2) == 0 {
			s.cfg.Accelerators = append(s.cfg.Accelerators, pipeline.CPU{ID: id})
		} else {
			s.cfg.Accelerators = append(s.cfg.Accelerators, &testAcc{id: id, serial: rng.IntN(2) == 0, s: s})
		}
	}
	s.cfg.Streams = 1 + rng.IntN(3)
	if rng.IntN(3) == 0 {
		// A lone worker, the common layout, where both queues are
		// lock-free rings rather than mutex queues: at least a third of
		// the runs.
		s.cfg.Accelerators, s.cfg.Streams = s.cfg.Accelerators[:1], 1
	}
	s.cfg.ProcessQueue = 1 + rng.IntN(8)
	s.cfg.WriteQueue = 1 + rng.IntN(8)
	s.cfg.Batch = rng.IntN(5)
	s.cfg.Ordered = rng.IntN(2) == 0
	if rng.IntN(3) == 0 {
		s.cfg.MaxInFlight = 1 + rng.IntN(20)
	}
	s.useBatchFn = rng.IntN(3) == 0
	nreq := 1 + rng.IntN(5)
	pFail := []float64{0, 0.05, 0.3}[rng.IntN(3)]
	pUndeliver := []float64{0, 0, 0.05}[rng.IntN(3)]
	slow := rng.IntN(2) == 0
	for range s.n {
		s.requester = append(s.requester, schedkit.NodeID(fmt.Sprintf("n%d", rng.IntN(nreq))))
		s.procFail = append(s.procFail, rng.Float64() < pFail)
		s.devFail = append(s.devFail, rng.Float64() < pFail/2)
		s.undeliver = append(s.undeliver, rng.Float64() < pUndeliver)
		d, w := 0, 0
		if slow {
			d, w = rng.IntN(4), rng.IntN(3)
		}
		s.procDelay = append(s.procDelay, d)
		s.writeDelay = append(s.writeDelay, w)
	}
	if s.n > 0 {
		switch rng.IntN(10) {
		case 0:
			s.writeFatalAt = rng.IntN(s.n)
		case 1:
			s.readFatalAt = rng.IntN(s.n + 1)
		case 2:
			s.cancelRead = rng.IntN(s.n + 1)
		case 3:
			s.cancelWrite = rng.IntN(s.n)
		case 4, 5:
			s.cancelAfter = time.Duration(1+rng.IntN(2000)) * time.Microsecond // not 0: blockAtEnd needs the timer
			s.blockAtEnd = rng.IntN(2) == 0
		}
	}
	return s
}

// outcome is what a run did, as seen from the host's functions.
type outcome struct {
	stats        pipeline.Stats
	err          error
	reads        []int // inputs returned by Read, in order
	readCalls    int
	lastReadErr  error
	writes       []writeCall
	drops        []dropCall
	cancelled    bool // cancel was called
	cancelledAtR int  // Read call that cancelled, -1
	cancelledAtW int  // Write call that cancelled, -1
}

type writeCall struct {
	r   pipeline.Result[int, int]
	err error
}

type dropCall struct {
	r      pipeline.Result[int, int]
	reason error
}

// run executes s once.
func (s *scenario) run(t testing.TB) *outcome {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := &outcome{cancelledAtR: -1, cancelledAtW: -1}
	var cancelled atomic.Bool
	doCancel := func() { cancelled.Store(true); cancel() }

	var timerDone chan struct{}
	var timer *time.Timer
	if s.cancelAfter > 0 {
		timerDone = make(chan struct{})
		timer = time.AfterFunc(s.cancelAfter, func() { doCancel(); close(timerDone) })
	}

	next := 0
	writeN := 0
	var writing atomic.Bool // Write in progress: Drop must not overlap it
	stages := pipeline.Stages[int, int]{
		Read: func(ctx context.Context) (pipeline.Item[int], error) {
			call := o.readCalls
			o.readCalls++
			switch {
			case call == s.cancelRead:
				doCancel()
				o.cancelledAtR = call
				o.lastReadErr = ctx.Err()
				return pipeline.Item[int]{}, ctx.Err()
			case call == s.readFatalAt:
				o.lastReadErr = errReadFatal
				return pipeline.Item[int]{}, errReadFatal
			case next == s.n && s.blockAtEnd:
				<-ctx.Done()
				o.lastReadErr = ctx.Err()
				return pipeline.Item[int]{}, ctx.Err()
			case next == s.n:
				o.lastReadErr = io.EOF
				return pipeline.Item[int]{}, io.EOF
			}
			i := next
			next++
			o.reads = append(o.reads, i)
			return pipeline.Item[int]{Requester: s.requester[i], Input: i}, nil
		},
		Write: func(ctx context.Context, r pipeline.Result[int, int]) error {
			if !writing.CompareAndSwap(false, true) {
				t.Errorf("overlapping Write calls")
			}
			defer writing.Store(false)
			call := writeN
			writeN++
			for range s.writeDelay[r.Input] {
				runtime.Gosched()
			}
			var err error
			switch {
			case call == s.writeFatalAt:
				err = errWriteFatal
			case s.undeliver[r.Input]:
				err = errGone
			case call == s.cancelWrite:
				doCancel()
				o.cancelledAtW = call
			}
			o.writes = append(o.writes, writeCall{r, err})
			return err
		},
		Drop: func(r pipeline.Result[int, int], reason error) {
			if writing.Load() {
				t.Errorf("Drop overlaps Write")
			}
			o.drops = append(o.drops, dropCall{r: r, reason: reason})
		},
	}
	process := func(ctx context.Context, x int) (int, error) {
		for range s.procDelay[x] {
			runtime.Gosched()
		}
		if s.procFail[x] {
			return 0, fmt.Errorf("item %d: %w", x, errProc)
		}
		return 2*x + 1, nil
	}
	if s.useBatchFn {
		stages.ProcessBatch = func(ctx context.Context, in []int, out []int, errs []error) {
			if len(in) == 0 || len(in) != len(out) || len(in) != len(errs) || len(in) > max(s.cfg.Batch, 1) {
				t.Errorf("ProcessBatch slices %d %d %d, batch %d", len(in), len(out), len(errs), s.cfg.Batch)
			}
			for i, x := range in {
				out[i], errs[i] = process(ctx, x)
			}
		}
	} else {
		stages.Process = process
	}
	o.stats, o.err = pipeline.Run(ctx, s.cfg, stages)
	if timer != nil && !timer.Stop() {
		<-timerDone
	}
	o.cancelled = cancelled.Load()
	return o
}

// check verifies every invariant of one run.
func (s *scenario) check(t testing.TB, o *outcome) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%v\n%s", s, fmt.Sprintf(format, args...))
	}

	// Sequence numbers: per requester read order.
	seqOf := make(map[int]uint64, len(o.reads))
	perReq := map[schedkit.NodeID]uint64{}
	for _, i := range o.reads {
		seqOf[i] = perReq[s.requester[i]]
		perReq[s.requester[i]]++
	}
	devices := map[schedkit.AcceleratorID]bool{}
	for _, a := range s.cfg.Accelerators {
		devices[a.Info().ID] = true
	}
	checkResult := func(what string, r pipeline.Result[int, int], processed bool) {
		t.Helper()
		seq, ok := seqOf[r.Input]
		if !ok {
			fail("%s of item %d that was never read", what, r.Input)
		}
		if r.Seq != seq || r.Requester != s.requester[r.Input] {
			fail("%s item %d: requester %s seq %d, want %s %d", what, r.Input, r.Requester, r.Seq, s.requester[r.Input], seq)
		}
		if !processed && r.Device == "" {
			return
		}
		if !devices[r.Device] {
			fail("%s item %d: device %q", what, r.Input, r.Device)
		}
		switch {
		case r.Err == nil && r.Output != 2*r.Input+1:
			fail("%s item %d: output %d", what, r.Input, r.Output)
		case r.Err != nil && !errors.Is(r.Err, errProc) && !errors.Is(r.Err, errDevice) && !errors.Is(r.Err, context.Canceled):
			fail("%s item %d: unexpected processing error %v", what, r.Input, r.Err)
		case r.Err == nil && s.procFail[r.Input]:
			fail("%s item %d: should have failed", what, r.Input)
		}
	}

	// Exactly once: every item read is written (Write returned nil) or
	// dropped, never both, never twice; nothing else appears.
	fate := make(map[int]string, len(o.reads))
	written := 0
	for _, w := range o.writes {
		checkResult("write", w.r, true)
		if w.err != nil {
			continue
		}
		if f, dup := fate[w.r.Input]; dup {
			fail("item %d written after %s", w.r.Input, f)
		}
		fate[w.r.Input] = "written"
		written++
	}
	for _, d := range o.drops {
		checkResult("drop", d.r, false)
		if f, dup := fate[d.r.Input]; dup {
			fail("item %d dropped after %s", d.r.Input, f)
		}
		fate[d.r.Input] = "dropped"
	}
	for _, i := range o.reads {
		if _, ok := fate[i]; !ok {
			fail("item %d read but neither written nor dropped (written %d, dropped %d, err %v)", i, written, len(o.drops), o.err)
		}
	}

	// Stats agree with what the host saw.
	st := o.stats
	if st.Read.Items != int64(len(o.reads)) || st.Write.Items != int64(written) || st.Dropped != int64(len(o.drops)) {
		fail("stats read %d written %d dropped %d; host saw %d %d %d",
			st.Read.Items, st.Write.Items, st.Dropped, len(o.reads), written, len(o.drops))
	}
	if st.Read.Items != st.Write.Items+st.Dropped {
		fail("stats: read %d != written %d + dropped %d", st.Read.Items, st.Write.Items, st.Dropped)
	}
	if hw := st.ProcessQueue.HighWater; hw > s.cfg.ProcessQueue || hw < 0 {
		fail("process queue high water %d of %d", hw, s.cfg.ProcessQueue)
	}
	if hw := st.WriteQueue.HighWater; hw > s.cfg.WriteQueue || hw < 0 {
		fail("write queue high water %d of %d", hw, s.cfg.WriteQueue)
	}
	if st.Read.Busy < 0 || st.Process.Busy < 0 || st.Write.Busy < 0 {
		fail("negative busy time %+v", st)
	}

	// The returned error matches what happened, and so do drop reasons.
	var se *pipeline.StageError
	switch {
	case o.err == nil:
		if o.lastReadErr != io.EOF {
			fail("nil error but the reader ended with %v", o.lastReadErr)
		}
	case errors.As(o.err, &se):
		if !errors.Is(o.err, pipeline.ErrStageFailed) {
			fail("StageError does not match ErrStageFailed")
		}
		switch se.Stage {
		case pipeline.StageRead:
			if !errors.Is(o.err, errReadFatal) || o.lastReadErr != errReadFatal {
				fail("read StageError %v, reader ended with %v", o.err, o.lastReadErr)
			}
		case pipeline.StageWrite:
			if !errors.Is(o.err, errWriteFatal) || len(o.writes) == 0 || o.writes[len(o.writes)-1].err != errWriteFatal {
				fail("write StageError %v but the last Write did not fail", o.err)
			}
		default:
			fail("StageError for stage %v", se.Stage)
		}
	case errors.Is(o.err, context.Canceled):
		if !o.cancelled {
			fail("context error without a cancel")
		}
	default:
		fail("unexpected error %v", o.err)
	}
	// Undeliverable drops follow their Write; the others (late: reported
	// by Run after its goroutines stopped) come last, share one reason,
	// and are sorted by requester and seq.
	var reason error
	lateSorted := true
	var prev *pipeline.Result[int, int]
	gone := map[int]bool{}
	for _, w := range o.writes {
		if w.err == errGone {
			gone[w.r.Input] = true
		}
	}
	for i, d := range o.drops {
		if errors.Is(d.reason, pipeline.ErrUndeliverable) {
			if !gone[d.r.Input] || reason != nil {
				fail("undeliverable drop of item %d out of place", d.r.Input)
			}
			delete(gone, d.r.Input)
			continue
		}
		if reason == nil {
			reason = d.reason
		} else if d.reason != reason {
			fail("drop reasons differ: %v and %v", reason, d.reason)
		}
		if !errors.Is(d.reason, context.Canceled) && !errors.Is(d.reason, errWriteFatal) {
			fail("drop reason %v", d.reason)
		}
		if prev != nil && cmp.Or(cmp.Compare(prev.Requester, d.r.Requester), cmp.Compare(prev.Seq, d.r.Seq)) >= 0 {
			lateSorted = false
		}
		prev = &o.drops[i].r
	}
	if len(gone) > 0 {
		fail("undeliverable results not reported to Drop: %v", gone)
	}
	if !lateSorted {
		fail("late drops not in requester, seq order")
	}
	if reason != nil && o.err == nil {
		fail("items dropped (%v) but Run returned nil", reason)
	}

	// Nothing is called after a synchronous stop.
	if o.cancelledAtR >= 0 && o.readCalls != o.cancelledAtR+1 {
		fail("Read called %d times after the cancelling call %d", o.readCalls, o.cancelledAtR)
	}
	if (o.cancelledAtW >= 0 && len(o.writes) != o.cancelledAtW+1) ||
		(errors.Is(o.err, errWriteFatal) && o.writes[len(o.writes)-1].err != errWriteFatal) {
		fail("Write called after the call that stopped the pipeline")
	}
	if errors.Is(o.err, errReadFatal) && o.readCalls != s.readFatalAt+1 {
		fail("Read called after it failed")
	}

	// Per-requester order, over every Write call (undeliverable ones
	// included): consecutive Seq from 0.
	if s.cfg.Ordered {
		want := map[schedkit.NodeID]uint64{}
		for _, w := range o.writes {
			if w.r.Seq != want[w.r.Requester] {
				fail("ordered: %s got seq %d, want %d", w.r.Requester, w.r.Seq, want[w.r.Requester])
			}
			want[w.r.Requester]++
		}
	}
}

// waitGoroutines waits, up to a bound, for the goroutine count to fall to
// base, and fails if it does not.
func waitGoroutines(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines remain, want %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

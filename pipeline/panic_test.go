package pipeline_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// panicAcc is a device whose Run panics on its second call.
type panicAcc struct {
	mu    sync.Mutex
	calls int
}

func (a *panicAcc) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: "flaky", Kind: schedkit.AcceleratorGPU, Healthy: true}
}

func (a *panicAcc) Run(ctx context.Context, work func(context.Context) error) error {
	a.mu.Lock()
	a.calls++
	n := a.calls
	a.mu.Unlock()
	if n == 2 {
		panic("driver fault")
	}
	return work(ctx)
}

// A panic in any host function is recovered into a *StageError wrapping
// a *PanicError, and every item read is still written or dropped once.
func TestStagePanics(t *testing.T) {
	items := func() []pipeline.Item[int] {
		var its []pipeline.Item[int]
		for i := range 6 {
			its = append(its, pipeline.Item[int]{Requester: "n1", Input: i})
		}
		return its
	}
	isPanic := func(err error, stage pipeline.Stage) bool {
		var se *pipeline.StageError
		var pe *pipeline.PanicError
		return errors.As(err, &se) && se.Stage == stage && errors.As(err, &pe) && errors.Is(err, pipeline.ErrStageFailed)
	}
	cpu := []schedkit.Accelerator{pipeline.CPU{}}
	cases := []struct {
		name string
		accs []schedkit.Accelerator
		mut  func(s *pipeline.Stages[int, int], read func(context.Context) (pipeline.Item[int], error))
		// runStage is the stage of Run's error, or -1 for none; failed
		// lists the inputs whose result carries a process panic ({-x}:
		// x and at most one batch-mate; {}: one batch, timing decides
		// which).
		runStage int
		failed   []int
		dropped  int
	}{
		{"Process", cpu, func(s *pipeline.Stages[int, int], _ func(context.Context) (pipeline.Item[int], error)) {
			s.Process = func(_ context.Context, x int) (int, error) {
				if x == 2 || x == 4 {
					panic("bad item")
				}
				return x, nil
			}
		}, -1, []int{2, 4}, 0},
		{"ProcessBatch", cpu, func(s *pipeline.Stages[int, int], _ func(context.Context) (pipeline.Item[int], error)) {
			s.Process = nil
			s.ProcessBatch = func(_ context.Context, in []int, out []int, _ []error) {
				for i, x := range in {
					if x == 3 {
						panic("bad batch")
					}
					out[i] = x
				}
			}
		}, -1, []int{-3}, 0},
		{"Accelerator.Run", []schedkit.Accelerator{&panicAcc{}}, func(*pipeline.Stages[int, int], func(context.Context) (pipeline.Item[int], error)) {}, -1, []int{}, 0},
		{"Read", cpu, func(s *pipeline.Stages[int, int], read func(context.Context) (pipeline.Item[int], error)) {
			n := 0
			s.Read = func(ctx context.Context) (pipeline.Item[int], error) {
				if n++; n == 4 {
					panic("reader fault")
				}
				return read(ctx)
			}
		}, int(pipeline.StageRead), nil, 0},
		{"Write", cpu, func(s *pipeline.Stages[int, int], _ func(context.Context) (pipeline.Item[int], error)) {
			w := s.Write
			s.Write = func(ctx context.Context, r pipeline.Result[int, int]) error {
				if r.Input == 1 {
					panic("writer fault")
				}
				return w(ctx, r)
			}
		}, int(pipeline.StageWrite), nil, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var written, dropped []int
			var failed []int
			var mu sync.Mutex
			s := pipeline.Stages[int, int]{
				Read:    sliceReader(items()),
				Process: func(_ context.Context, x int) (int, error) { return x, nil },
				Write: func(_ context.Context, r pipeline.Result[int, int]) error {
					mu.Lock()
					defer mu.Unlock()
					written = append(written, r.Input)
					if isPanic(r.Err, pipeline.StageProcess) {
						failed = append(failed, r.Input)
					}
					return nil
				},
				Drop: func(r pipeline.Result[int, int], _ error) { dropped = append(dropped, r.Input) },
			}
			c.mut(&s, s.Read)
			cfg := pipeline.Config{Accelerators: c.accs, Streams: 1, ProcessQueue: 1, WriteQueue: 1, Batch: 2}
			st, err := pipeline.Run(context.Background(), cfg, s)
			switch {
			case c.runStage < 0 && err != nil:
				t.Fatalf("Run: %v", err)
			case c.runStage >= 0 && !isPanic(err, pipeline.Stage(c.runStage)):
				t.Fatalf("Run: %v, want a %v-stage panic", err, pipeline.Stage(c.runStage))
			}
			if st.Read.Items != int64(len(written)+len(dropped)) || st.Dropped != int64(len(dropped)) {
				t.Fatalf("read %d, written %v, dropped %v (Stats %v)", st.Read.Items, written, dropped, st)
			}
			switch {
			case c.failed == nil:
			case len(c.failed) == 0:
				if len(failed) < 1 || len(failed) > cfg.Batch {
					t.Fatalf("items failed by a panic %v, want one batch", failed)
				}
			case c.failed[0] < 0:
				if !slices.Contains(failed, -c.failed[0]) || len(failed) > cfg.Batch {
					t.Fatalf("items failed by a panic %v, want %d's batch", failed, -c.failed[0])
				}
			case !slices.Equal(failed, c.failed):
				t.Fatalf("items failed by a panic %v, want %v", failed, c.failed)
			}
			if c.dropped < 0 && len(dropped) == 0 {
				t.Fatal("a fatal write panic dropped nothing")
			}
		})
	}
}

func TestStatsString(t *testing.T) {
	st := pipeline.Stats{
		Read:         pipeline.StageStats{Workers: 1, Items: 10, Busy: 5e6, BlockedOut: 5e6},
		Process:      pipeline.StageStats{Workers: 2, Items: 10, Failed: 1, Busy: 16e6, BlockedIn: 4e6},
		Write:        pipeline.StageStats{Workers: 1, Items: 9, Failed: 1, Busy: 2e6, BlockedIn: 8e6},
		ProcessQueue: pipeline.QueueStats{Depth: 4, HighWater: 4},
		WriteQueue:   pipeline.QueueStats{Depth: 4, HighWater: 1},
		Dropped:      1,
		Elapsed:      10e6,
	}
	want := "read     10 items, 0 failed, busy 5ms, blocked in 0s, out 5ms (utilisation 50%)\n" +
		"process  10 items, 1 failed, busy 16ms, blocked in 4ms, out 0s, 2 workers (utilisation 80%)\n" +
		"write    9 items, 1 failed, busy 2ms, blocked in 8ms, out 0s (utilisation 20%)\n" +
		"queues   process 4/4, write 1/4 (high water/depth)\n" +
		"total    1 dropped, elapsed 10ms, bottleneck process"
	if got := st.String(); got != want {
		t.Fatalf("Stats.String:\n%s\nwant:\n%s", got, want)
	}
}

func TestTypedNilAccelerator(t *testing.T) {
	var acc *panicAcc
	cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{acc}, Streams: 1, ProcessQueue: 1, WriteQueue: 1}
	var ce *pipeline.Error
	if err := cfg.Validate(); !errors.As(err, &ce) {
		t.Fatalf("typed nil accelerator: %v", err)
	}
}

// lazyAcc is a device whose Run breaks the Accelerator contract, returning
// nil without running work, unless run is set: then it runs work, and
// recovers any panic that reaches it.
type lazyAcc struct{ run bool }

func (lazyAcc) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: "lazy", Kind: schedkit.AcceleratorGPU, Healthy: true}
}

func (a lazyAcc) Run(ctx context.Context, work func(context.Context) error) (err error) {
	if !a.run {
		return nil
	}
	defer func() { _ = recover() }()
	return work(ctx)
}

// An Accelerator.Run that returns nil without running work does not pass
// the items off as done: each fails with ErrWorkNotRun (in a *StageError
// for StageProcess) and is written once, like any failed item. A Process
// panic is recovered inside a device's work, before the device sees it:
// it fails its own item only, and the rest of the batch runs.
func TestWorkNotRun(t *testing.T) {
	for _, c := range []struct {
		name   string
		acc    lazyAcc
		batch  int
		failed []int // inputs that fail with ErrWorkNotRun
		panics []int // inputs that fail with the panic of Process
	}{
		{"skip", lazyAcc{}, 1, []int{0, 1, 2, 3, 4}, nil},
		{"skip batch", lazyAcc{}, 3, []int{0, 1, 2, 3, 4}, nil},
		{"run", lazyAcc{run: true}, 3, nil, []int{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var items []pipeline.Item[int]
			for i := range 5 {
				items = append(items, pipeline.Item[int]{Requester: "n1", Input: i})
			}
			var failed, panics []int
			writes := 0
			cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{c.acc}, Streams: 1, ProcessQueue: 8, WriteQueue: 8, Batch: c.batch, Ordered: true}
			st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
				Read: sliceReader(items),
				Process: func(_ context.Context, x int) (int, error) {
					if x == 1 {
						panic("bad item")
					}
					return x + 100, nil
				},
				Write: func(_ context.Context, r pipeline.Result[int, int]) error {
					writes++
					var se *pipeline.StageError
					switch {
					case errors.Is(r.Err, pipeline.ErrWorkNotRun) && errors.As(r.Err, &se) && se.Stage == pipeline.StageProcess:
						failed = append(failed, r.Input)
					case errors.As(r.Err, new(*pipeline.PanicError)) && errors.As(r.Err, &se) && se.Stage == pipeline.StageProcess:
						panics = append(panics, r.Input)
					case r.Err != nil:
						t.Errorf("item %d: error %v, want ErrWorkNotRun", r.Input, r.Err)
					case r.Output != r.Input+100:
						t.Errorf("item %d: output %d", r.Input, r.Output)
					}
					return nil
				},
				Drop: func(r pipeline.Result[int, int], reason error) { t.Errorf("dropped %d: %v", r.Input, reason) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(failed, c.failed) || !slices.Equal(panics, c.panics) || writes != 5 {
				t.Errorf("not run %v, panicked %v, of %d written; want %v, %v of 5", failed, panics, writes, c.failed, c.panics)
			}
			if st.Read.Items != 5 || st.Write.Items != 5 || st.Process.Items != 5 || st.Process.Failed != int64(len(c.failed)+len(c.panics)) || st.Dropped != 0 {
				t.Errorf("stats: %v", st)
			}
		})
	}
}

// threadAcc is a device that runs work on a goroutine of its own (as a
// device bound to one OS thread would) and waits for it.
type threadAcc struct{}

func (threadAcc) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: "thread", Kind: schedkit.AcceleratorGPU, Healthy: true}
}

func (threadAcc) Run(ctx context.Context, work func(context.Context) error) error {
	done := make(chan error)
	go func() { done <- work(ctx) }()
	return <-done
}

// A Process panic on a device's own goroutine is contained too: the
// worker's recover cannot reach it there, work's own does.
func TestPanicOnDeviceGoroutine(t *testing.T) {
	var items []pipeline.Item[int]
	for i := range 6 {
		items = append(items, pipeline.Item[int]{Requester: "n1", Input: i})
	}
	var panicked []int
	cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{threadAcc{}}, Streams: 2, ProcessQueue: 4, WriteQueue: 4, Batch: 2, Ordered: true}
	st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: sliceReader(items),
		Process: func(_ context.Context, x int) (int, error) {
			if x == 2 || x == 5 {
				panic("bad item")
			}
			return x, nil
		},
		Write: func(_ context.Context, r pipeline.Result[int, int]) error {
			if errors.As(r.Err, new(*pipeline.PanicError)) {
				panicked = append(panicked, r.Input)
			} else if r.Err != nil || r.Output != r.Input {
				t.Errorf("item %d: %d, %v", r.Input, r.Output, r.Err)
			}
			return nil
		},
	})
	if err != nil || st.Write.Items != 6 || !slices.Equal(panicked, []int{2, 5}) {
		t.Fatalf("Run = %v, wrote %d, panicked %v; want nil, 6, [2 5]", err, st.Write.Items, panicked)
	}
}

package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
	"github.com/schedkit/schedkit/pipeline/pipelinetest"
)

// sliceReader returns a Read function over items, then io.EOF.
func sliceReader[I any](items []pipeline.Item[I]) func(context.Context) (pipeline.Item[I], error) {
	next := 0
	return func(context.Context) (pipeline.Item[I], error) {
		if next == len(items) {
			return pipeline.Item[I]{}, io.EOF
		}
		next++
		return items[next-1], nil
	}
}

// TestOrderedSlowHead: with three workers, requester n1's first item is
// held in processing until everything else is done. n2's results are
// written meanwhile (no head-of-line blocking across requesters) and
// n1's results still come out in read order.
func TestOrderedSlowHead(t *testing.T) {
	var items []pipeline.Item[int]
	for i := range 5 {
		items = append(items, pipeline.Item[int]{Requester: "n1", Input: i}, pipeline.Item[int]{Requester: "n2", Input: 100 + i})
	}
	// The slow item waits until all of n2's results are written (not
	// merely processed: a result is queued for the writer after Process
	// returns, so waiting on processing would race with the slow item's
	// own result). With head-of-line blocking they never would be; the
	// deadline turns that into a failure rather than a hang.
	var n2Written atomic.Int32
	var order []string
	cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{pipeline.CPU{}}, Streams: 3, ProcessQueue: 4, WriteQueue: 4, Ordered: true}
	_, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: sliceReader(items),
		Process: func(ctx context.Context, x int) (int, error) {
			if x == 0 {
				deadline := time.Now().Add(10 * time.Second)
				for n2Written.Load() < int32(len(items)/2) && time.Now().Before(deadline) {
					runtime.Gosched()
				}
			}
			return x, nil
		},
		Write: func(_ context.Context, r pipeline.Result[int, int]) error {
			order = append(order, fmt.Sprintf("%s#%d", r.Requester, r.Seq))
			if r.Requester == "n2" {
				n2Written.Add(1)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var n1 []string
	for _, s := range order {
		if s[:2] == "n1" {
			n1 = append(n1, s)
		}
	}
	if want := []string{"n1#0", "n1#1", "n1#2", "n1#3", "n1#4"}; !slices.Equal(n1, want) {
		t.Errorf("n1 written %v, want %v", n1, want)
	}
	if slices.Index(order, "n2#4") > slices.Index(order, "n1#0") {
		t.Errorf("n2 waited for n1's slow item: %v", order)
	}
}

// TestReaderFailureDrains: a broken reader stops reading; what was read is
// still processed and written, then Run names the read stage.
func TestReaderFailureDrains(t *testing.T) {
	errBroken := errors.New("listener closed")
	n := 0
	written := 0
	st, err := pipeline.Run(context.Background(), validConfig(), pipeline.Stages[int, int]{
		Read: func(context.Context) (pipeline.Item[int], error) {
			if n == 10 {
				return pipeline.Item[int]{}, errBroken
			}
			n++
			return pipeline.Item[int]{Requester: "n1", Input: n}, nil
		},
		Process: func(_ context.Context, x int) (int, error) { return x, nil },
		Write:   func(context.Context, pipeline.Result[int, int]) error { written++; return nil },
	})
	var se *pipeline.StageError
	if !errors.As(err, &se) || se.Stage != pipeline.StageRead || !errors.Is(err, errBroken) {
		t.Fatalf("Run = %v, want a read StageError wrapping %v", err, errBroken)
	}
	if written != 10 || st.Write.Items != 10 || st.Dropped != 0 {
		t.Errorf("wrote %d (stats %d), dropped %d; want all 10 written", written, st.Write.Items, st.Dropped)
	}
}

// TestWriterFailureStops: a broken writer stops everything at once: the
// blocked reader sees its context end, no further Write is made, and the
// failed item and those behind it are dropped with the write StageError.
func TestWriterFailureStops(t *testing.T) {
	errBroken := errors.New("connection reset")
	n := 0
	var writes []int
	var dropped []int
	var reasons []error
	_, err := pipeline.Run(context.Background(), validConfig(), pipeline.Stages[int, int]{
		Read: func(ctx context.Context) (pipeline.Item[int], error) {
			if n == 6 {
				<-ctx.Done()
				return pipeline.Item[int]{}, ctx.Err()
			}
			n++
			return pipeline.Item[int]{Requester: "n1", Input: n}, nil
		},
		Process: func(_ context.Context, x int) (int, error) { return x, nil },
		Write: func(_ context.Context, r pipeline.Result[int, int]) error {
			writes = append(writes, r.Input)
			if r.Input == 3 {
				return errBroken
			}
			return nil
		},
		Drop: func(r pipeline.Result[int, int], reason error) {
			dropped = append(dropped, r.Input)
			reasons = append(reasons, reason)
		},
	})
	var se *pipeline.StageError
	if !errors.As(err, &se) || se.Stage != pipeline.StageWrite || !errors.Is(err, errBroken) {
		t.Fatalf("Run = %v, want a write StageError wrapping %v", err, errBroken)
	}
	if !slices.Equal(writes, []int{1, 2, 3}) {
		t.Errorf("Write calls %v, want [1 2 3]", writes)
	}
	if len(dropped) == 0 || dropped[0] != 3 || len(dropped)+2 != n {
		t.Errorf("dropped %v of %d read, want 3 and every later item", dropped, n)
	}
	for _, r := range reasons {
		if r != err {
			t.Errorf("drop reason %v, want Run's error %v", r, err)
		}
	}
}

// TestBatching: ProcessBatch gets at most Batch items per call, one call
// per Accelerator.Run, and batches fill up when work queues behind a
// busy worker.
func TestBatching(t *testing.T) {
	const n, batch = 40, 5
	var sizes []int
	var runs atomic.Int32
	acc := &countingAcc{runs: &runs}
	gate := make(chan struct{})
	var once sync.Once
	var reads atomic.Int32
	cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{acc}, Streams: 1, ProcessQueue: 8, WriteQueue: 8, Batch: batch}
	st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: func(context.Context) (pipeline.Item[int], error) {
			// The worker, blocked in its first batch, holds k ≥ 1 items
			// and the queue 8 more, so 9 reads always happen; by then
			// at least 5 items wait for the next batch.
			if reads.Load() == 9 {
				once.Do(func() { close(gate) })
			}
			if reads.Load() == n {
				return pipeline.Item[int]{}, io.EOF
			}
			return pipeline.Item[int]{Requester: "n1", Input: int(reads.Add(1))}, nil
		},
		ProcessBatch: func(_ context.Context, in, out []int, errs []error) {
			if len(sizes) == 0 {
				<-gate // the first batch is slow: the queue fills behind it
			}
			sizes = append(sizes, len(in))
			copy(out, in)
		},
		Write: func(context.Context, pipeline.Result[int, int]) error { return nil },
	})
	if err != nil || st.Write.Items != n {
		t.Fatalf("Run = %v, wrote %d", err, st.Write.Items)
	}
	total := 0
	for _, s := range sizes {
		total += s
		if s < 1 || s > batch {
			t.Errorf("batch of %d, want 1..%d", s, batch)
		}
	}
	if total != n || int(runs.Load()) != len(sizes) {
		t.Errorf("%d items in %d batches over %d accelerator runs", total, len(sizes), runs.Load())
	}
	if slices.Max(sizes) != batch {
		t.Errorf("batch sizes %v never reached %d", sizes, batch)
	}
}

type countingAcc struct{ runs *atomic.Int32 }

func (a *countingAcc) Info() schedkit.AcceleratorInfo {
	return schedkit.AcceleratorInfo{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Healthy: true}
}

func (a *countingAcc) Run(ctx context.Context, work func(context.Context) error) error {
	a.runs.Add(1)
	return work(ctx)
}

// TestNoGoroutineLeak: whichever stage is blocked when the context is
// cancelled, Run returns only after all its goroutines have exited.
func TestNoGoroutineLeak(t *testing.T) {
	for _, blockIn := range []pipeline.Stage{pipeline.StageRead, pipeline.StageProcess, pipeline.StageWrite} {
		t.Run(blockIn.String(), func(t *testing.T) {
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			block := func(ctx context.Context, at pipeline.Stage) error {
				if at == blockIn {
					cancel()
					<-ctx.Done()
					return ctx.Err()
				}
				return nil
			}
			cfg := validConfig()
			cfg.Accelerators = []schedkit.Accelerator{pipeline.CPU{ID: "a"}, pipeline.CPU{ID: "b"}}
			cfg.Streams = 2
			_, err := pipeline.Run(ctx, cfg, pipeline.Stages[int, int]{
				Read: func(ctx context.Context) (pipeline.Item[int], error) {
					if n == 20 {
						if err := block(ctx, pipeline.StageRead); err != nil {
							return pipeline.Item[int]{}, err
						}
						<-ctx.Done() // idle line
						return pipeline.Item[int]{}, ctx.Err()
					}
					n++
					return pipeline.Item[int]{Requester: "n1", Input: n}, nil
				},
				Process: func(ctx context.Context, x int) (int, error) {
					if x == 5 {
						return 0, block(ctx, pipeline.StageProcess)
					}
					return x, nil
				},
				Write: func(ctx context.Context, r pipeline.Result[int, int]) error {
					if r.Input == 10 {
						return block(ctx, pipeline.StageWrite)
					}
					return nil
				},
			})
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
			if err := pipelinetest.WaitGoroutines(base); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStatsShowBottleneck: with a slow processing stage, Stats blames it,
// and the reader spends its time blocked on the full process queue.
func TestStatsShowBottleneck(t *testing.T) {
	items := make([]pipeline.Item[int], 30)
	cfg := validConfig()
	cfg.ProcessQueue = 2
	st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: sliceReader(items),
		Process: func(_ context.Context, x int) (int, error) {
			time.Sleep(time.Millisecond)
			return x, nil
		},
		Write: func(context.Context, pipeline.Result[int, int]) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bottleneck() != pipeline.StageProcess || st.Process.Busy < 30*time.Millisecond ||
		st.Read.BlockedOut < st.Read.Busy || st.Write.BlockedIn < st.Write.Busy || st.ProcessQueue.HighWater != 2 {
		t.Errorf("stats do not show the slow process stage: %+v", st)
	}
}

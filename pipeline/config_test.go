package pipeline_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

func validConfig() pipeline.Config {
	return pipeline.Config{
		Accelerators: []schedkit.Accelerator{pipeline.CPU{}},
		Streams:      1,
		ProcessQueue: 4,
		WriteQueue:   4,
	}
}

// countingStages returns stages that count their calls, for checking that
// a rejected Run calls none of them.
func countingStages(calls *int) pipeline.Stages[int, int] {
	return pipeline.Stages[int, int]{
		Read: func(context.Context) (pipeline.Item[int], error) {
			*calls++
			return pipeline.Item[int]{}, io.EOF
		},
		Process: func(context.Context, int) (int, error) { *calls++; return 0, nil },
		Write:   func(context.Context, pipeline.Result[int, int]) error { *calls++; return nil },
		Drop:    func(pipeline.Result[int, int], error) { *calls++ },
	}
}

// TestBadInput: every invalid Config or Stages is rejected with a
// *Error naming the field, wrapping ErrConfig, before any
// goroutine starts or any stage function is called.
func TestBadInput(t *testing.T) {
	cfgCases := []struct {
		name  string
		edit  func(*pipeline.Config)
		field string
	}{
		{"no accelerators", func(c *pipeline.Config) { c.Accelerators = nil }, "Accelerators"},
		{"nil accelerator", func(c *pipeline.Config) { c.Accelerators = append(c.Accelerators, nil) }, "Accelerators[1]"},
		{"zero streams (zero workers)", func(c *pipeline.Config) { c.Streams = 0 }, "Streams"},
		{"negative streams", func(c *pipeline.Config) { c.Streams = -2 }, "Streams"},
		{"too many workers", func(c *pipeline.Config) {
			c.Accelerators = []schedkit.Accelerator{pipeline.CPU{}, pipeline.CPU{}}
			c.Streams = pipeline.MaxWorkers/2 + 1
		}, "Streams"},
		{"zero process queue", func(c *pipeline.Config) { c.ProcessQueue = 0 }, "ProcessQueue"},
		{"negative process queue", func(c *pipeline.Config) { c.ProcessQueue = -1 }, "ProcessQueue"},
		{"zero write queue", func(c *pipeline.Config) { c.WriteQueue = 0 }, "WriteQueue"},
		{"negative write queue", func(c *pipeline.Config) { c.WriteQueue = -64 }, "WriteQueue"},
		{"huge write queue", func(c *pipeline.Config) { c.WriteQueue = pipeline.MaxDepth + 1 }, "WriteQueue"},
		{"negative batch", func(c *pipeline.Config) { c.Batch = -1 }, "Batch"},
		{"huge batch", func(c *pipeline.Config) { c.Batch = pipeline.MaxDepth + 1 }, "Batch"},
		{"negative max in flight", func(c *pipeline.Config) { c.MaxInFlight = -1 }, "MaxInFlight"},
	}
	for _, tc := range cfgCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := validConfig()
			tc.edit(&cfg)
			calls := 0
			base := runtime.NumGoroutine()
			st, err := pipeline.Run(context.Background(), cfg, countingStages(&calls))
			expectConfigError(t, err, tc.field)
			if calls != 0 || st != (pipeline.Stats{}) || runtime.NumGoroutine() != base {
				t.Errorf("rejected Run did work: %d calls, stats %+v, goroutines %d → %d", calls, st, base, runtime.NumGoroutine())
			}
			if err := cfg.Validate(); !errors.Is(err, pipeline.ErrConfig) {
				t.Errorf("Validate: %v", err)
			}
		})
	}

	stageCases := []struct {
		name  string
		edit  func(*pipeline.Stages[int, int])
		field string
	}{
		{"nil read", func(s *pipeline.Stages[int, int]) { s.Read = nil }, "Stages.Read"},
		{"nil process", func(s *pipeline.Stages[int, int]) { s.Process = nil }, "Stages.Process"},
		{"both process functions", func(s *pipeline.Stages[int, int]) {
			s.ProcessBatch = func(context.Context, []int, []int, []error) {}
		}, "Stages.ProcessBatch"},
		{"nil write", func(s *pipeline.Stages[int, int]) { s.Write = nil }, "Stages.Write"},
	}
	for _, tc := range stageCases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			s := countingStages(&calls)
			tc.edit(&s)
			base := runtime.NumGoroutine()
			_, err := pipeline.Run(context.Background(), validConfig(), s)
			expectConfigError(t, err, tc.field)
			if calls != 0 || runtime.NumGoroutine() != base {
				t.Errorf("rejected Run did work: %d calls", calls)
			}
		})
	}

	t.Run("context already done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		_, err := pipeline.Run(ctx, validConfig(), countingStages(&calls))
		if !errors.Is(err, context.Canceled) || calls != 0 {
			t.Errorf("Run = %v after %d calls, want context.Canceled and no calls", err, calls)
		}
	})

	t.Run("valid", func(t *testing.T) {
		calls := 0
		if _, err := pipeline.Run(context.Background(), validConfig(), countingStages(&calls)); err != nil || calls != 1 {
			t.Errorf("Run = %v after %d calls, want nil after one Read", err, calls)
		}
	})
}

func expectConfigError(t *testing.T, err error, field string) {
	t.Helper()
	var ce *pipeline.Error
	switch {
	case !errors.Is(err, pipeline.ErrConfig):
		t.Fatalf("err = %v, want ErrConfig", err)
	case !errors.As(err, &ce):
		t.Fatalf("err = %v, not a *Error", err)
	case ce.Field != field || ce.Op != "Run":
		t.Fatalf("op %q, field %q, want Run, %q (%v)", ce.Op, ce.Field, field, err)
	}
}

// TestInFlightBound: worked numbers for the documented bound. The
// queues and their takers hold Q = 1 + ProcessQueue + held +
// 2×WriteQueue; the bound is Q, or MaxInFlight if smaller, without
// Ordered, and MaxInFlight, or 2×Q, with it.
func TestInFlightBound(t *testing.T) {
	cpu := []schedkit.Accelerator{pipeline.CPU{}}
	two := []schedkit.Accelerator{pipeline.CPU{}, pipeline.CPU{}}
	for _, tc := range []struct {
		name string
		cfg  pipeline.Config
		want int
	}{
		// lone worker holds ProcessQueue: 1 + 4 + 4 + 2×3 = 15
		{"1 worker pq=4 wq=3", pipeline.Config{Accelerators: cpu, Streams: 1, ProcessQueue: 4, WriteQueue: 3, Batch: 8}, 15},
		// 2×3 workers hold Batch (0 → 1) each: 1 + 4 + 6 + 2×3 = 17
		{"6 workers batch=0", pipeline.Config{Accelerators: two, Streams: 3, ProcessQueue: 4, WriteQueue: 3}, 17},
		// 2 workers hold 5 each: 1 + 10 + 10 + 2×1 = 23
		{"2 workers batch=5", pipeline.Config{Accelerators: cpu, Streams: 2, ProcessQueue: 10, WriteQueue: 1, Batch: 5}, 23},
		// MaxInFlight below Q caps it: min(23, 7)
		{"2 workers max=7", pipeline.Config{Accelerators: cpu, Streams: 2, ProcessQueue: 10, WriteQueue: 1, Batch: 5, MaxInFlight: 7}, 7},
		// MaxInFlight above Q changes nothing without Ordered: min(15, 100)
		{"1 worker max=100", pipeline.Config{Accelerators: cpu, Streams: 1, ProcessQueue: 4, WriteQueue: 3, MaxInFlight: 100}, 15},
		// Ordered: 2×Q = 2×17
		{"6 workers ordered", pipeline.Config{Accelerators: two, Streams: 3, ProcessQueue: 4, WriteQueue: 3, Ordered: true}, 34},
		// Ordered with a cap: the cap, above Q or not
		{"6 workers ordered max=100", pipeline.Config{Accelerators: two, Streams: 3, ProcessQueue: 4, WriteQueue: 3, Ordered: true, MaxInFlight: 100}, 100},
		{"6 workers ordered max=5", pipeline.Config{Accelerators: two, Streams: 3, ProcessQueue: 4, WriteQueue: 3, Ordered: true, MaxInFlight: 5}, 5},
	} {
		if got := tc.cfg.InFlightBound(); got != tc.want {
			t.Errorf("%s: InFlightBound = %d, want %d", tc.name, got, tc.want)
		}
	}
}

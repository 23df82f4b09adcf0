package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// TestBackPressure: a writer that blocks stops the reader after at most
// Config.InFlightBound items, in every mode (one worker or several,
// Ordered or not, MaxInFlight below, above or without the queues'
// bound), and stalls the processing stage rather than growing memory.
// Released, the pipeline writes everything.
func TestBackPressure(t *testing.T) {
	cpu := func(k int) []schedkit.Accelerator {
		var a []schedkit.Accelerator
		for i := range k {
			a = append(a, pipeline.CPU{ID: schedkit.AcceleratorID(fmt.Sprint("cpu", i))})
		}
		return a
	}
	for _, cfg := range []pipeline.Config{
		{Accelerators: cpu(1), Streams: 1, ProcessQueue: 4, WriteQueue: 3},
		{Accelerators: cpu(1), Streams: 1, ProcessQueue: 2, WriteQueue: 5, Batch: 4},
		{Accelerators: cpu(2), Streams: 2, ProcessQueue: 5, WriteQueue: 2, Batch: 3},
		{Accelerators: cpu(3), Streams: 1, ProcessQueue: 8, WriteQueue: 8, Ordered: true, MaxInFlight: 6},
		{Accelerators: cpu(2), Streams: 2, ProcessQueue: 3, WriteQueue: 3, Batch: 2, Ordered: true},
		{Accelerators: cpu(1), Streams: 1, ProcessQueue: 3, WriteQueue: 2, Ordered: true},
		{Accelerators: cpu(1), Streams: 1, ProcessQueue: 3, WriteQueue: 2, MaxInFlight: 1000},
		{Accelerators: cpu(1), Streams: 2, ProcessQueue: 2, WriteQueue: 2, Batch: 2, MaxInFlight: 5},
		{Accelerators: cpu(2), Streams: 1, ProcessQueue: 2, WriteQueue: 2, Ordered: true, MaxInFlight: 40},
	} {
		name := fmt.Sprintf("workers=%d/pq=%d/wq=%d/batch=%d/ordered=%v/max=%d",
			len(cfg.Accelerators)*cfg.Streams, cfg.ProcessQueue, cfg.WriteQueue, cfg.Batch, cfg.Ordered, cfg.MaxInFlight)
		t.Run(name, func(t *testing.T) {
			bound := cfg.InFlightBound()
			q := cfg
			q.Ordered, q.MaxInFlight = false, 0
			queues := q.InFlightBound() // what the queues alone hold
			n := 10 * bound
			var reads, processed, writes atomic.Int64
			release := make(chan struct{})
			type ret struct {
				st  pipeline.Stats
				err error
			}
			done := make(chan ret, 1)
			go func() {
				st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
					Read: func(context.Context) (pipeline.Item[int], error) {
						if reads.Load() == int64(n) {
							return pipeline.Item[int]{}, io.EOF
						}
						i := reads.Add(1)
						return pipeline.Item[int]{Requester: schedkit.NodeID(fmt.Sprint("n", i%3)), Input: int(i)}, nil
					},
					Process: func(_ context.Context, x int) (int, error) { processed.Add(1); return x, nil },
					Write: func(context.Context, pipeline.Result[int, int]) error {
						<-release // the requester's link is stuck
						writes.Add(1)
						return nil
					},
				})
				done <- ret{st, err}
			}()

			// Wait until the queues have filled, then until reading
			// stops: no new read for 100 ms. (A starved reader can only
			// read less, so a slow machine cannot fake a pass.)
			least := int64(min(bound, cfg.ProcessQueue+cfg.WriteQueue))
			deadline := time.Now().Add(10 * time.Second)
			for reads.Load() < least {
				if time.Now().After(deadline) {
					t.Fatalf("only %d reads, want at least the queues' %d", reads.Load(), least)
				}
				time.Sleep(time.Millisecond)
			}
			last, since := int64(-1), time.Now()
			for time.Since(since) < 100*time.Millisecond {
				if time.Now().After(deadline) {
					t.Fatalf("reader never stalled: %d reads", reads.Load())
				}
				if r := reads.Load(); r != last {
					last, since = r, time.Now()
				}
				time.Sleep(time.Millisecond)
			}
			if last > int64(bound) || processed.Load() > int64(bound) {
				t.Errorf("stalled writer: %d read, %d processed; bound %d", last, processed.Load(), bound)
			}
			t.Logf("stalled after %d reads (bound %d)", last, bound)

			close(release)
			r := <-done
			if r.err != nil || r.st.Write.Items != int64(n) || writes.Load() != int64(n) {
				t.Fatalf("after release: err %v, wrote %d of %d", r.err, r.st.Write.Items, n)
			}
			switch {
			case bound < queues: // the MaxInFlight cap holds the reader
				if r.st.Read.BlockedOut <= 0 {
					t.Errorf("read stage never blocked on MaxInFlight: %+v", r.st.Read)
				}
			case cfg.Ordered: // the queues or the default cap hold the reader
				if r.st.Process.BlockedOut <= 0 && r.st.Read.BlockedOut <= 0 {
					t.Errorf("neither the process stage nor the reader blocked: %+v", r.st)
				}
			case r.st.Process.BlockedOut <= 0:
				t.Errorf("process stage never blocked on the write queue: %+v", r.st.Process)
			}
			if hw := r.st.WriteQueue.HighWater; hw != cfg.WriteQueue && cfg.MaxInFlight == 0 && !cfg.Ordered {
				t.Errorf("write queue high water %d, want full %d", hw, cfg.WriteQueue)
			}
		})
	}
}

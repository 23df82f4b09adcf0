package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// bareHandoff moves n ints from one goroutine to another through a
// buffered channel of the given capacity: the reference for
// BenchmarkOverhead.
func bareHandoff(n, depth int) {
	ch := make(chan int, depth)
	done := make(chan int)
	go func() {
		s := 0
		for v := range ch {
			s += v
		}
		done <- s
	}()
	for i := range n {
		ch <- i
	}
	close(ch)
	<-done
}

// noopPipeline pushes n ints through a pipeline whose stages do nothing.
func noopPipeline(tb testing.TB, cfg pipeline.Config, n int) {
	i := 0
	sum := 0
	st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: func(context.Context) (pipeline.Item[int], error) {
			if i == n {
				return pipeline.Item[int]{}, io.EOF
			}
			i++
			return pipeline.Item[int]{Requester: "n1", Input: i}, nil
		},
		Process: func(_ context.Context, x int) (int, error) { return x, nil },
		Write: func(_ context.Context, r pipeline.Result[int, int]) error {
			sum += r.Output
			return nil
		},
	})
	if err != nil || st.Write.Items != int64(n) {
		tb.Fatalf("Run: %v, wrote %d of %d", err, st.Write.Items, n)
	}
}

// BenchmarkOverhead measures the pipeline's own cost per item (no-op
// stages) against a bare buffered-channel handoff between two goroutines
// of the same depth, interleaved in the same loop so both see the same
// machine noise. Each iteration moves the same number of items through
// both; the metrics are medians over the iterations of pipe-ns/item,
// bare-ns/item and their per-iteration ratio x-bare (targets: ≤ 1.3 with
// one worker, ≤ 1.5 with several workers and Ordered).
func BenchmarkOverhead(b *testing.B) {
	const items = 20_000
	for _, c := range []struct {
		depth, batch, streams int
		ordered               bool
	}{
		{64, 1, 1, false},
		{64, 16, 1, false},
		{64, 64, 1, false},
		{64, 1, 1, true},
		{64, 16, 2, true},
	} {
		name := fmt.Sprintf("depth=%d/batch=%d/streams=%d/ordered=%v", c.depth, c.batch, c.streams, c.ordered)
		b.Run(name, func(b *testing.B) {
			cfg := pipeline.Config{
				Accelerators: []schedkit.Accelerator{pipeline.CPU{}},
				Streams:      c.streams,
				ProcessQueue: c.depth,
				WriteQueue:   c.depth,
				Batch:        c.batch,
				Ordered:      c.ordered,
			}
			b.ReportAllocs()
			var pipe, bare, ratio []float64
			for b.Loop() {
				t0 := time.Now()
				bareHandoff(items, c.depth)
				t1 := time.Now()
				noopPipeline(b, cfg, items)
				t2 := time.Now()
				bare = append(bare, float64(t1.Sub(t0))/items)
				pipe = append(pipe, float64(t2.Sub(t1))/items)
				ratio = append(ratio, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
			}
			// Medians of the paired samples: a burst of load from
			// elsewhere on the machine hits one pair, not the result.
			b.ReportMetric(median(pipe), "pipe-ns/item")
			b.ReportMetric(median(bare), "bare-ns/item")
			b.ReportMetric(median(ratio), "x-bare")
		})
	}
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if len(xs) == 0 {
		return 0
	}
	return (xs[(len(xs)-1)/2] + xs[len(xs)/2]) / 2
}

// BenchmarkThroughput runs stages with fixed, unequal service times (read
// 1 unit, process 3, write 1; a unit is 1 ms of time.Sleep, which costs no
// CPU on a busy machine) through the pipeline and through a serial
// read-process-write loop, in the same iteration.
//
// time.Sleep overshoots here by 0.1 ms or more, by an amount that drifts
// with machine load, so each side is compared with its own measured stage
// times rather than the nominal ones: the serial loop times each call,
// the pipeline's Stats give each stage's busy time per item (the process
// stage's divided by its workers). Metrics:
//
//   - thru/ideal: steady pipeline throughput (first to last write) over
//     1/max(stage time) (target ≥ 0.95);
//   - speedup/ideal: the serial loop's time over the pipeline's (fill and
//     drain included), over the ideal sum/max, i.e.
//     (serial time / serial Σ stage times) / (pipeline time / pipeline max
//     stage time) (target ≥ 0.95);
//   - thru/serial-ideal: the same throughput over 1/max(stage time) with
//     the stage times measured in the serial loop instead: independent of
//     the pipeline's own accounting, but moved by the drift of time.Sleep
//     between the two halves of the iteration;
//   - items/s and max-stage-ms, the raw figures.
func BenchmarkThroughput(b *testing.B) {
	const unit = time.Millisecond
	const items = 100
	for _, c := range []struct {
		read, proc, write time.Duration
		streams           int
	}{
		{1 * unit, 3 * unit, 1 * unit, 1},
		{1 * unit, 3 * unit, 1 * unit, 2},
	} {
		name := fmt.Sprintf("units=%d-%d-%d/workers=%d", c.read/unit, c.proc/unit, c.write/unit, c.streams)
		b.Run(name, func(b *testing.B) {
			var serialAll, serialSum, pipeAll, pipeMax, steady time.Duration
			var serialStage [3]time.Duration
			rounds := 0
			for b.Loop() {
				rounds++
				// Serial reference: one goroutine does everything.
				t0 := time.Now()
				for range items {
					s0 := time.Now()
					time.Sleep(c.read)
					s1 := time.Now()
					time.Sleep(c.proc)
					s2 := time.Now()
					time.Sleep(c.write)
					s3 := time.Now()
					serialStage[0] += s1.Sub(s0)
					serialStage[1] += s2.Sub(s1)
					serialStage[2] += s3.Sub(s2)
					serialSum += s3.Sub(s0)
				}
				serialAll += time.Since(t0)

				// Pipeline.
				n := 0
				var first, last time.Time
				cfg := pipeline.Config{
					Accelerators: []schedkit.Accelerator{pipeline.CPU{}},
					Streams:      c.streams,
					ProcessQueue: 4,
					WriteQueue:   4,
				}
				t1 := time.Now()
				st, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
					Read: func(context.Context) (pipeline.Item[int], error) {
						if n == items {
							return pipeline.Item[int]{}, io.EOF
						}
						time.Sleep(c.read)
						n++
						return pipeline.Item[int]{Requester: "n1", Input: n}, nil
					},
					Process: func(_ context.Context, x int) (int, error) {
						time.Sleep(c.proc)
						return x, nil
					},
					Write: func(context.Context, pipeline.Result[int, int]) error {
						time.Sleep(c.write)
						last = time.Now()
						if first.IsZero() {
							first = last
						}
						return nil
					},
				})
				pipeAll += time.Since(t1)
				if err != nil {
					b.Fatal(err)
				}
				steady += last.Sub(first)
				pipeMax += max(st.Read.Busy, st.Process.Busy/time.Duration(c.streams), st.Write.Busy) / items
			}
			perStage := float64(pipeMax) / float64(rounds) // ns per item at the bottleneck
			thru := float64(rounds*(items-1)) / float64(steady)
			b.ReportMetric(thru*perStage, "thru/ideal")
			serialMax := max(serialStage[0], serialStage[1]/time.Duration(c.streams), serialStage[2])
			b.ReportMetric(thru*float64(serialMax)/float64(rounds*items), "thru/serial-ideal")
			serialEff := float64(serialAll) / float64(serialSum)
			pipeEff := float64(pipeAll) / float64(pipeMax)
			b.ReportMetric(serialEff/pipeEff*items, "speedup/ideal")
			b.ReportMetric(thru*1e9, "items/s")
			b.ReportMetric(perStage/1e6, "max-stage-ms")
		})
	}
}

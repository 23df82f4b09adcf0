package pipeline

import (
	"fmt"
	"strings"
	"time"
)

// Stats describes one Run: what each stage did and how full the queues
// got, so a user can see which stage limits throughput.
//
// Every item read is either written or dropped:
// Read.Items == Write.Items + Dropped.
type Stats struct {
	Read    StageStats
	Process StageStats
	Write   StageStats
	// ProcessQueue and WriteQueue describe the two queues.
	ProcessQueue QueueStats
	WriteQueue   QueueStats
	// Dropped counts the items read but not written, each reported to
	// Stages.Drop: undeliverable results and the items in flight when the
	// pipeline stopped.
	Dropped int64
	// Elapsed is the wall time from the start of the stage goroutines to
	// the exit of the last one.
	Elapsed time.Duration
}

// StageStats describes one stage. For the process stage the items and
// durations are summed over its workers.
type StageStats struct {
	// Workers is the number of goroutines that ran the stage.
	Workers int
	// Items counts the items the stage completed: read, processed
	// (failed or not), or written (Write returned nil).
	Items int64
	// Failed counts processing failures (Result.Err set) for the process
	// stage, and undeliverable results for the write stage.
	Failed int64
	// Busy is the wall-clock time the stage's goroutines were not waiting
	// on a pipeline queue: time in the host's function (including any
	// waiting of its own, such as Read waiting for a request) plus the
	// pipeline's bookkeeping, which includes the one yield of the
	// processor a goroutine makes before it waits. It is measured with
	// the clock, not the CPU: it also counts the time a goroutine was
	// runnable but not running (more busy goroutines than GOMAXPROCS, or
	// a loaded machine), so it is an upper bound on the stage's CPU time,
	// and Utilisation can overstate how busy an oversubscribed stage's
	// code really was.
	Busy time.Duration
	// BlockedIn is the time spent waiting for input on an empty queue
	// (process and write stages).
	BlockedIn time.Duration
	// BlockedOut is the time spent waiting for room on a full output
	// queue, or (read stage) for the MaxInFlight cap.
	BlockedOut time.Duration
}

// Utilisation returns the stage's busy fraction over elapsed: Busy divided
// by Workers × elapsed, or 0 if either is zero.
func (s StageStats) Utilisation(elapsed time.Duration) float64 {
	if s.Workers == 0 || elapsed <= 0 {
		return 0
	}
	return float64(s.Busy) / (float64(s.Workers) * float64(elapsed))
}

// QueueStats describes one queue.
type QueueStats struct {
	// Depth is the configured capacity, in items.
	Depth int
	// HighWater is the most items the queue held at once.
	HighWater int
}

// Bottleneck returns the stage with the highest utilisation: the one that
// limits throughput. Ties go to the earlier stage.
func (s Stats) Bottleneck() Stage {
	best, bu := StageRead, s.Read.Utilisation(s.Elapsed)
	if u := s.Process.Utilisation(s.Elapsed); u > bu {
		best, bu = StageProcess, u
	}
	if u := s.Write.Utilisation(s.Elapsed); u > bu {
		best = StageWrite
	}
	return best
}

// String renders s on one line, e.g. "3 items, 0 failed, busy 1.2ms,
// blocked in 0s, out 4ms, 2 workers".
func (s StageStats) String() string {
	w := ""
	if s.Workers != 1 {
		w = fmt.Sprintf(", %d workers", s.Workers)
	}
	return fmt.Sprintf("%d items, %d failed, busy %v, blocked in %v, out %v%s",
		s.Items, s.Failed, s.Busy, s.BlockedIn, s.BlockedOut, w)
}

// String renders s on five lines: each stage with its utilisation, the
// queues' high-water marks against their depths, and the dropped count,
// elapsed time and bottleneck.
func (s Stats) String() string {
	var b strings.Builder
	for _, st := range [...]struct {
		name string
		s    StageStats
	}{{"read", s.Read}, {"process", s.Process}, {"write", s.Write}} {
		fmt.Fprintf(&b, "%-7s  %v (utilisation %.0f%%)\n", st.name, st.s, 100*st.s.Utilisation(s.Elapsed))
	}
	fmt.Fprintf(&b, "queues   process %d/%d, write %d/%d (high water/depth)\n",
		s.ProcessQueue.HighWater, s.ProcessQueue.Depth, s.WriteQueue.HighWater, s.WriteQueue.Depth)
	fmt.Fprintf(&b, "total    %d dropped, elapsed %v, bottleneck %v", s.Dropped, s.Elapsed, s.Bottleneck())
	return b.String()
}

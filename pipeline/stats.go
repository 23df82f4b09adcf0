package pipeline

import "time"

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
	// Busy is the time the stage's goroutines were not waiting on a
	// pipeline queue: time in the host's function (including any waiting
	// of its own, such as Read waiting for a request) plus the
	// pipeline's bookkeeping, which includes the one yield of the
	// processor a goroutine makes before it waits.
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

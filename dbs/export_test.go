package dbs

// UsePreviousTick makes s run the previous weight update (every job
// evaluated from scratch, heaps rebuilt): the reference for
// TestTickEquivalence and BenchmarkTickPrevious.
func UsePreviousTick(s *Scheduler) { s.prevTick = true }

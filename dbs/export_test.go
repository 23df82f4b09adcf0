package dbs

// UsePreviousTick makes s run the previous weight update (every job
// evaluated from scratch, heaps rebuilt): the reference for
// TestTickEquivalence and BenchmarkTickPrevious.
func UsePreviousTick(s *Scheduler) { s.reference = referenceTick }

// Lapsed returns the number of jobs the last weight update skipped as
// lapsed (settled.lapsed: figures kept, evaluation left to materialize).
func Lapsed(s *Scheduler) int {
	n := 0
	for _, e := range s.all {
		if e.cache.lazy {
			n++
		}
	}
	return n
}

// Frozen returns the number of jobs the next weight update skips as
// frozen (settled.frozen), for tests that must exercise them.
func Frozen(s *Scheduler) int {
	n := 0
	for i := range s.settle {
		if st := &s.settle[i]; st.ok && st.frozen {
			n++
		}
	}
	return n
}

// Skips returns how many jobs s's weight updates skipped so far, by
// path: frozen, without a task time, lapsed, φ = 0 unchanged.
func Skips(s *Scheduler) [4]int {
	k := s.skipped
	return [4]int{k.frozen, k.unknown, k.lapsed, k.phi0}
}

// MembershipScans returns how many times s rescanned the cluster to find
// a heartbeating node (internal/membership): none with a Cluster that
// implements schedkit.NodeLookup.
func MembershipScans(s *Scheduler) uint64 { return s.members.Scans() }

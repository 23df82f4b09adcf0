package fgm

// Run skipping, an acceleration of Algorithm 1: once a run of alike
// pending tasks is refused, the rest of it is skipped by galloping.

// skipRun returns the index of the first pending task of j after the
// run (see enqueue) of the one at i, which this call has just refused or
// skipped on the server: each later task of the run would be refused or
// skipped the same way, with nothing else changing. It holds when
// predictions come from a History (the key decides them, and a
// prediction changes nothing) or there is no Estimator; with any
// other Estimator (one that may predict each task differently) it
// returns i+1. It finds the end of the run by galloping,
// so the cost is logarithmic in the run's length.
func (s *Scheduler) skipRun(j *jobEntry, i int) int {
	if !s.refusals.alike {
		return i + 1
	}
	runs := j.runs
	r := runs[i]
	lo, step := i, 1 // runs[lo] is in the run
	for lo+step < len(runs) && runs[lo+step] == r {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(runs)) // runs[hi] is not, or hi is the end
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if runs[m] == r {
			lo = m
		} else {
			hi = m
		}
	}
	s.skips.runTasks += uint64(hi - i - 1)
	return hi
}

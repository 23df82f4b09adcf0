package fgm

// Run skipping, an acceleration of Algorithm 1's walk: once a task of a
// run of alike pending tasks is refused or passed by, the rest of the
// run is skipped by galloping.

// runSkip is the stage. It holds when tasks alike are predicted alike
// (estimation.alike: a History, whose prediction is the key's and
// changes nothing, or no Estimator): every later task of the run would
// be refused or passed by the same way, with nothing else changing.
type runSkip struct {
	noStage
	tasks uint64 // tasks skipped inside refused runs
}

func newRunSkip(s *Scheduler) stage {
	if !s.est.alike {
		return noStage{}
	}
	return &runSkip{}
}

func (r *runSkip) hooks() hookSet { return onNext }

func (r *runSkip) counts(add func(string, uint64)) { add("runTasks", r.tasks) }

// next returns the index of the first pending task of j after the run
// (see enqueue) of the one at i, found by galloping, so the cost is
// logarithmic in the run's length.
func (r *runSkip) next(_ *walk, j *jobEntry, i int) int {
	runs := j.runs
	run := runs[i]
	lo, step := i, 1 // runs[lo] is in the run
	for lo+step < len(runs) && runs[lo+step] == run {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(runs)) // runs[hi] is not, or hi is the end
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if runs[m] == run {
			lo = m
		} else {
			hi = m
		}
	}
	r.tasks += uint64(hi - i - 1)
	return hi
}

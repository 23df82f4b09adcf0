package fgm

// The reference paths of the accelerations, kept out of the production
// code: Algorithm 1 walked as printed (scheduleLiteral), and the usage
// samples found by ID without the sampling cursor (lookupSamples). The
// equivalence tests (TestRunSkipMatchesScan, TestSampleCursorMatchesLookup)
// and the benchmarks' "reference" and "lookup" paths run them through
// export_test.go.

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// scheduleLiteral is Algorithm 1 for server v at off exactly as the
// paper prints it, with none of schedule's accelerations: the active
// jobs fully sorted by the Fairness order (compareJobs) at every call,
// and again after every allocation under Progressive; every pending
// task of each job one by one in submission order (a run entry of
// SubmitRun expanded to its tasks); the prediction asked of the
// Estimator for the task itself. No refusal memory, no idle repeat, no
// closed kinds, no run skipping, no job sets, no kept job order. It
// shares with schedule only the primitives of the paper's steps: the
// used-up test, locality, the validity and usability of a prediction,
// and the placement (match, checkQoS, allocate) with its undo log.
func (s *Scheduler) scheduleLiteral(v *server, off time.Duration, dst []Decision) ([]Decision, error) {
	// Line 1: skip a server under stop-allocation or used up.
	v.refresh(off)
	if v.policy == StopAllocation || v.usedUp(v.free.At(off)) || len(s.active) == 0 {
		return dst, nil
	}
	start := len(dst)
	s.beginUndo(v)
	fail := func(err error) ([]Decision, error) {
		s.rollback(v)
		return dst[:start], err
	}
	// Line 4: the jobs in Fairness order.
	sorted := func() []*jobEntry {
		jobs := slices.Clone(s.active)
		slices.SortFunc(jobs, s.compareJobs)
		return jobs
	}
	jobs := sorted()
	done := map[*jobEntry]bool{} // Progressive: the jobs that placed nothing in this call
jobs:
	for k := 0; k < len(jobs); k++ {
		j := jobs[k]
		if done[j] {
			continue
		}
		var failKey schedkit.SimilarityKey // the same-key rule: a predicted key refused in this job
		failed := false
		// Lines 5–18, task by task in submission order.
		for i := 0; i < len(j.pending); {
			p := j.pending[i]
			if p.src != nil {
				// A run entry stands for its tasks: take its head.
				q, err := s.splitHead("Schedule", j, i)
				if err != nil {
					return fail(err)
				}
				p = q
			}
			// Line 6: locality (delay scheduling).
			if !s.local(p, v, off) {
				i++
				continue
			}
			// Lines 8–9: predict; an unpredictable task gets its request.
			var prof estimate.Profile
			ok := false
			if s.cfg.Estimator != nil {
				prof, ok = s.cfg.Estimator.Predict(p.t)
			}
			if ok {
				if err := s.validProfile(prof); err != nil {
					err.Op, err.Job, err.Task, err.Node = "Schedule", j.state.ID, p.id, v.id
					return fail(err)
				}
				if s.est.hist != nil && failed && p.key == failKey {
					i++
					continue
				}
				prof = s.wholeUnits(prof, p.requested)
			}
			why := Unpredictable
			if ok && !s.usable(prof) {
				ok, prof, why = false, estimate.Profile{}, EstimateFitsNoServer
			}
			// Lines 10–18: match (request, Algorithm 2 or coarse),
			// checkQoS, allocate.
			q, err := s.place(v, p, i, prof, ok, off)
			if err != nil {
				return fail(err)
			}
			if q == nil {
				if ok {
					failKey, failed = p.key, true
				}
				i++
				continue
			}
			d := Decision{Action: Allocate, Task: q.id, Job: j.state.ID, Node: v.id, Mode: q.mode, Plan: q.plan}
			if q.mode == Requested {
				d.Reason = why
			}
			dst = append(dst, d)
			// Line 19: stop when the server is used up.
			if v.usedUp(v.free.At(off)) {
				break jobs
			}
			if s.cfg.Progressive {
				jobs, k = sorted(), -1
				continue jobs
			}
		}
		done[j] = true
	}
	return dst, nil
}

// lookupSamples makes the next SampleTask and SampleNode find their
// task and server by ID: the sampling cursor guesses nothing.
func (s *Scheduler) lookupSamples() {
	s.smp.smpPrev = nil
	s.smp.nodeNext = -1
}

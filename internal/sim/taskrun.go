package sim

import "github.com/schedkit/schedkit"

// This file serves hosts that hand a phase's waiting tasks to a policy
// as one run (fgm.SubmitRun) instead of one object each: a phase whose
// tasks are alike is described without materialising them, and the
// tasks pending again after a failure are listed apart from the
// never-started ones.

// PhaseAlike reports whether every task of phase p has the same
// similarity key and the same Requested vector (PhaseRequest) and no
// data locations, and returns that key: a workload.TaskBatch phase (one
// Logic and DataSize) whose tasks ask alike. Its never-started tasks
// may then be handed to a policy as one run, each materialised
// (Job.Task) only when it is placed. False for p out of range.
func (j *Job) PhaseAlike(p schedkit.Phase) (schedkit.SimilarityKey, bool) {
	if int(p) >= len(j.phases) {
		return schedkit.SimilarityKey{}, false
	}
	ph := &j.phases[p]
	sp := &j.spec.Phases[p]
	if len(sp.Tasks) > 0 || sp.Batch == nil || ph.req == nil || ph.loc != nil {
		return schedkit.SimilarityKey{}, false
	}
	return schedkit.SimilarityKey{Logic: sp.Batch.Logic, DataSize: sp.Batch.DataSize}, true
}

// RetryTasks appends to dst the ready tasks of phase p that are pending
// again after a failure, a lost node or a preemption (each once), in the
// order ReadyTasks lists them after the tasks local to its node, and
// returns it. Such tasks started before, so they exist already; the
// other ready tasks of an unlocked phase are its never-started ones.
// It changes nothing.
func (j *Job) RetryTasks(p schedkit.Phase, dst []*Task) []*Task {
	if int(p) >= len(j.phases) || j.state != jobActive {
		return dst
	}
	ph := &j.phases[p]
	if !ph.unlocked || ph.prog.Ready == 0 {
		return dst
	}
	b := j.b
	b.mark++
	for _, r := range ph.retry[ph.retryAt:] {
		if !r.valid(j) {
			continue
		}
		if t := j.liveAt(r.task); t.mark != b.mark {
			t.mark = b.mark
			dst = append(dst, t)
		}
	}
	return dst
}

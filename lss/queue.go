package lss

import (
	"errors"
	"time"

	"github.com/schedkit/schedkit"
)

// Pick is one entry of Queue: Count ready tasks of Job's Phase, handed
// out in Pass (1: the first map of a job with none; 2: the phase-0 kind —
// the paper's map pass; 3: the next kind — the reduce pass; 2+k for the
// k-th kind with more phases), as an Assign decision would say.
type Pick struct {
	Job   schedkit.JobID
	Phase schedkit.Phase
	Count int
	Pass  int
}

// Queue appends to dst the order in which Algorithm 1 hands out the
// queued jobs' ready tasks at now: the assignments a heartbeat at now
// would make if the node had unlimited free slots of every kind, under
// the same Config (with NoFirstMapPass, no pass-1 picks). It is
// the entry point for hosts that place one task at a time (a Kubernetes
// scheduling queue pops one pod per cycle): give a task of kind k a slot
// in the order of the picks of kind k, and the tasks that get slots are
// exactly those the heartbeats at now would assign, for any split of the
// free slots among nodes — for each kind, the assignments of any sequence
// of heartbeats at now are a prefix of Queue's picks of that kind
// (TestQueueIsHeartbeatPrefix, for every combination of the options) —
// provided that a job with no finished or
// running task has no ready task outside phase 0's kind, as with
// MapReduce slow-start. (Otherwise a heartbeat of a node with no free
// slot of phase 0's kind could start such a job's later-phase task first,
// which ends its claim to a pass-1 task on the next node.)
//
// Jobs a heartbeat at now would kill are left out (their Kill is in
// Order); with SoftDeadlines they stay in, as in Heartbeat. Tasks
// already assigned since a job's last Update are not listed again. Queue
// decides and changes nothing; errors and cost are those of Order.
func (s *Scheduler) Queue(now time.Time, dst []Pick) ([]Pick, error) {
	order, err := s.Order(now, nil)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Op = "Queue"
		}
		return dst, err
	}
	live := order[:0]
	for _, st := range order {
		if st.Kill == NoReason || s.cfg.SoftDeadlines {
			live = append(live, st)
		}
	}
	if len(live) == 0 {
		return dst, nil
	}
	first := make(map[schedkit.JobID]bool)
	// Pass 1 (unless NoFirstMapPass): one phase-0 task to each job with
	// no finished, running or assigned task.
	for _, st := range live {
		if s.cfg.NoFirstMapPass {
			break
		}
		e := s.jobs[st.Job]
		if e.fresh() && e.avail(0) > 0 {
			first[st.Job] = true
			dst = append(dst, Pick{Job: st.Job, Phase: 0, Count: 1, Pass: 1})
		}
	}
	// Passes 2, 3, …: each kind's ready tasks in order, earlier phases
	// first within a job.
	for k := range s.lay.kindIndex {
		for _, st := range live {
			e := s.jobs[st.Job]
			for _, p := range s.lay.kindPhases[k] {
				n := e.avail(p)
				if p == 0 && first[st.Job] {
					n--
				}
				if n > 0 {
					dst = append(dst, Pick{Job: st.Job, Phase: schedkit.Phase(p), Count: n, Pass: 2 + k})
				}
			}
		}
	}
	return dst, nil
}

// PhaseKind returns the index, among the distinct slot kinds of
// Config.PhaseKinds in order of first appearance, of the kind that runs
// phase p, and false if the scheduler has no phase p. Pick.Pass − 2 is
// this index for passes 2 and later; pass 1 is always kind PhaseKind(0).
func (s *Scheduler) PhaseKind(p schedkit.Phase) (int, bool) {
	if int(p) >= len(s.lay.phaseKind) {
		return 0, false
	}
	return s.lay.phaseKind[p], true
}

package sim

import (
	"math"

	"github.com/schedkit/schedkit"
)

// checkKill decides CouldHaveMade for a job about to be killed or
// rejected, by an optimistic rule that ignores every other job:
//
//   - a running attempt finishes after its remaining isolated time (the
//     rest of its current stage and all later stages) divided by its
//     node's speed, uncontended; one waiting for an earlier phase runs its
//     whole profile once that phase ends;
//   - the pending tasks of a phase start when the previous phase ends (now
//     for the first) and run in ⌈pending/slots⌉ waves of their mean
//     isolated duration, where slots is how many of them (sized by the
//     element-wise largest request among them) fit on all live nodes at
//     once, counting node by node;
//   - the phase ends when both its running and pending tasks are done.
//
// The job "could have made it" iff its last phase ends by the deadline. A
// job without a deadline is not checked (CheckedKill stays false).
func (b *book) checkKill(j *Job) {
	if j.deadline.IsZero() {
		return
	}
	j.checked = true
	j.could = b.optimisticEnd(j) <= j.submitOff+int64(j.spec.Deadline)
}

// optimisticEnd is the rule's prediction of when j ends, in virtual
// nanoseconds (math.MaxInt64: never, no node can hold a phase's task).
func (b *book) optimisticEnd(j *Job) int64 {
	now := b.eng.now
	prevEnd := float64(now)
	var view Task
	req := b.vecBuf
	for p := range j.phases {
		ph := &j.phases[p]
		end := prevEnd
		pending, sum := 0, 0.0
		for i := range req {
			req[i] = 0
		}
		for i := ph.first; i < ph.first+ph.prog.Total; i++ {
			t := j.peek(int32(i), &view)
			switch {
			case t.run != nil:
				a := t.run
				left := 0.0
				if a.waiting {
					for _, st := range a.profile {
						left += float64(st.Duration)
					}
					end = math.Max(end, prevEnd+left/t.node.speed)
					continue
				}
				left = a.rem - float64(now-a.last)*a.rate
				if left < 0 || a.stage >= len(a.profile) {
					left = 0
				}
				for _, st := range a.profile[min(a.stage+1, len(a.profile)):] {
					left += float64(st.Duration)
				}
				end = math.Max(end, float64(now)+left/t.node.speed)
			case t.state == schedkit.TaskPending:
				pending++
				sum += float64(t.spec.Duration())
				_ = req.Max(t.spec.Requested)
			}
		}
		if pending > 0 {
			slots := b.w.slotsFor(req)
			if slots == 0 {
				return math.MaxInt64
			}
			waves := math.Ceil(float64(pending) / float64(slots))
			end = math.Max(end, prevEnd+waves*sum/float64(pending))
		}
		prevEnd = end
	}
	if prevEnd >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(prevEnd)
}

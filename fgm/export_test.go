package fgm

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// ScheduleLiteral is Schedule with Algorithm 1 walked as printed
// (scheduleLiteral): the reference of the equivalence tests.
func ScheduleLiteral(s *Scheduler, now time.Time, node schedkit.Node, dst []Decision) ([]Decision, error) {
	return s.scheduleBy(now, node, dst, (*Scheduler).scheduleLiteral)
}

// SampleTaskLookup is SampleTask with the task looked up by ID (the
// sampling cursor's reference).
func SampleTaskLookup(s *Scheduler, now time.Time, id schedkit.TaskID, used resource.Vector) error {
	s.lookupSamples()
	return s.SampleTask(now, id, used)
}

// SampleNodeLookup is SampleNode with the server looked up by ID.
func SampleNodeLookup(s *Scheduler, now time.Time, id schedkit.NodeID, used resource.Vector) error {
	s.lookupSamples()
	return s.SampleNode(now, id, used)
}

// SkipCounts returns how often each acceleration took its fast path.
func SkipCounts(s *Scheduler) map[string]uint64 {
	k := s.skips
	return map[string]uint64{
		"refusals": s.refusals.hits, "unpredictableRefusals": s.refusals.unpredictableHits, "runTasks": k.runTasks, "idleRepeats": k.idleRepeats,
		"closedCalls": k.closedCalls, "closedJobs": k.closedJobs, "setWalks": k.setWalks,
		"sortMoves": k.sortMoves, "taskCursor": k.taskCursor, "nodeCursor": k.nodeCursor,
		"clockRepeats": s.clock.Repeats(),
	}
}

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

// SkipCounts returns how often each acceleration took its fast path, by
// name: the walk's stages' counters (an acceleration left out has none),
// the sampling cursors' and the clock's.
func SkipCounts(s *Scheduler) map[string]uint64 {
	m := map[string]uint64{
		"taskCursor": s.smp.taskCursor, "nodeCursor": s.smp.nodeCursor,
		"clockRepeats": s.clock.Repeats(),
	}
	s.walk.counts(func(name string, n uint64) { m[name] += n })
	return m
}

package fgm

// SetScanEach turns off Schedule's skipping of runs of alike pending
// tasks, for the equivalence tests (the reference path visits every
// pending task).
func SetScanEach(s *Scheduler, on bool) { s.scanEach = on }

// SetNoCursor makes SampleTask and SampleNode look every task and server
// up by ID, for the equivalence tests of the sampling cursor.
func SetNoCursor(s *Scheduler, on bool) { s.noCursor = on }

// SkipCounts returns how often each acceleration took its fast path.
func SkipCounts(s *Scheduler) map[string]uint64 {
	k := s.skips
	return map[string]uint64{
		"refusals": k.refusals, "runTasks": k.runTasks, "idleRepeats": k.idleRepeats,
		"closedCalls": k.closedCalls, "closedJobs": k.closedJobs, "setWalks": k.setWalks,
		"sortMoves": k.sortMoves, "taskCursor": k.taskCursor, "nodeCursor": k.nodeCursor,
	}
}

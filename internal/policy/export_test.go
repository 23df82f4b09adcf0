package policy

// SetEagerUpdates makes p pass every job it assigned tasks to to dbs's
// Update at its next call, as before lazy marks (markLazy): the
// reference TestDBSQuietHeartbeatsChangeNothing compares with.
func SetEagerUpdates(p *DBS) { p.eager = true }

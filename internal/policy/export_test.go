package policy

// SetEagerUpdates makes p pass every job it assigned tasks to to dbs's
// Update at its next call, as before lazy marks (markLazy): the
// reference TestDBSQuietHeartbeatsChangeNothing compares with.
func SetEagerUpdates(p *DBS) { p.eager = true }

// SetFGMScanAll makes p's sync read every active job's ready tasks at
// every heartbeat (the reference path of the equivalence test).
func SetFGMScanAll(p *FGM, on bool) { p.scanAll = on }

// FGMRuns returns how many runs p submitted with fgm.SubmitRun.
func FGMRuns(p *FGM) int { return p.runs }

package fgm

// SetScanEach turns off Schedule's skipping of runs of alike pending
// tasks, for the equivalence tests (the reference path visits every
// pending task, as before the skipping existed).
func SetScanEach(s *Scheduler, on bool) { s.scanEach = on }

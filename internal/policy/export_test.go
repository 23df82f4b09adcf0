package policy

// SetFGMScanAll makes p's sync read every active job's ready tasks at
// every heartbeat (the reference path of the equivalence test).
func SetFGMScanAll(p *FGM, on bool) { p.scanAll = on }

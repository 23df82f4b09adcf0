package policy

import (
	"fmt"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
)

// SetEagerUpdates makes p pass every job it assigned tasks to to dbs's
// Update at its next call, as before lazy marks (markLazy): the
// reference TestDBSQuietHeartbeatsChangeNothing compares with.
func SetEagerUpdates(p *DBS) { p.eager = true }

// SetFGMScanAll makes p's sync read every active job's ready tasks at
// every heartbeat (the reference path of the equivalence test).
func SetFGMScanAll(p *FGM, on bool) { p.scanAll = on }

// FGMRuns returns how many runs p submitted with fgm.SubmitRun.
func FGMRuns(p *FGM) int { return p.runs }

// FGMCheckTasks checks that p's lookup of a task by ID (task, as Tick
// resolves a Reclaim) finds every task p holds as the object it holds,
// the placed tasks of runs (not in byID) by their node. It returns how
// many it found by their node. Each is also looked up with a wrong
// node (found by the scan of the held tasks).
func FGMCheckTasks(p *FGM, c *sim.Cluster) (byNode int, err error) {
	for t := range p.known {
		node := schedkit.NodeID("")
		if n := t.Node(); n != nil {
			node = n.ID()
		}
		if p.byID[t.ID()] == nil {
			byNode++
		}
		if inByID := p.byID[t.ID()] == t; p.known[t] != inByID {
			return byNode, fmt.Errorf("task %s: known says in byID %v, byID says %v", t.ID(), p.known[t], inByID)
		}
		if got := p.task(t.ID(), node, c); got != t {
			return byNode, fmt.Errorf("task %s on %q: found %p, hold %p", t.ID(), node, got, t)
		}
		if got := p.task(t.ID(), "elsewhere", c); got != t {
			return byNode, fmt.Errorf("task %s not on its node: found %p, hold %p", t.ID(), got, t)
		}
	}
	return byNode, nil
}

package policy

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
)

// SetEagerUpdates makes p pass every job it assigned tasks to to dbs's
// Update at its next call, as before lazy marks (markLazy): the
// reference TestDBSQuietHeartbeatsChangeNothing compares with.
func SetEagerUpdates(p *DBS) { p.eager = true }

// FGMFullScan returns p with a Heartbeat that reads every job's ready
// tasks and submits each fgm does not hold as a task of its own (no
// runs), at every heartbeat: the reference of sync's marked jobs and
// runs (TestFGMSyncMatchesFullScan).
func FGMFullScan(p *FGM) sim.Policy { return fgmFullScan{p} }

type fgmFullScan struct{ *FGM }

func (q fgmFullScan) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p := q.FGM
	p.forgetDirty()
	for _, j := range c.Jobs() {
		r := p.job(j)
		if r.held == nil {
			r.held = make([]int, j.Phases())
		}
		for ph := range j.Phases() {
			pr := j.Progress(schedkit.Phase(ph))
			if pr.Ready == 0 {
				continue
			}
			p.ready = j.ReadyTasks(schedkit.Phase(ph), nil, p.ready[:0], pr.Ready)
			for _, t := range p.ready {
				if p.holds(t) {
					continue
				}
				if err := p.s.Submit(now, t); err != nil {
					return dst, err
				}
				p.hold(t, r)
				r.held[ph]++
			}
		}
	}
	return p.schedule(now, n, c, dst)
}

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

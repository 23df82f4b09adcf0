package fgm

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// Tick runs the periodic part of the method at now, server by server in
// registration order, and appends any Reclaim decisions to dst. It first
// reads the usage of running tasks implementing UsageTask and of nodes
// implementing UsageNode (as SampleTask and SampleNode would); then:
//
//  1. From the samples since the previous Tick it updates the server's
//     foreign-load estimate: the time-weighted mean (14) of the measured
//     node usage minus our tasks' measured usage (SampleTask), per kind,
//     at least 0; without task samples, minus our reservations. The
//     free timeline's base becomes capacity minus it.
//  2. It computes each kind's conformity (16) and keeps the last
//     ConformityWindow values.
//  3. Algorithm 3 (unless Ablations.NoPolicyAdjustment): the server's
//     figure is the worst kind's mean conformity c; c > ThSA stops
//     allocation, and if the server is degrading (a running task has run
//     more than 1 + DegradeSlack times its formula (15) duration) and
//     its own figure exceeded ThSA at ReclaimTicks Ticks in a row, the
//     most recently started task is reclaimed, one per Tick (a node
//     sample counts in one Tick's figure only, so no single sample,
//     however wrong, kills a task); c > ThCG makes it
//     coarse-grained; c > ThFG fine-grained without compression; else
//     fine-grained with compression.
//
// A server with no samples since the previous Tick keeps its estimate
// and policy. It fails, changing nothing, with ErrStaleTime,
// ErrTimeRange, or ErrInvalidSample for a polled reading that cannot be
// true (see SampleTask and SampleNode).
func (s *Scheduler) Tick(now time.Time, dst []Decision) ([]Decision, error) {
	rd, off, err := s.check("Tick", now)
	if err != nil {
		return dst, err
	}
	if err := s.poll(now); err != nil {
		return dst, err
	}
	s.clock.Commit(rd)
	w := s.cfg.ConformityWindow
	for _, v := range s.servers {
		if v.sampledFor() <= 0 {
			continue
		}
		row := v.conf[v.confNext*s.dims : (v.confNext+1)*s.dims]
		worst := 0.0 // this Tick's figure
		for k := range s.dims {
			n := v.capacity[k]
			if n > 0 {
				w := &v.win[k]
				row[k] = w.conformity(n, s.cfg.IdleThreshold)
				worst = max(worst, row[k])
				explained := w.ours.Sum // no task samples: our predictions
				if v.tasksSampled {
					explained = w.tasks.Sum
				}
				foreign := resource.Mean{Sum: w.used.Sum - explained, Total: w.used.Total} // (14) of μ − ours
				fo := max(0, min(n, foreign.Value()))
				v.foreign[k] = fo
				v.base[k] = n - fo
			} else {
				row[k] = 0
			}
		}
		v.confNext = (v.confNext + 1) % w
		v.confLen = min(v.confLen+1, w)
		clear(v.win)
		v.tasksSampled = false
		v.dirty = true
		if worst > s.cfg.ThSA {
			v.overSA++
		} else {
			v.overSA = 0
		}
		if s.cfg.Ablations.NoPolicyAdjustment {
			continue
		}
		c := v.averageConformity()
		switch {
		case c > s.cfg.ThSA:
			v.policy = StopAllocation
			if v.overSA < ReclaimTicks {
				break // one Tick's samples, one sample perhaps: no kill on that
			}
			if p := v.degrading(off); p != nil {
				dst = append(dst, Decision{Action: Reclaim, Task: p.id, Job: p.job.state.ID, Node: v.id,
					Reason: ServerDegrading, Conformity: c, Threshold: s.cfg.ThSA})
				s.release(p, false)
			}
		case c > s.cfg.ThCG:
			v.policy = CoarseGrainedPolicy
		case c > s.cfg.ThFG:
			v.policy = FineGrainedNoCompress
		default:
			v.policy = FineGrainedCompress
		}
	}
	return dst, nil
}

// poll reads the usage of running UsageTasks and of UsageNodes (in
// registration order), as SampleTask and SampleNode would. It checks
// every reading before recording any, so a bad one changes nothing.
func (s *Scheduler) poll(now time.Time) error {
	type reading struct {
		task schedkit.TaskID
		node schedkit.NodeID
		used resource.Vector
	}
	var rs []reading
	for _, v := range s.servers {
		for _, p := range v.running {
			if u, ok := p.t.(UsageTask); ok {
				rs = append(rs, reading{task: p.id, node: v.id, used: u.Used()})
			}
		}
		if v.usage != nil {
			rs = append(rs, reading{node: v.id, used: v.usage.Used()})
		}
	}
	for _, r := range rs {
		if err := s.validSample(r.used, s.nodes[r.node]); err != nil {
			err.Op, err.Task = "Tick", r.task
			return err
		}
	}
	for _, r := range rs {
		var err error
		if r.task != "" {
			err = s.SampleTask(now, r.task, r.used)
		} else {
			err = s.SampleNode(now, r.node, r.used)
		}
		if err != nil {
			return err // unreachable: checked above
		}
	}
	return nil
}

// averageConformity is the worst kind's mean over the window.
func (v *server) averageConformity() float64 {
	if v.confLen == 0 {
		return 0
	}
	d := v.s.dims
	worst := 0.0
	for k := range d {
		sum := 0.0
		for i := range v.confLen {
			sum += v.conf[i*d+k]
		}
		worst = max(worst, sum/float64(v.confLen))
	}
	return worst
}

// degrading returns the most recently started running task if some
// running task is overdue by more than DegradeSlack, else nil.
func (v *server) degrading(now time.Duration) *ptask {
	slack := 1 + v.s.cfg.DegradeSlack
	late := false
	var newest *ptask
	for _, p := range v.running {
		if !p.open && float64(now-p.start) > slack*float64(p.predEnd-p.start) {
			late = true
		}
		if newest == nil || p.startSq > newest.startSq {
			newest = p
		}
	}
	if !late {
		return nil
	}
	return newest
}

// ReclaimTicks is how many Ticks in a row a server's own conformity
// figure (its worst kind's, from that Tick's samples alone) must exceed
// ThSA before Algorithm 3 reclaims a task there: a node sample counts in
// one Tick's figure only, so one wrong sample can stop allocation for a
// while (the window's mean) but never kills a task.
const ReclaimTicks = 2

// ServerConformity returns a server's current figure for Algorithm 3:
// the worst kind's mean conformity (16) over the window; false for an
// unknown node.
func (s *Scheduler) ServerConformity(id schedkit.NodeID) (float64, bool) {
	v := s.nodes[id]
	if v == nil {
		return 0, false
	}
	return v.averageConformity(), true
}

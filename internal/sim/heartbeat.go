package sim

import (
	"errors"

	"github.com/schedkit/schedkit"
)

// submit submits j to the policy: active, or rejected if the policy
// refuses it.
func (s *Sim) submit(j *Job) error {
	s.b.submit(j)
	s.lastChange = s.eng.now
	s.wakeHeartbeats()
	s.wakePeriodic()
	t0 := s.rec.calls.tic()
	err := s.hk.p.Submit(s.eng.Now(), j)
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.refused(j, err)
	}
	s.b.unlock(j, 0)
	s.advance(j)
	return nil
}

// refused handles Submit's error err for j: a rejection (Reject) ends
// the job, any other error the run.
func (s *Sim) refused(j *Job, err error) error {
	var rej *rejection
	if !errors.As(err, &rej) {
		return s.hk.errorf(err, "Submit of %s", j.id)
	}
	s.rec.stats.RejectedJobs++
	s.b.checkKill(j)
	s.killJob(j, Rejected, rej.reason)
	return nil
}

// wakeHeartbeats schedules the periodic heartbeats of nodes that went
// quiet while no job was active.
func (s *Sim) wakeHeartbeats() {
	if s.dormant == 0 {
		return
	}
	for i := range s.w.nodes {
		n := &s.w.nodes[i]
		if n.up && !n.hbOn {
			n.hbOn = true
			s.eng.q.push(s.eng.now+n.hbOffset, evHeartbeat, n.idx, 0)
		}
	}
	s.dormant = 0
}

// heartbeat handles a heartbeat of node i. A quiet one (a periodic
// heartbeat of a node that can take nothing, FullNodeSkipper) reads only
// the node's entry in the dense nodeHot array, not the Node: half of a
// trace day's events are such heartbeats, and the Node is rarely in
// cache.
func (s *Sim) heartbeat(i int32, oob bool) error {
	h := &s.w.hot[i]
	active := s.b.nActive > 0
	if oob {
		s.w.nodes[i].oob = false
	} else {
		if !h.up || !active {
			s.w.nodes[i].hbOn = false
			if h.up {
				s.dormant++
			}
			return nil
		}
		s.eng.q.pushPeriodic(s.eng.now+int64(s.cfg.HeartbeatInterval), i)
	}
	if !h.up || !active {
		return nil
	}
	if s.hk.quiet && s.b.idle(h.free) {
		s.rec.stats.QuietHeartbeats++
		return nil
	}
	n := &s.w.nodes[i]
	s.rec.stats.Heartbeats++
	t0 := s.rec.calls.tic()
	dst, err := s.hk.p.Heartbeat(s.eng.Now(), n, &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.hk.errorf(err, "Heartbeat of %s", n.id)
	}
	s.applyAll(dst, n)
	return nil
}

// nodeChanged calls NodeWatcher.NodeChanged and applies its decisions.
func (s *Sim) nodeChanged(n *Node, up bool) error {
	t0 := s.rec.calls.tic()
	dst, err := s.hk.nw.NodeChanged(s.eng.Now(), n, up, &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.hk.errorf(err, "NodeChanged of %s", n.id)
	}
	s.applyAll(dst, n)
	return nil
}

// nodeEvent takes a node down (its tasks and those pinned to it are
// lost, retried elsewhere) or brings it back.
func (s *Sim) nodeEvent(e *NodeEvent) error {
	n := &s.w.nodes[e.Node]
	if n.up == e.Up {
		return nil
	}
	s.lastChange = s.eng.now
	if !e.Up {
		for len(n.running) > 0 {
			t := n.running[len(n.running)-1]
			s.rec.stats.Lost++
			s.requeue(t, schedkit.TaskFailed, TaskLost)
		}
		// Tasks pinned to n (Decision.Target) lose their remote work.
		for i := len(n.guests) - 1; i >= 0; i-- {
			if i < len(n.guests) && n.guests[i].run.pin == n {
				s.rec.stats.Lost++
				s.requeue(n.guests[i], schedkit.TaskFailed, TaskLost)
			}
		}
		if !n.hbOn {
			s.dormant--
		}
	} else {
		if s.b.nActive > 0 {
			n.hbOn = true
			s.eng.q.push(s.eng.now+n.hbOffset, evHeartbeat, n.idx, 0)
		} else if !n.hbOn {
			s.dormant++
		}
	}
	s.w.setUp(n, e.Up)
	if s.hk.nw != nil {
		s.settle()
		if s.err != nil {
			return s.err
		}
		return s.nodeChanged(n, e.Up)
	}
	return nil
}

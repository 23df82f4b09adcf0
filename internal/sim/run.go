package sim

import (
	"fmt"
	"time"
)

// start schedules the initial events and tells a NodeWatcher about the
// nodes.
func (s *Sim) start() error {
	s.started = true
	s.eng.setNow(0)
	jobs := s.b.jobs
	subAt := make([]int64, len(jobs))
	for i := range jobs {
		subAt[i] = jobs[i].submitOff
	}
	q := &s.eng.q
	q.reset(subAt, 64+len(s.cfg.Background)+len(s.cfg.NodeEvents)+len(s.w.nodes), len(s.w.nodes))
	for i, b := range s.cfg.Background {
		q.push(int64(b.At), evBackground, int32(i), 0)
	}
	for i, e := range s.cfg.NodeEvents {
		q.push(int64(e.At), evNode, int32(i), 0)
	}
	s.external = len(jobs) + len(s.cfg.Background) + len(s.cfg.NodeEvents)
	q.push(0, evSample, 0, 0)
	for i := range s.w.nodes {
		if s.w.nodes[i].up {
			s.dormant++
		}
	}
	if s.hk.nw != nil {
		for i := range s.w.nodes {
			if n := &s.w.nodes[i]; n.up {
				if err := s.nodeChanged(n, true); err != nil {
					return err
				}
			}
		}
	}
	s.settle()
	if s.err != nil {
		return s.err
	}
	if len(jobs) == 0 {
		s.done = true
	}
	return nil
}

// Run runs the simulation to the end and returns its record. The error is
// non-nil if the policy returned an error, the run stalled, an AfterEvent
// hook failed, or the policy made invalid decisions (a *DecisionError);
// the record is filled in any case.
func (s *Sim) Run() (Run, error) {
	if s.done && s.started {
		return Run{}, ErrDone
	}
	for {
		more, err := s.Step()
		if err != nil || !more || !s.quietRun() {
			break
		}
	}
	return s.Record(), s.Err()
}

// quietRun processes, as Step would one by one, the quiet heartbeats
// (FullNodeSkipper) that come next: periodic heartbeats, from the ring,
// of live nodes that can take nothing, earlier than every other pending
// event. Each is what Step makes of it: the clock moves to it, it counts
// as an event and a quiet heartbeat, the node's next periodic heartbeat
// is pushed (numbered in turn), nothing is dirty so settle has nothing
// to do, the run has not ended (the previous Step would have said so),
// and the stall check runs as after any event. Only the dispatch around
// it is left out: half of a trace day's events are quiet heartbeats.
// It reports whether the run continues; with an AfterEvent hook, or a
// Horizon the next heartbeat passes, it leaves the event to Step.
func (s *Sim) quietRun() bool {
	q := &s.eng.q
	r := &q.ring
	if !s.hk.quiet || s.cfg.AfterEvent != nil || s.done || r.n == 0 {
		return true
	}
	src, other := q.firstOther()
	interval := int64(s.cfg.HeartbeatInterval)
	horizon := int64(s.cfg.Horizon)
	st := &s.rec.stats
	for r.n > 0 && s.b.nActive > 0 {
		e := &r.ev[r.head]
		if src != srcNone && !e.before(&other) || horizon > 0 && e.at > horizon {
			break
		}
		h := &s.w.hot[e.a]
		if !h.up || !s.b.idle(h.free) {
			break
		}
		at, a := e.at, e.a
		r.pop()
		s.eng.setNow(at)
		st.Events++
		if !q.pushPeriodic(at+interval, a) {
			src, other = q.firstOther() // it went to the heartbeat heap
		}
		st.QuietHeartbeats++
		if s.stalled() {
			s.finish()
			s.err = s.stallError()
			return false
		}
	}
	return true
}

// stalled reports whether jobs wait while nothing has progressed, no
// outside event was due and no decision was made for Config.StallAfter.
func (s *Sim) stalled() bool {
	return s.b.nActive > 0 && s.w.progressing == 0 && s.external == 0 &&
		s.eng.now-s.lastChange >= int64(s.cfg.StallAfter)
}

func (s *Sim) stallError() error {
	return fmt.Errorf("%w: %d jobs waiting, nothing progressing since %v", ErrStalled, s.b.nActive, time.Duration(s.lastChange))
}

// Step processes one event and reports whether the run continues. The
// event settles the nodes it touched; the run ends on an error (the
// event's, one a policy returned from a notification during it,
// AfterEvent's), once every job ended, or when it stalled.
func (s *Sim) Step() (bool, error) {
	if !s.started {
		if err := s.start(); err != nil {
			s.fail(err)
			return false, err
		}
	}
	if s.done {
		return false, s.err
	}
	q := &s.eng.q
	st := &s.rec.stats
	for {
		src, e := q.first()
		if src == srcNone {
			s.finish()
			if s.b.ended < len(s.b.jobs) && s.err == nil {
				s.err = fmt.Errorf("%w: no events left with %d jobs not ended", ErrStalled, len(s.b.jobs)-s.b.ended)
			}
			return false, s.err
		}
		if h := s.cfg.Horizon; h > 0 && e.at > int64(h) {
			s.eng.setNow(int64(h))
			s.finish()
			return false, nil
		}
		q.drop(src)
		if e.kind == evStage && !stageCurrent(s.b.tasks.all[e.a], e.ver) {
			st.StaleEvents++
			continue
		}
		s.eng.setNow(e.at)
		st.Events++
		err := s.dispatch(&e)
		if err == nil {
			s.settle()
			err = s.err // a notification's error, kept during the event
		}
		if err == nil && s.cfg.AfterEvent != nil {
			err = s.cfg.AfterEvent(s)
		}
		switch {
		case err != nil:
			s.fail(err)
			return false, err
		case s.b.ended == len(s.b.jobs):
			s.finish()
			return false, nil
		case s.stalled():
			s.finish()
			s.err = s.stallError()
			return false, s.err
		}
		return true, nil
	}
}

func (s *Sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.finish()
}

func (s *Sim) dispatch(e *event) error {
	switch e.kind {
	case evSubmit:
		s.external--
		return s.submit(&s.b.jobs[e.a])
	case evHeartbeat:
		return s.heartbeat(e.a, e.ver != 0)
	case evStage:
		s.progressEvent(s.b.tasks.all[e.a])
	case evSample:
		s.rec.sample()
		if s.b.ended < len(s.b.jobs) {
			s.eng.q.push(s.eng.now+int64(s.cfg.MetricsInterval), evSample, 0, 0)
		}
	case evTick:
		return s.tick()
	case evUsage:
		return s.usageSample()
	case evBackground:
		s.external--
		b := &s.cfg.Background[e.a]
		s.w.setBackground(b.Node, b.Demand)
		s.lastChange = s.eng.now
	case evNode:
		s.external--
		return s.nodeEvent(&s.cfg.NodeEvents[e.a])
	}
	return nil
}

// finish ends the run: jobs not ended are Unfinished.
func (s *Sim) finish() {
	if s.done {
		return
	}
	s.done = true
	if s.cfg.RecordTasks {
		for i := range s.w.nodes {
			for _, t := range s.w.nodes[i].running {
				s.rec.recordAttempt(t, TaskUnfinished)
			}
		}
	}
	for i := range s.b.jobs {
		if j := &s.b.jobs[i]; j.state != jobEnded {
			s.b.unfinished(j)
		}
	}
}

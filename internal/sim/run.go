package sim

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/resource"
)

// Now returns the current virtual time.
func (s *Sim) Now() time.Time {
	if !s.nowOK { // computed when first asked: most events call no one
		s.nowT, s.nowOK = Epoch.Add(time.Duration(s.now)), true
	}
	return s.nowT
}

// Elapsed returns the virtual time since the start of the run.
func (s *Sim) Elapsed() time.Duration { return time.Duration(s.now) }

// Cluster returns the cluster view policies receive.
func (s *Sim) Cluster() *Cluster { return &s.cluster }

// Stats returns the counters so far.
func (s *Sim) Stats() Stats { return s.stats }

// Jobs returns the number of jobs in the workload.
func (s *Sim) Jobs() int { return len(s.jobs) }

// Ended returns the number of jobs that have ended so far.
func (s *Sim) Ended() int { return s.ended }

// Job returns the job at workload position i, or nil.
func (s *Sim) Job(i int) *Job {
	if i < 0 || i >= len(s.jobs) {
		return nil
	}
	return &s.jobs[i]
}

func (s *Sim) setNow(t int64) {
	s.now = t
	s.nowOK = false
}

// start schedules the initial events and tells a NodeWatcher about the
// nodes.
func (s *Sim) start() error {
	s.started = true
	s.setNow(0)
	subAt := make([]int64, len(s.jobs))
	for i := range s.jobs {
		subAt[i] = s.jobs[i].submitOff
	}
	s.heap.reset(subAt, 64+len(s.cfg.Background)+len(s.cfg.NodeEvents)+len(s.nodes), len(s.nodes))
	for i, b := range s.cfg.Background {
		s.heap.push(int64(b.At), evBackground, int32(i), 0)
	}
	for i, e := range s.cfg.NodeEvents {
		s.heap.push(int64(e.At), evNode, int32(i), 0)
	}
	s.external = len(s.jobs) + len(s.cfg.Background) + len(s.cfg.NodeEvents)
	s.heap.push(0, evSample, 0, 0)
	for i := range s.nodes {
		if s.nodes[i].up {
			s.dormant++
		}
	}
	if s.nw != nil {
		for i := range s.nodes {
			if n := &s.nodes[i]; n.up {
				if err := s.callNodeChanged(n, true); err != nil {
					return err
				}
			}
		}
	}
	s.settle()
	if len(s.jobs) == 0 {
		s.done = true
	}
	return nil
}

// Run runs the simulation to the end and returns its record. The error is
// non-nil if the policy returned an error, the run stalled, an AfterEvent
// hook failed, or the policy made invalid decisions (a *DecisionError);
// the record is filled in any case.
func (s *Sim) Run() (metrics.Run, error) {
	if s.done && s.started {
		return metrics.Run{}, ErrDone
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
	q := &s.heap
	r := &q.ring
	if !s.quiet || s.cfg.AfterEvent != nil || s.done || r.n == 0 {
		return true
	}
	src, other := q.firstOther()
	pending := q.len()
	interval := int64(s.cfg.HeartbeatInterval)
	horizon := int64(s.cfg.Horizon)
	for r.n > 0 && s.nActive > 0 {
		e := &r.ev[r.head]
		if src != srcNone && !e.before(&other) || horizon > 0 && e.at > horizon {
			break
		}
		h := &s.hot[e.a]
		if !h.up || !s.idle(h.free) {
			break
		}
		at, a := e.at, e.a
		r.pop()
		if pending > s.stats.MaxHeap {
			s.stats.MaxHeap = pending
		}
		s.setNow(at)
		s.stats.Events++
		if !q.pushPeriodic(at+interval, a) {
			src, other = q.firstOther() // it went to the heartbeat heap
		}
		s.stats.QuietHeartbeats++
		if s.progressing == 0 && s.external == 0 && s.now-s.lastChange >= int64(s.cfg.StallAfter) {
			s.finish()
			s.err = fmt.Errorf("%w: %d jobs waiting, nothing progressing since %v", ErrStalled, s.nActive, time.Duration(s.lastChange))
			return false
		}
	}
	return true
}

// Err returns the error that ended the run and, joined to it, a
// *DecisionError if the policy made invalid decisions; nil if neither.
func (s *Sim) Err() error {
	if s.decErr.Count == 0 {
		return s.err
	}
	e := s.decErr
	if s.err != nil {
		return errors.Join(s.err, &e)
	}
	return &e
}

// Step processes one event and reports whether the run continues.
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
	for {
		src, e := s.heap.first()
		if src == srcNone {
			s.finish()
			if s.ended < len(s.jobs) && s.err == nil {
				s.err = fmt.Errorf("%w: no events left with %d jobs not ended", ErrStalled, len(s.jobs)-s.ended)
			}
			return false, s.err
		}
		if h := s.cfg.Horizon; h > 0 && e.at > int64(h) {
			s.setNow(int64(h))
			s.finish()
			return false, nil
		}
		pending := s.heap.len()
		s.heap.drop(src)
		if e.kind == evStage && !s.stageCurrent(&e) {
			s.stats.StaleEvents++
			continue
		}
		if pending > s.stats.MaxHeap {
			s.stats.MaxHeap = pending
		}
		s.setNow(e.at)
		s.stats.Events++
		if err := s.dispatch(&e); err != nil {
			s.fail(err)
			return false, err
		}
		s.settle()
		if s.cfg.AfterEvent != nil {
			if err := s.cfg.AfterEvent(s); err != nil {
				s.fail(err)
				return false, err
			}
		}
		if s.ended == len(s.jobs) {
			s.finish()
			return false, nil
		}
		if s.nActive > 0 && s.progressing == 0 && s.external == 0 &&
			s.now-s.lastChange >= int64(s.cfg.StallAfter) {
			s.finish()
			s.err = fmt.Errorf("%w: %d jobs waiting, nothing progressing since %v", ErrStalled, s.nActive, time.Duration(s.lastChange))
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
		return s.submit(&s.jobs[e.a])
	case evHeartbeat:
		return s.heartbeat(e.a, e.ver != 0)
	case evStage:
		s.progressEvent(s.tasks[e.a])
	case evSample:
		s.sample()
		if s.ended < len(s.jobs) {
			s.heap.push(s.now+int64(s.cfg.MetricsInterval), evSample, 0, 0)
		}
	case evTick:
		return s.tick()
	case evUsage:
		s.usageSample()
	case evBackground:
		s.external--
		b := &s.cfg.Background[e.a]
		n := &s.nodes[b.Node]
		copy(n.bg, b.Demand)
		s.markDirty(n)
		s.lastChange = s.now
	case evNode:
		s.external--
		return s.nodeEvent(&s.cfg.NodeEvents[e.a])
	}
	return nil
}

func (s *Sim) submit(j *Job) error {
	j.state = jobActive
	s.addActive(j)
	j.costAt = s.now
	s.lastChange = s.now
	s.wakeHeartbeats()
	s.wakePeriodic()
	t0 := s.tic()
	err := s.policy.Submit(s.Now(), j)
	s.toc(t0)
	s.stats.PolicyCalls++
	if err != nil {
		s.stats.RejectedJobs++
		s.checkKill(j)
		s.killJob(j, metrics.Rejected, err.Error())
		return nil
	}
	s.unlock(j, 0)
	s.advancePhases(j)
	return nil
}

// wakeHeartbeats schedules the periodic heartbeats of nodes that went
// quiet while no job was active.
func (s *Sim) wakeHeartbeats() {
	if s.dormant == 0 {
		return
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.up && !n.hbOn {
			n.hbOn = true
			s.heap.push(s.now+n.hbOffset, evHeartbeat, n.idx, 0)
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
	h := &s.hot[i]
	if oob {
		s.nodes[i].oob = false
	} else {
		if !h.up || s.nActive == 0 {
			s.nodes[i].hbOn = false
			if h.up {
				s.dormant++
			}
			return nil
		}
		s.heap.pushPeriodic(s.now+int64(s.cfg.HeartbeatInterval), i)
	}
	if !h.up || s.nActive == 0 {
		return nil
	}
	if s.quiet && s.idle(h.free) {
		s.stats.QuietHeartbeats++
		return nil
	}
	n := &s.nodes[i]
	s.stats.Heartbeats++
	t0 := s.tic()
	dst, err := s.policy.Heartbeat(s.Now(), n, &s.cluster, s.dst[:0])
	s.toc(t0)
	s.stats.PolicyCalls++
	if err != nil {
		return fmt.Errorf("%w: %s: heartbeat of %s at %v: %w", ErrPolicy, s.policy.Name(), n.id, time.Duration(s.now), err)
	}
	s.applyAll(dst, n)
	return nil
}

func (s *Sim) callNodeChanged(n *Node, up bool) error {
	t0 := s.tic()
	dst, err := s.nw.NodeChanged(s.Now(), n, up, &s.cluster, s.dst[:0])
	s.toc(t0)
	s.stats.PolicyCalls++
	if err != nil {
		return fmt.Errorf("%w: %s: node %s changed at %v: %w", ErrPolicy, s.policy.Name(), n.id, time.Duration(s.now), err)
	}
	s.applyAll(dst, n)
	return nil
}

func (s *Sim) applyAll(dst []Decision, n *Node) {
	s.hbNode = n
	for i := range dst {
		s.apply(&dst[i])
		dst[i] = Decision{} // drop references held by the reused buffer
	}
	s.dst = dst[:0]
	s.hbNode = nil
}

// idle reports whether a node whose available kinds are free (its
// nodeHot.free) can take nothing (FullNodeSkipper): it is full (nothing
// available in any kind), or every ready task asks more than supportMin
// of some kind the node has none of available (by the supports in
// readyBy; a phase whose tasks ask differently counts as fitting
// anywhere).
func (s *Sim) idle(free uint64) bool {
	if free&someFree == 0 {
		return true
	}
	for m := s.readyMasks; m != 0; m &= m - 1 {
		if sup := uint64(bits.TrailingZeros64(m)); sup&^free == 0 {
			return false // a ready task's support is all available here
		}
	}
	return true
}

// nodeHot is what a quiet heartbeat reads of a node, kept apart from
// the Node in Sim.hot (by node index) so that it stays in cache.
type nodeHot struct {
	// free has bit k set for each kind k < maxSupportKinds the node has
	// a positive amount of available, and someFree if it has of any
	// kind (freeMask of Node.avail, as recompute last set it).
	free uint64
	up   bool // Node.up
}

// someFree is nodeHot.free's bit for "some kind available".
const someFree = 1 << 63

// freeMask returns nodeHot.free for available amounts avail.
func freeMask(avail resource.Vector) uint64 {
	var free uint64
	for k, x := range avail {
		if x > 0 {
			free |= someFree
			if k < maxSupportKinds { // supports name no other kind
				free |= 1 << k
			}
		}
	}
	return free
}

// outOfBand schedules an immediate heartbeat of n (a task ended there).
func (s *Sim) outOfBand(n *Node) {
	if n.oob || !n.up {
		return
	}
	n.oob = true
	s.heap.pushOOB(s.now, n.idx)
}

func (s *Sim) nodeEvent(e *NodeEvent) error {
	n := &s.nodes[e.Node]
	if n.up == e.Up {
		return nil
	}
	s.lastChange = s.now
	if !e.Up {
		for len(n.running) > 0 {
			t := n.running[len(n.running)-1]
			s.stats.Lost++
			s.requeue(t, schedkit.TaskFailed, metrics.TaskLost)
		}
		// Tasks pinned to n (Decision.Target) lose their remote work.
		for i := len(n.guests) - 1; i >= 0; i-- {
			if i < len(n.guests) && n.guests[i].run.pin == n {
				s.stats.Lost++
				s.requeue(n.guests[i], schedkit.TaskFailed, metrics.TaskLost)
			}
		}
		for i := range s.nodes {
			if m := &s.nodes[i]; m.bound == n {
				s.bind(m, nil)
			}
		}
		n.up = false
		s.hot[n.idx].up = false
		if !n.hbOn {
			s.dormant--
		}
	} else {
		n.up = true
		s.hot[n.idx].up = true
		if s.nActive > 0 {
			n.hbOn = true
			s.heap.push(s.now+n.hbOffset, evHeartbeat, n.idx, 0)
		} else if !n.hbOn {
			s.dormant++
		}
	}
	s.rebuildLive()
	s.markDirty(n)
	if s.nw != nil {
		s.settle()
		return s.callNodeChanged(n, e.Up)
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
		for i := range s.nodes {
			for _, t := range s.nodes[i].running {
				s.recordAttempt(t, metrics.TaskUnfinished)
			}
		}
	}
	for i := range s.jobs {
		j := &s.jobs[i]
		if j.state != jobEnded {
			s.accrue(j)
			j.outcome = metrics.Unfinished
			if j.state == jobActive {
				j.endAt = s.now
			} else {
				j.endAt = j.submitOff
			}
		}
	}
}

// Record returns the run's metrics record (complete once the run ended).
func (s *Sim) Record() metrics.Run {
	r := metrics.Run{
		Policy:       s.policy.Name(),
		Workload:     s.name,
		Jobs:         make([]metrics.JobRecord, len(s.jobs)),
		Kinds:        make([]string, s.k),
		Samples:      s.samples,
		FailedTasks:  s.stats.Failed,
		RetriedTasks: s.stats.Retried,
		DecisionTime: s.decisionTime(),
		Decisions:    s.decCalls,
		TimedCalls:   s.timedCalls,
		Events:       s.stats.Events,
		End:          time.Duration(s.now),
		Tasks:        s.records,
	}
	for i := range r.Kinds {
		r.Kinds[i] = s.space.Kind(i).Name
	}
	for i := range s.jobs {
		j := &s.jobs[i]
		rec := &r.Jobs[i]
		rec.ID, rec.Class = string(j.id), j.spec.Class
		rec.Submit, rec.Deadline = time.Duration(j.submitOff), j.spec.Deadline
		rec.Budget, rec.Phi = j.spec.Budget, j.spec.Phi
		for p := range j.phases {
			rec.Tasks += j.phases[p].prog.Total
		}
		rec.Outcome = j.outcome
		rec.Finish = time.Duration(j.endAt)
		rec.Start = rec.Finish
		if j.started {
			rec.Start = time.Duration(j.startAt)
		}
		rec.Cost = j.cost
		rec.CouldHaveMade, rec.CheckedKill = j.could, j.checked
		if j.state != jobEnded && j.state != jobActive {
			rec.Finish, rec.Start = rec.Submit, rec.Submit
		}
	}
	return r
}

// KillReason returns the reason recorded when job i was killed, rejected
// or failed ("" otherwise).
func (s *Sim) KillReason(i int) string {
	if i < 0 || i >= len(s.jobs) {
		return ""
	}
	return s.jobs[i].reason
}

package fgm

// Usage samples: SampleTask and SampleNode, the sample store of running
// tasks (for the History), and the time-weighted sums of formula (14)
// that Tick turns into foreign-load estimates and conformity (16).

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// samples is the state of the sample path (SampleTask, SampleNode)
// beyond the tasks' and servers' own: the sampling cursor and Release's
// scratch.
type samples struct {
	// smpPrev is the runState sampled last (the sampling cursor, see
	// sampled).
	smpPrev *runState
	// nodeNext is the index in servers of the server SampleNode expects
	// next (the one after the last sampled: hosts usually sample their
	// nodes in registration order).
	nodeNext int
	// obsBuf is Release's scratch of samples for History.Observe (views
	// into a runState's records); round SampleTasks' tasks.
	obsBuf []estimate.UsageSample
	round  []*runState
	// taskCursor and nodeCursor count the SampleTask and SampleNode
	// calls that found their task and server by the cursor.
	taskCursor, nodeCursor uint64
}

// SampleTask records a usage sample of a running task at now: what it
// used on average since its previous sample (or its start). A sample
// above the capacity of the task's node in some kind cannot be true and
// is refused (ErrInvalidSample, naming the node, kind, amount and
// capacity). Its server
// adds it to the measured usage of our tasks (for the foreign-load
// estimate, see Tick). With a History the sample is also buffered for
// learning, tagged with the compression rate the server is expected to
// impose at now on the kinds the task's current stage demands (from its
// free timeline). It fails, changing nothing, with ErrUnknownTask (not
// running), ErrInvalidSample (wrong length, NaN, infinite, negative or
// above capacity), ErrStaleTime or ErrTimeRange.
//
// A host that reports its running tasks in the same order round after
// round (node by node, say) has each found without a lookup by ID: the
// scheduler remembers which task was sampled after which.
func (s *Scheduler) SampleTask(now time.Time, id schedkit.TaskID, used resource.Vector) error {
	const op = "SampleTask"
	r := s.sampled(id)
	if r == nil {
		return &Error{Op: op, Task: id, Err: ErrUnknownTask, Reason: "not running"}
	}
	if err := s.validSample(used, r.smpSrv); err != nil {
		err.Op, err.Task = op, id
		return err
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	s.clock.Commit(rd)
	s.record(r, off, used, nil)
	return nil
}

// TaskUsage is one running task's measured usage in a round of samples
// (SampleTasks): what it used on average since its previous sample (or
// its start).
type TaskUsage struct {
	Task schedkit.TaskID
	Used resource.Vector
}

// SampleTasks records a round of usage samples of tasks running on node
// at now, in one call: exactly what SampleTask records for each in
// order (TestSampleTasksMatchesSampleTask), for a host whose node agent
// reports a node's tasks together. The scheduler reads the round's
// time, the node and its free timeline once, not once per task. It
// fails, changing nothing, with ErrUnknownNode, ErrUnknownTask (a task
// not running on node), ErrInvalidSample (as SampleTask), ErrStaleTime
// or ErrTimeRange; the error names the first bad sample.
func (s *Scheduler) SampleTasks(now time.Time, node schedkit.NodeID, tasks []TaskUsage) error {
	const op = "SampleTasks"
	v := s.nodes[node]
	if v == nil {
		return &Error{Op: op, Node: node, Err: ErrUnknownNode, Reason: "not registered"}
	}
	round := s.smp.round[:0]
	for _, u := range tasks {
		r := s.sampled(u.Task)
		if r == nil || r.smpSrv != v {
			return &Error{Op: op, Task: u.Task, Node: node, Err: ErrUnknownTask, Reason: "not running on the node"}
		}
		if err := s.validSample(u.Used, v); err != nil {
			err.Op, err.Task = op, u.Task
			return err
		}
		round = append(round, r)
	}
	s.smp.round = round
	rd, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	s.clock.Commit(rd)
	var free resource.Vector
	if s.cfg.History != nil {
		v.refresh(off) // once: the same call for every task of the round
		free = v.free.At(off)
	}
	for i, r := range round {
		s.record(r, off, tasks[i].Used, free)
	}
	clear(round)
	return nil
}

// record records a valid sample of running task r ending at off, the
// clock committed: its server's window sums, and with a History its
// buffered samples. free is r's server's free amounts at off, or nil
// (record reads them).
func (s *Scheduler) record(r *runState, off time.Duration, used, free resource.Vector) {
	if off <= r.lastSmp {
		return
	}
	srv := r.smpSrv
	if srv.sampled && off > srv.lastAt-srv.window() {
		// Count only the part inside the server's current sample window.
		dt := (off - max(r.lastSmp, srv.lastAt-srv.window())).Seconds()
		for k, x := range used {
			srv.win[k].tasks.Add(x, dt)
		}
		srv.tasksSampled = true
	}
	if s.cfg.History == nil {
		r.lastSmp = off
		return
	}
	if free == nil {
		srv.refresh(off)
		free = srv.free.At(off)
	}
	rc := 0.0 // no compressible kind: the rate is 0 whatever the timeline
	if s.hasComp {
		rc = srv.compressionIn(free, r.demandAt(off, s.dims))
	}
	s.addSample(r, off, used, rc)
}

// validSample checks a usage sample measured on server v: its length,
// finite non-negative amounts, none above v's capacity. The error names
// the node, the kind, the amount and the capacity; the caller sets Op
// and Task.
func (s *Scheduler) validSample(used resource.Vector, v *server) *Error {
	if len(used) != s.dims {
		return s.badSample(v, -1, 0, len(used))
	}
	for k, x := range used {
		n := v.capacity[k]
		// One test per amount (every sample passes here): NaN fails
		// x >= 0, +Inf the bound, −Inf both.
		if !(x >= 0 && x <= n+slack*n) {
			return s.badSample(v, k, x, 0)
		}
	}
	return nil
}

// badSample is validSample's error: amount x of kind k, or, for k < 0,
// a sample of n amounts.
func (s *Scheduler) badSample(v *server, k int, x float64, n int) *Error {
	e := &Error{Node: v.id, Err: ErrInvalidSample}
	switch {
	case k < 0:
		e.Reason = fmt.Sprintf("%d amounts, want %d", n, s.dims)
	case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
		e.Reason = fmt.Sprintf("%s %v is not finite and ≥ 0", s.space.Kind(k).Name, x)
	default:
		e.Reason = fmt.Sprintf("%s %v above the node's capacity %v", s.space.Kind(k).Name, x, v.capacity[k])
	}
	return e
}

// sampled returns the state of running task id, nil if id is not a
// running task, and moves the sampling cursor to it. The task sampled
// after the previous one last time is tried first (its smpID says it is
// still running, under that ID); else Scheduler.tasks is read, and the
// task becomes the previous one's successor.
func (s *Scheduler) sampled(id schedkit.TaskID) *runState {
	prev := s.smp.smpPrev
	if prev != nil {
		if r := prev.smpNext; r != nil && r.smpID == id && id != "" {
			s.smp.smpPrev = r
			s.smp.taskCursor++
			return r
		}
	}
	p := s.tasks[id]
	if p == nil || !p.running {
		return nil
	}
	r := p.runState
	r.smpID, r.smpSrv = p.id, p.srv
	if prev != nil && prev != r {
		prev.smpNext = r
	}
	s.smp.smpPrev = r
	return r
}

// sampledNode returns the server registered as id, nil if none, trying
// the one after the previously sampled server first (nodeNext; a
// negative nodeNext tries none).
func (s *Scheduler) sampledNode(id schedkit.NodeID) *server {
	i := s.smp.nodeNext
	if i >= len(s.servers) {
		i = 0
	}
	if uint(i) < uint(len(s.servers)) && s.servers[i].id == id {
		s.smp.nodeNext = i + 1
		s.smp.nodeCursor++
		return s.servers[i]
	}
	v := s.nodes[id]
	if v != nil {
		s.smp.nodeNext = v.pos + 1
	}
	return v
}

// startSamples empties r's sample buffer for a task placed at now.
func (r *runState) startSamples(now time.Duration) {
	r.smp = r.smp[:0]
	r.smpID, r.smpSrv, r.smpNext = "", nil, nil
	r.lastSmp = now
}

// smpRec is the length of a sample record in runState.smp: the
// duration (its bits: a duration is positive and below 2⁶², so the
// float is finite and every copy keeps it exactly), the compression
// rate, and the dims used amounts.
func (s *Scheduler) smpRec() int { return 2 + s.dims }

func recDuration(rec []float64) time.Duration {
	return time.Duration(math.Float64bits(rec[0]))
}

func setRecDuration(rec []float64, d time.Duration) {
	rec[0] = math.Float64frombits(uint64(d))
}

// addSample appends a sample ending at off, merging pairs when full.
func (s *Scheduler) addSample(r *runState, off time.Duration, used []float64, rc float64) {
	w := s.smpRec()
	if r.smp == nil {
		r.smp = make([]float64, 0, s.cfg.MaxSamples*w)
	}
	if n := len(r.smp) / w; n == s.cfg.MaxSamples {
		// Merge neighbouring pairs: each amount (the rate too) the
		// time-weighted mean of the two (formula (14)).
		h := 0
		for i := 0; i+1 < n; i += 2 {
			a, b := r.smp[i*w:(i+1)*w:(i+1)*w], r.smp[(i+1)*w:(i+2)*w:(i+2)*w]
			ad, bd := recDuration(a), recDuration(b)
			ta, tb := float64(ad), float64(bd)  // in ns: one unit for both
			v := r.smp[h*w : (h+1)*w : (h+1)*w] // a itself when h = i = 0
			for k := 1; k < w; k++ {
				m := resource.Mean{}
				m.Add(a[k], ta)
				m.Add(b[k], tb)
				v[k] = m.Value()
			}
			setRecDuration(v, ad+bd)
			h++
		}
		if n%2 == 1 {
			copy(r.smp[h*w:(h+1)*w], r.smp[(n-1)*w:n*w])
			h++
		}
		r.smp = r.smp[:h*w]
	}
	i := len(r.smp)
	r.smp = r.smp[:i+w]
	v := r.smp[i : i+w : i+w]
	setRecDuration(v, off-r.lastSmp)
	v[1] = min(max(rc, 0), 0.999)
	copy(v[2:], used)
	r.lastSmp = off
}

// usageSamples returns r's buffered samples as History.Observe takes
// them: Scheduler.obsBuf, its Used vectors views into r's records.
func (s *Scheduler) usageSamples(r *runState) []estimate.UsageSample {
	w := s.smpRec()
	b := s.smp.obsBuf[:0]
	for i := 0; i+w <= len(r.smp); i += w {
		rec := r.smp[i : i+w : i+w]
		b = append(b, estimate.UsageSample{Duration: recDuration(rec), Used: rec[2:], Compression: rec[1]})
	}
	s.smp.obsBuf = b
	return b
}

// demandAt returns r's planned demand at off (its peak once overdue or
// for an open-ended reservation).
func (r *runState) demandAt(off time.Duration, dims int) resource.Vector {
	if r.open || off >= r.dueAt {
		return r.peak
	}
	t := r.start
	for i, w := range r.work {
		t += w
		if off < t {
			return resource.Vector(r.vals[i*dims : (i+1)*dims])
		}
	}
	return r.peak
}

// window returns the length of the node-sample window since the last
// Tick (as recorded so far).
func (v *server) window() time.Duration {
	return time.Duration(v.sampledFor() * float64(time.Second))
}

// sampledFor returns the seconds of node samples since the last Tick.
func (v *server) sampledFor() float64 { return v.win[0].used.Total }

// kindSums are one kind's time-weighted sums (formula (14),
// resource.Mean) over a server's samples since the last Tick: measured
// usage μ, predicted usage α (our reservations plus the foreign-load
// estimate in force), our reservations α − foreign, measured idle I, the
// squared deviation ((μ − α)/N)² of (16); tasks holds our tasks'
// measured usage (SampleTask) over the same window.
type kindSums struct {
	used, pred, ours, idle, sq, tasks resource.Mean
}

// SampleNode records a usage sample of a server at now: its total
// measured usage (our tasks and anything else running there), the mean
// since its previous sample. The samples feed the foreign-load estimate
// (time-weighted, formula (14)) and the conformity (16) that Tick turns
// into the server's policy. Report task samples (SampleTask) too, so the
// foreign load is measured (node minus tasks) rather than inferred
// (node minus predictions, which would hide our own under-estimates). It
// fails, changing nothing, with ErrUnknownNode, ErrInvalidSample (wrong
// length; NaN, infinite or negative amounts; an amount above the node's
// capacity, which no measurement can show), ErrStaleTime or
// ErrTimeRange.
func (s *Scheduler) SampleNode(now time.Time, id schedkit.NodeID, used resource.Vector) error {
	const op = "SampleNode"
	v := s.sampledNode(id)
	if v == nil {
		return &Error{Op: op, Node: id, Err: ErrUnknownNode, Reason: "not registered"}
	}
	if err := s.validSample(used, v); err != nil {
		err.Op = op
		return err
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	s.clock.Commit(rd)
	v.measured = true
	copy(v.lastUsed, used)
	clear(v.placed)
	if !v.sampled {
		v.sampled, v.lastAt = true, off
		return nil
	}
	dt := (off - v.lastAt).Seconds()
	v.lastAt = off
	if dt <= 0 {
		return nil
	}
	v.refresh(off)
	f := v.free.At(off)
	for k, mu := range used {
		n := v.capacity[k]
		alpha := n - f[k] // predicted usage: reservations + foreign estimate
		ours := alpha - v.foreign[k]
		if n > 0 {
			alpha = min(alpha, n) // usage is measured up to capacity
		}
		w := &v.win[k]
		w.used.Add(mu, dt)
		w.pred.Add(alpha, dt)
		w.ours.Add(ours, dt)
		w.idle.Add(n-mu, dt)
		if n > 0 {
			d := (mu - alpha) / n
			w.sq.Add(d*d, dt)
		}
	}
	return nil
}

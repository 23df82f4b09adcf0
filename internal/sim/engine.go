package sim

import "time"

// Epoch is virtual time zero: every now a policy sees is Epoch plus the
// simulated offset. It is fixed so that runs are reproducible.
var Epoch = time.Date(2009, time.October, 1, 0, 0, 0, 0, time.UTC)

// engine is the simulator's virtual clock and its queue of pending
// events: the first part of the simulator, which knows nothing of what
// the events mean.
type engine struct {
	q     events
	now   int64     // virtual nanoseconds since Epoch
	nowT  time.Time // Epoch + now, once Now computed it (nowOK)
	nowOK bool
}

// Now returns the current virtual time.
func (e *engine) Now() time.Time {
	if !e.nowOK { // computed when first asked: most events call no one
		e.nowT, e.nowOK = Epoch.Add(time.Duration(e.now)), true
	}
	return e.nowT
}

// setNow moves the clock to t.
func (e *engine) setNow(t int64) {
	e.now = t
	e.nowOK = false
}

// evKind is the type of a simulator event.
type evKind uint8

const (
	evSubmit     evKind = iota // a: job index
	evHeartbeat                // a: node index; ver: 0 periodic, 1 out-of-band
	evStage                    // a: task index; ver: task progress version (stage end or plan step)
	evSample                   // periodic metrics sample
	evTick                     // periodic Ticker call
	evUsage                    // periodic usage samples (UsageWatcher)
	evBackground               // a: index into Config.Background
	evNode                     // a: index into Config.NodeEvents
)

// event is one scheduled occurrence. Events are plain values kept in a
// slice-backed binary heap ordered by (at, seq): equal times fire in the
// order they were scheduled, which makes runs deterministic.
type event struct {
	at   int64  // virtual nanoseconds since the epoch
	seq  uint64 // scheduling order, breaks ties
	a    int32
	ver  uint32
	kind evKind
}

func (e *event) before(f *event) bool {
	return e.at < f.at || (e.at == f.at && e.seq < f.seq)
}

// eventHeap is a min-heap of events. It is hand-written over a slice of
// values (no container/heap, no interface boxing), so pushing and popping
// never allocate once the slice has grown to its working size.
type eventHeap struct {
	ev  []event
	seq uint64
}

func (h *eventHeap) len() int { return len(h.ev) }

// push schedules an event of the given kind at time at, numbered by the
// heap's own sequence.
func (h *eventHeap) push(at int64, kind evKind, a int32, ver uint32) {
	h.seq++
	h.put(event{at: at, seq: h.seq, a: a, ver: ver, kind: kind})
}

// put inserts e as it is (its seq numbered by the caller).
func (h *eventHeap) put(e event) {
	h.ev = append(h.ev, e)
	// sift up
	ev := h.ev
	i := len(ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&ev[p]) {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = e
}

// pop removes and returns the earliest event; the heap must not be empty.
func (h *eventHeap) pop() event {
	ev := h.ev
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	h.ev = ev[:n]
	if n == 0 {
		return top
	}
	ev = h.ev
	// sift last down from the root
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && ev[r].before(&ev[c]) {
			c = r
		}
		if !ev[c].before(&last) {
			break
		}
		ev[i] = ev[c]
		i = c
	}
	ev[i] = last
	return top
}

// events are the simulator's pending events, kept in three sources and
// merged by (at, seq) with one sequence counter, so they come out in
// exactly the order one heap of all of them would give:
//
//   - submissions, in workload order (already sorted by time), as a
//     cursor: job i has seq i+1, as if pushed first of all at the start;
//   - periodic heartbeats (at most one per node): those re-armed by the
//     previous heartbeat of their node (pushPeriodic: at now + the
//     interval) in a FIFO ring, the others (a node's first after a quiet
//     spell or coming back, at now + its stagger offset) in a small heap;
//   - out-of-band heartbeats (pushOOB, at the current time) in a second
//     FIFO ring;
//   - everything else in the main heap.
//
// Keeping the thousands of pending submissions and the per-node
// heartbeat chains out of the main heap makes each push and pop walk a
// shorter, cache-resident heap. The ring needs no heap at all: the
// simulator's clock never goes back and the interval is fixed, so
// re-armed heartbeats are pushed in (at, seq) order and come out of the
// ring in that order, O(1) each.
type events struct {
	main  eventHeap
	hb    eventHeap
	ring  eventRing
	oob   eventRing // out-of-band heartbeats (pushOOB)
	subAt []int64   // submission times by job index
	sub   int       // next submission
	seq   uint64
}

// reset starts the queue with every job's submission pending; the
// counter continues after their sequence numbers.
func (q *events) reset(subAt []int64, capMain, capHB int) {
	q.subAt, q.sub = subAt, 0
	q.main.ev = make([]event, 0, capMain)
	q.hb.ev = make([]event, 0, capHB)
	size := 8
	for size < capHB {
		size *= 2
	}
	q.ring = eventRing{ev: make([]event, size)}
	q.oob = eventRing{ev: make([]event, size)}
	q.seq = uint64(len(subAt))
}

// push schedules an event of the given kind at time at.
func (q *events) push(at int64, kind evKind, a int32, ver uint32) {
	q.seq++
	e := event{at: at, seq: q.seq, a: a, ver: ver, kind: kind}
	if kind == evHeartbeat && ver == 0 {
		q.hb.put(e)
	} else {
		q.main.put(e)
	}
}

// pushPeriodic schedules node a's next periodic heartbeat at time at,
// which must be no earlier than any heartbeat pushPeriodic scheduled
// before (now + the fixed interval: the clock only moves forward); one
// that is earlier goes to the heap, so the order stays exact either way.
func (q *events) pushPeriodic(at int64, a int32) (inRing bool) {
	q.seq++
	e := event{at: at, seq: q.seq, a: a, kind: evHeartbeat}
	if !q.ring.append(e) {
		q.hb.put(e)
		return false
	}
	return true
}

// pushOOB schedules an out-of-band heartbeat of node a at time at, the
// current time: such heartbeats are pushed in (at, seq) order, so a FIFO
// ring holds them sorted (O(1), where the main heap sifted each one up
// to its root and back down); one that is not in order goes to the main
// heap.
func (q *events) pushOOB(at int64, a int32) {
	q.seq++
	e := event{at: at, seq: q.seq, a: a, ver: 1, kind: evHeartbeat}
	if !q.oob.append(e) {
		q.main.put(e)
	}
}

// len returns the number of pending events.
func (q *events) len() int {
	return len(q.main.ev) + len(q.hb.ev) + q.ring.n + q.oob.n + len(q.subAt) - q.sub
}

const (
	srcNone = iota
	srcSub
	srcMain
	srcHB
	srcRing
	srcOOB
)

// first returns the source of the earliest pending event and that
// event (a copy); srcNone if there is none.
func (q *events) first() (int, event) { return q.earliest(true) }

// firstOther is first over every source but the ring of periodic
// heartbeats.
func (q *events) firstOther() (int, event) { return q.earliest(false) }

// earliest is first and firstOther: the sources are compared in one
// fixed order, the ring of periodic heartbeats only if ring is set.
func (q *events) earliest(ring bool) (int, event) {
	src, best := srcNone, event{}
	if q.sub < len(q.subAt) {
		src = srcSub
		best = event{at: q.subAt[q.sub], seq: uint64(q.sub) + 1, a: int32(q.sub), kind: evSubmit}
	}
	if len(q.main.ev) > 0 && (src == srcNone || q.main.ev[0].before(&best)) {
		src, best = srcMain, q.main.ev[0]
	}
	if len(q.hb.ev) > 0 && (src == srcNone || q.hb.ev[0].before(&best)) {
		src, best = srcHB, q.hb.ev[0]
	}
	if r := &q.ring; ring && r.n > 0 && (src == srcNone || r.ev[r.head].before(&best)) {
		src, best = srcRing, r.ev[r.head]
	}
	if r := &q.oob; r.n > 0 && (src == srcNone || r.ev[r.head].before(&best)) {
		src, best = srcOOB, r.ev[r.head]
	}
	return src, best
}

// drop removes the earliest event, whose source first returned.
func (q *events) drop(src int) {
	switch src {
	case srcSub:
		q.sub++
	case srcMain:
		q.main.pop()
	case srcHB:
		q.hb.pop()
	case srcRing:
		q.ring.pop()
	case srcOOB:
		q.oob.pop()
	}
}

// eventRing is a FIFO of events in (at, seq) order, in a circular
// buffer of a power-of-two size that doubles when full.
type eventRing struct {
	ev      []event
	head, n int
}

// append adds e at the tail if that keeps the ring in (at, seq) order
// (e is not before the tail) and reports whether it did.
func (r *eventRing) append(e event) bool {
	mask := len(r.ev) - 1
	if r.n > 0 && e.before(&r.ev[(r.head+r.n-1)&mask]) {
		return false
	}
	if r.n == len(r.ev) {
		grown := make([]event, max(2*len(r.ev), 8))
		for i := range r.n {
			grown[i] = r.ev[(r.head+i)&mask]
		}
		r.ev, r.head = grown, 0
		mask = len(grown) - 1
	}
	r.ev[(r.head+r.n)&mask] = e
	r.n++
	return true
}

// pop removes the head; the ring must not be empty.
func (r *eventRing) pop() {
	r.head = (r.head + 1) & (len(r.ev) - 1)
	r.n--
}

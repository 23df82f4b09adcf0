package sim

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

// push schedules an event of the given kind at time at.
func (h *eventHeap) push(at int64, kind evKind, a int32, ver uint32) {
	h.seq++
	h.ev = append(h.ev, event{at: at, seq: h.seq, a: a, ver: ver, kind: kind})
	// sift up
	ev := h.ev
	i := len(ev) - 1
	e := ev[i]
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

// peek returns the earliest event; the heap must not be empty.
func (h *eventHeap) peek() *event { return &h.ev[0] }

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

package pipeline

import (
	"runtime"
	"sync/atomic"
	"time"
)

// cacheLine separates fields written by different goroutines, so that a
// write by one side does not invalidate the line the other side reads.
type cacheLine [64]byte

// ring is a bounded FIFO between the goroutines of two stages, lock-free
// between its two sides. The producer side alone writes tail, free and
// hw, the consumer side alone writes head; the one counter both sides
// change is n, the number of items queued, by atomic add. Slots are
// published by that add: the producer fills slots, then adds; the
// consumer loads n, copies and clears that many slots, then subtracts.
// Because n changes only by atomic read-modify-write, the value the
// producer's add returns is the exact number of items queued at that
// instant, so the high-water mark is exact, as under a lock; it also
// tells the producer how many slots are free at least (only the consumer
// changes n meanwhile, and only to free slots), so the producer reads n
// only when those run out. A free slot is always zero (slots start zero
// and take clears what it copies), so a producer may fill a slot in
// place, field by field (slot, commit).
//
// A side may be shared by several goroutines (the workers, which take
// from the process queue and put into the write queue): then that side
// has a turn, a 1-buffered channel holding a token, which a goroutine
// holds for a whole take or putAll, waits included, so that at any
// moment one goroutine acts as the side's only goroutine and the handoff
// between the sides stays lock-free. (A channel rather than a
// sync.Mutex: the turn is held across waits, and a mutex's waiters spin
// for it, which on a busy machine takes the processor from the goroutine
// they wait for.) The reader and the writer, each alone on its side,
// take no lock: one atomic add per put or take.
//
// Waiting: a side that finds the ring empty (consumer) or full
// (producer) first yields the processor once and looks again; the other
// side is often runnable and about to put or take, and a yield is much
// cheaper than a park and wake-up. Then it parks on its own 1-buffered
// wake channel. Parking is a Dekker-style handshake on sequentially
// consistent atomics: the waiter raises its flag, then loads n; the
// other side changes n, then loads the flag. At least one of them sees
// the other's store: either the waiter sees the change and does not
// sleep, or the other side sees the flag, lowers it and sends a wake
// token. A token that arrives after the waiter stopped waiting stays in
// the channel and makes a later park return early; every wait re-checks
// its condition in a loop, so a spurious wake is harmless. (On a shared
// side only the goroutine holding the side's turn waits on the ring;
// the others wait for the turn.) close and stop set their flag, then
// send a token unconditionally, which reaches a side whether it is
// parked or about to park.
type ring[T any] struct {
	buf []T

	_         cacheLine
	tail      int           // producer: next slot to fill
	free      int           // producer: free slots when it last looked (there are at least as many)
	hw        int           // producer: most items queued at once
	prodTurn  chan struct{} // shared producer side: holds a token while no producer acts
	shareProd bool

	_         cacheLine
	head      int           // consumer: next slot to take
	consTurn  chan struct{} // shared consumer side: holds a token while no consumer acts
	shareCons bool

	_        cacheLine
	n        atomic.Int64 // items queued
	consWait atomic.Bool  // the consumer is parked, or about to park
	prodWait atomic.Bool  // the producer is parked, or about to park

	_        cacheLine // closed and stopped change once: apart from n, they stay in both sides' caches
	closed   atomic.Bool
	stopped  atomic.Bool
	consWake chan struct{} // 1-buffered: a token wakes the consumer
	prodWake chan struct{}
}

// newRing returns a ring of depth slots for the given numbers of
// producer and consumer goroutines.
func newRing[T any](depth, producers, consumers int) *ring[T] {
	q := &ring[T]{
		buf:       make([]T, depth),
		shareProd: producers > 1,
		shareCons: consumers > 1,
		consWake:  make(chan struct{}, 1),
		prodWake:  make(chan struct{}, 1),
	}
	if q.shareProd {
		q.prodTurn = make(chan struct{}, 1)
		q.prodTurn <- struct{}{}
	}
	if q.shareCons {
		q.consTurn = make(chan struct{}, 1)
		q.consTurn <- struct{}{}
	}
	return q
}

// token sends a wake-up on ch unless one is already waiting there.
func token(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// room returns the number of free slots, waiting until there is at least
// one; it returns 0 if the ring is stopping.
func (q *ring[T]) room(blocked *time.Duration) int {
	if q.stopped.Load() {
		return 0
	}
	if q.free > 0 { // only the consumer changes n meanwhile, and it only frees slots
		return q.free
	}
	if q.free = len(q.buf) - int(q.n.Load()); q.free > 0 {
		return q.free
	}
	q.free = q.waitRoom(blocked)
	return q.free
}

// waitRoom is room's slow path: the ring was full.
func (q *ring[T]) waitRoom(blocked *time.Duration) int {
	runtime.Gosched() // as in queue: the consumer is often about to take
	if q.stopped.Load() {
		return 0
	}
	if free := len(q.buf) - int(q.n.Load()); free > 0 {
		return free
	}
	t0 := time.Now()
	free := 0
	for {
		q.prodWait.Store(true)
		if q.stopped.Load() {
			break
		}
		if free = len(q.buf) - int(q.n.Load()); free > 0 {
			break
		}
		<-q.prodWake
	}
	q.prodWait.Store(false)
	*blocked += time.Since(t0)
	return free
}

// published is the producer's part after filling k slots: publish them,
// record the high-water mark, and wake the consumer if it is waiting.
func (q *ring[T]) published(k int) {
	if q.tail += k; q.tail >= len(q.buf) {
		q.tail -= len(q.buf)
	}
	n := int(q.n.Add(int64(k)))
	q.free = len(q.buf) - n
	if n > q.hw {
		q.hw = n
	}
	if q.consWait.Load() && q.consWait.CompareAndSwap(true, false) {
		token(q.consWake)
	}
}

// slot waits for room and returns the (zero) slot the next put would
// fill, for the producer to fill in place and publish with commit. It
// returns nil if the ring is stopping.
func (q *ring[T]) slot(blocked *time.Duration) *T {
	if q.room(blocked) == 0 {
		return nil
	}
	return &q.buf[q.tail]
}

// commit publishes the slot that slot returned.
func (q *ring[T]) commit() { q.published(1) }

// putAll appends xs in order, waiting for room as often as needed, and
// returns how many it appended: len(xs) unless the ring is stopping.
func (q *ring[T]) putAll(xs []T, blocked *time.Duration) int {
	if q.shareProd {
		<-q.prodTurn
		defer func() { q.prodTurn <- struct{}{} }()
	}
	done := 0
	for done < len(xs) {
		free := q.room(blocked)
		if free == 0 {
			break
		}
		k := min(free, len(xs)-done)
		if k == 1 { // the common case of a batch of one
			q.buf[q.tail] = xs[done]
		} else if m := copy(q.buf[q.tail:], xs[done:done+k]); m < k {
			// At most two contiguous runs, before and after the wrap.
			copy(q.buf, xs[done+m:done+k])
		}
		done += k
		q.published(k)
	}
	return done
}

// queued returns the number of items queued, waiting until there is at
// least one; it returns 0 if the ring is stopping, or closed and empty.
func (q *ring[T]) queued(blocked *time.Duration) int {
	if q.stopped.Load() {
		return 0
	}
	if n := int(q.n.Load()); n > 0 {
		return n
	}
	return q.waitQueued(blocked)
}

// waitQueued is queued's slow path: the ring was empty.
func (q *ring[T]) waitQueued(blocked *time.Duration) int {
	if q.closed.Load() {
		return int(q.n.Load()) // puts before close are visible after it
	}
	runtime.Gosched() // as in queue: the producer is often about to put
	if n := int(q.n.Load()); n > 0 || q.stopped.Load() {
		return n
	}
	t0 := time.Now()
	n := 0
	for {
		q.consWait.Store(true)
		if q.stopped.Load() {
			break
		}
		closed := q.closed.Load() // before n: see the last puts
		if n = int(q.n.Load()); n > 0 || closed {
			break
		}
		<-q.consWake
	}
	q.consWait.Store(false)
	*blocked += time.Since(t0)
	return n
}

// take waits until an item is queued, then moves up to limit items to
// dst, in FIFO order, and returns it. It reports false, taking nothing,
// once the ring is closed and empty or is stopping.
func (q *ring[T]) take(dst []T, limit int, blocked *time.Duration) ([]T, bool) {
	if q.shareCons {
		<-q.consTurn
		defer func() { q.consTurn <- struct{}{} }()
	}
	n := q.queued(blocked)
	if n == 0 || q.stopped.Load() {
		return dst, false
	}
	k := min(n, limit)
	for c := k; c > 0; { // at most two contiguous runs
		run := q.buf[q.head:min(q.head+c, len(q.buf))]
		dst = append(dst, run...)
		clear(run) // free slots are zero; and the items can be collected once written
		if q.head += len(run); q.head == len(q.buf) {
			q.head = 0
		}
		c -= len(run)
	}
	q.n.Add(-int64(k))
	if q.prodWait.Load() && q.prodWait.CompareAndSwap(true, false) {
		token(q.prodWake)
	}
	return dst, true
}

// retake is take into buf, whose items the caller has passed on: they
// are cleared so that they can be collected, but lazily. Those that the
// take overwrites need no clearing, so buf is cleared first only if the
// take is likely to wait (the ring is empty: the caller then holds no
// references while it waits), and otherwise only the part the take did
// not overwrite, after it.
func (q *ring[T]) retake(buf []T, limit int, blocked *time.Duration) ([]T, bool) {
	stale := len(buf)
	if q.n.Load() == 0 {
		clear(buf)
		stale = 0
	}
	buf, ok := q.take(buf[:0], limit, blocked)
	if n := len(buf); n < stale {
		clear(buf[n:stale])
	}
	return buf, ok
}

// close marks the end of input: consumers take what is left, then see
// the end. Puts after close are a bug in the caller.
func (q *ring[T]) close() {
	q.closed.Store(true)
	token(q.consWake)
}

// stop makes every current and later wait return at once.
func (q *ring[T]) stop() {
	q.stopped.Store(true)
	token(q.consWake)
	token(q.prodWake)
}

// drain appends whatever is still queued to dst, for accounting after
// every goroutine has exited.
func (q *ring[T]) drain(dst []T) []T {
	for n := q.n.Load(); n > 0; n-- {
		dst = append(dst, q.buf[q.head])
		q.buf[q.head] = *new(T)
		if q.head++; q.head == len(q.buf) {
			q.head = 0
		}
	}
	q.n.Store(0)
	return dst
}

// highWater returns the most items the ring held at once.
func (q *ring[T]) highWater() int { return q.hw }

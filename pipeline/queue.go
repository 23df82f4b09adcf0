package pipeline

import (
	"runtime"
	"sync"
	"time"
)

// queue is the blocking queue between two stages (the paper's blocking
// processing and write buffers) when several workers share one side of
// it: a bounded FIFO ring under one mutex. (With a lone worker both
// queues are rings; see link.)
// Producers append one item or a run of items; a consumer takes every
// queued item up to a maximum in one lock acquisition, so under load the
// handoff cost is shared by many items while a lone item is never held
// back waiting for a batch to fill.
//
// Waiting uses two sync.Conds. Each successful put wakes one consumer and
// each take wakes one producer; a woken goroutine that leaves work behind
// (items still queued, room still free) wakes the next, so wake-ups chain
// instead of stampeding. Before parking, a goroutine yields the processor
// once (runtime.Gosched) and looks again: the other side is often
// runnable and about to put or take, and a yield is much cheaper than a
// park and wake-up. stop wakes everyone for shutdown.
type queue[T any] struct {
	mu       sync.Mutex
	notEmpty sync.Cond
	notFull  sync.Cond
	ring     []T
	head     int
	n        int
	hw       int  // most items held at once
	closed   bool // no more puts: consumers drain, then see the end
	stopped  bool // shutting down: every wait returns at once
}

func newQueue[T any](depth int) *queue[T] {
	q := &queue[T]{ring: make([]T, depth)}
	q.notEmpty.L = &q.mu
	q.notFull.L = &q.mu
	return q
}

// waitRoom waits, with q.mu held, until the queue has room or is
// stopping; it reports false if stopping. Time spent waiting is added to
// *blocked.
func (q *queue[T]) waitRoom(blocked *time.Duration) bool {
	if q.n == len(q.ring) && !q.stopped {
		q.mu.Unlock() // yield once before parking, as in take
		runtime.Gosched()
		q.mu.Lock()
	}
	if q.n == len(q.ring) && !q.stopped {
		t0 := time.Now()
		for q.n == len(q.ring) && !q.stopped {
			q.notFull.Wait()
		}
		*blocked += time.Since(t0)
	}
	return !q.stopped
}

// push appends x; q.mu held, room checked.
func (q *queue[T]) push(x T) {
	i := q.head + q.n
	if i >= len(q.ring) {
		i -= len(q.ring)
	}
	q.ring[i] = x
	q.n++
}

// put appends x, waiting for room. It reports false, without appending,
// if the queue is stopping.
func (q *queue[T]) put(x T, blocked *time.Duration) bool {
	q.mu.Lock()
	if !q.waitRoom(blocked) {
		q.mu.Unlock()
		return false
	}
	q.push(x)
	q.afterPut()
	q.mu.Unlock()
	return true
}

// putAll appends xs in order, waiting for room as often as needed. It
// returns how many it appended: len(xs) unless the queue is stopping.
func (q *queue[T]) putAll(xs []T, blocked *time.Duration) int {
	done := 0
	q.mu.Lock()
	for done < len(xs) {
		if !q.waitRoom(blocked) {
			break
		}
		for done < len(xs) && q.n < len(q.ring) {
			q.push(xs[done])
			done++
		}
		q.afterPut()
	}
	q.mu.Unlock()
	return done
}

// afterPut records the high-water mark and wakes a consumer, and another
// producer if room is left; q.mu held.
func (q *queue[T]) afterPut() {
	if q.n > q.hw {
		q.hw = q.n
	}
	q.notEmpty.Signal()
	if q.n < len(q.ring) {
		q.notFull.Signal()
	}
}

// take waits until an item is queued, then moves up to limit items to
// dst, in FIFO order, and returns it. It reports false, taking nothing,
// once the queue is closed and empty or is stopping.
func (q *queue[T]) take(dst []T, limit int, blocked *time.Duration) ([]T, bool) {
	q.mu.Lock()
	if q.n == 0 && !q.closed && !q.stopped {
		// Yield once before parking: the producer is often runnable and
		// about to put, and a park/unpark costs far more than a yield.
		q.mu.Unlock()
		runtime.Gosched()
		q.mu.Lock()
	}
	if q.n == 0 && !q.closed && !q.stopped {
		t0 := time.Now()
		for q.n == 0 && !q.closed && !q.stopped {
			q.notEmpty.Wait()
		}
		*blocked += time.Since(t0)
	}
	if q.stopped || q.n == 0 {
		q.mu.Unlock()
		return dst, false
	}
	k := min(q.n, limit)
	var zero T
	for range k {
		dst = append(dst, q.ring[q.head])
		q.ring[q.head] = zero // let the item be collected once written
		q.head++
		if q.head == len(q.ring) {
			q.head = 0
		}
	}
	q.n -= k
	q.notFull.Signal()
	if q.n > 0 {
		q.notEmpty.Signal()
	}
	q.mu.Unlock()
	return dst, true
}

// close marks the end of input: consumers take what is left, then see
// the end. Puts after close are a bug in the caller.
func (q *queue[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.notEmpty.Broadcast()
	q.mu.Unlock()
}

// stop makes every current and later wait return at once.
func (q *queue[T]) stop() {
	q.mu.Lock()
	q.stopped = true
	q.notEmpty.Broadcast()
	q.notFull.Broadcast()
	q.mu.Unlock()
}

// drain appends whatever is still queued to dst, for accounting after
// every goroutine has exited.
func (q *queue[T]) drain(dst []T) []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ; q.n > 0; q.n-- {
		dst = append(dst, q.ring[q.head])
		q.head = (q.head + 1) % len(q.ring)
	}
	return dst
}

// highWater returns the most items the queue held at once.
func (q *queue[T]) highWater() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.hw
}

// gate caps the items in flight between the read stage and the end of
// the write stage (Config.MaxInFlight): the reader takes slots before it
// reads, the writer releases them as items leave. The reader takes every
// free slot at once and spends them one per item read, so the gate costs
// one lock per burst rather than per item.
type gate struct {
	mu      sync.Mutex
	cond    sync.Cond
	n       int // slots taken
	limit   int
	stopped bool
}

func newGate(limit int) *gate {
	g := &gate{limit: limit}
	g.cond.L = &g.mu
	return g
}

// acquire waits until a slot is free, then takes every free slot and
// returns how many (at least 1); it returns 0 if the pipeline is
// stopping.
func (g *gate) acquire(blocked *time.Duration) int {
	g.mu.Lock()
	if g.n >= g.limit && !g.stopped {
		t0 := time.Now()
		for g.n >= g.limit && !g.stopped {
			g.cond.Wait()
		}
		*blocked += time.Since(t0)
	}
	k := 0
	if !g.stopped {
		k = g.limit - g.n
		g.n = g.limit
	}
	g.mu.Unlock()
	return k
}

// release frees k slots.
func (g *gate) release(k int) {
	if k == 0 {
		return
	}
	g.mu.Lock()
	g.n -= k
	g.cond.Signal()
	g.mu.Unlock()
}

// stop makes every current and later acquire return 0.
func (g *gate) stop() {
	g.mu.Lock()
	g.stopped = true
	g.cond.Broadcast()
	g.mu.Unlock()
}

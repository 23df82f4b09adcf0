package pipeline

import "time"

// link is the queue between two stages. It is a ring, lock-free, when
// exactly one goroutine puts and one takes (the reader and a lone worker;
// a lone worker and the writer), and a queue, a mutex-guarded ring, when
// several workers share one side. Both block the same way, count blocked
// time the same way and keep an exact high-water mark. link is a struct
// with a branch rather than an interface, so that its calls are static
// (the branch always goes the same way for a run), and the reader can
// reach the ring to fill slots in place.
type link[T any] struct {
	r *ring[T] // exactly one of r and q is set
	q *queue[T]
}

// newLink returns the queue for a link with the given numbers of
// producer and consumer goroutines.
func newLink[T any](depth, producers, consumers int) link[T] {
	if producers == 1 && consumers == 1 {
		return link[T]{r: newRing[T](depth)}
	}
	return link[T]{q: newQueue[T](depth)}
}

// putAll appends xs in order, waiting for room as often as needed, and
// returns how many it appended: len(xs) unless the queue is stopping.
func (l link[T]) putAll(xs []T, blocked *time.Duration) int {
	if l.r != nil {
		return l.r.putAll(xs, blocked)
	}
	return l.q.putAll(xs, blocked)
}

// take waits until an item is queued, then moves up to limit items to
// dst, in FIFO order, and returns it. It reports false, taking nothing,
// once the queue is closed and empty or is stopping.
func (l link[T]) take(dst []T, limit int, blocked *time.Duration) ([]T, bool) {
	if l.r != nil {
		return l.r.take(dst, limit, blocked)
	}
	return l.q.take(dst, limit, blocked)
}

// close marks the end of input: consumers take what is left, then see
// the end. Puts after close are a bug in the caller.
func (l link[T]) close() {
	if l.r != nil {
		l.r.close()
		return
	}
	l.q.close()
}

// stop makes every current and later wait return at once.
func (l link[T]) stop() {
	if l.r != nil {
		l.r.stop()
		return
	}
	l.q.stop()
}

// drain appends whatever is still queued to dst, for accounting after
// every goroutine has exited.
func (l link[T]) drain(dst []T) []T {
	if l.r != nil {
		return l.r.drain(dst)
	}
	return l.q.drain(dst)
}

// highWater returns the most items the queue held at once.
func (l link[T]) highWater() int {
	if l.r != nil {
		return l.r.highWater()
	}
	return l.q.highWater()
}

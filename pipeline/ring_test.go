package pipeline

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// ringLen returns the number of items queued; for single-threaded tests.
func ringLen[T any](q *ring[T]) int { return int(q.n.Load()) }

// ringPut appends x through slot and commit, as the reader does.
func ringPut(q *ring[int], x int, blocked *time.Duration) bool {
	s := q.slot(blocked)
	if s == nil {
		return false
	}
	*s = x
	q.commit()
	return true
}

// TestRingFIFO checks the ring against a slice oracle after every
// operation, single-threaded: FIFO order across the wrap, take limits,
// capacity, the exact high-water mark, free slots being zero (slot
// relies on it), close, and drain.
func TestRingFIFO(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var blocked time.Duration
	for run := range 300 {
		depth := 1 + rng.IntN(6)
		q := newRing[int](depth, 1, 1)
		var oracle []int
		next, hw := 1, 0 // items are non-zero, so a zero slot is free
		for op := range 100 {
			switch {
			case rng.IntN(2) == 0 && len(oracle) < depth:
				k := 1 + rng.IntN(depth-len(oracle))
				xs := make([]int, k)
				for i := range xs {
					xs[i] = next
					next++
				}
				if k == 1 && rng.IntN(2) == 0 {
					if !ringPut(q, xs[0], &blocked) {
						t.Fatalf("run %d op %d: slot failed", run, op)
					}
				} else if n := q.putAll(xs, &blocked); n != k {
					t.Fatalf("run %d op %d: putAll = %d, want %d", run, op, n, k)
				}
				oracle = append(oracle, xs...)
				hw = max(hw, len(oracle))
			case len(oracle) > 0:
				limit := 1 + rng.IntN(depth+1)
				got, ok := q.take(nil, limit, &blocked)
				want := oracle[:min(limit, len(oracle))]
				if !ok || !slices.Equal(got, want) {
					t.Fatalf("run %d op %d: take(%d) = %v %v, want %v", run, op, limit, got, ok, want)
				}
				oracle = oracle[len(want):]
			}
			if ringLen(q) != len(oracle) || q.highWater() != hw {
				t.Fatalf("run %d op %d: n %d hw %d, oracle %d hw %d", run, op, ringLen(q), q.highWater(), len(oracle), hw)
			}
			for i, x := range q.buf {
				queued := (i-q.head+depth)%depth < len(oracle)
				if queued != (x != 0) {
					t.Fatalf("run %d op %d: slot %d = %d (head %d, %d queued): free slots must be zero", run, op, i, x, q.head, len(oracle))
				}
			}
		}
		if rng.IntN(2) == 0 {
			if left := q.drain(nil); !slices.Equal(left, oracle) {
				t.Fatalf("run %d: drain = %v, want %v", run, left, oracle)
			}
			oracle = nil
		}
		q.close()
		rest, ok := q.take(nil, depth, &blocked)
		if len(oracle) > 0 && (!ok || !slices.Equal(rest, oracle)) {
			t.Fatalf("run %d: after close take = %v %v, want %v", run, rest, ok, oracle)
		}
		if _, ok := q.take(nil, depth, &blocked); ok {
			t.Fatalf("run %d: take after close and drain succeeded", run)
		}
	}
	if blocked != 0 {
		t.Errorf("single-threaded use blocked for %v", blocked)
	}
}

// chanFifo is the naive oracle for the ring: a buffered channel of the
// same depth, with the same operations (put item by item; take waits for
// one item, then takes what else is there up to the limit).
type chanFifo struct{ ch chan int }

func (c chanFifo) putAll(xs []int) int {
	for _, x := range xs {
		c.ch <- x
	}
	return len(xs)
}

func (c chanFifo) take(dst []int, limit int) ([]int, bool) {
	x, ok := <-c.ch
	if !ok {
		return dst, false
	}
	dst = append(dst, x)
	for len(dst) < limit {
		select {
		case x, ok := <-c.ch:
			if !ok {
				return dst, true
			}
			dst = append(dst, x)
		default:
			return dst, true
		}
	}
	return dst, true
}

// fifoProgram is one random run for TestRingOracle: what the producer
// puts, in which chunks, the consumer's take limits, and the pauses on
// each side (Gosched calls, or a sleep), drawn up front so that the ring
// and the oracle run the same program under different timings.
type fifoProgram struct {
	depth     int
	chunks    [][]int
	single    []bool // put the chunk (of one item) through slot and commit
	limits    []int  // consumer take limits, cycled
	prodPause []int  // after each chunk: <0 sleep |x| µs, else x yields
	consPause []int  // after each take, cycled
	stopAfter int    // stop (rather than close) once this many chunks are put, -1 never
}

func randomProgram(rng *rand.Rand) fifoProgram {
	p := fifoProgram{depth: 1 + rng.IntN(5), stopAfter: -1}
	pause := func() int {
		switch rng.IntN(40) {
		case 0:
			return -rng.IntN(50) // sleep: the other side parks
		case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10:
			return rng.IntN(4)
		}
		return 0
	}
	// Phases where one side is slower than the other, so both park.
	next := 1
	for range 10 + rng.IntN(100) {
		k := 1 + rng.IntN(2*p.depth)
		chunk := make([]int, k)
		for i := range chunk {
			chunk[i] = next
			next++
		}
		p.chunks = append(p.chunks, chunk)
		p.single = append(p.single, k == 1 && rng.IntN(2) == 0)
		p.prodPause = append(p.prodPause, pause())
	}
	for range 1 + rng.IntN(20) {
		p.limits = append(p.limits, 1+rng.IntN(p.depth+2))
		p.consPause = append(p.consPause, pause())
	}
	if rng.IntN(4) == 0 {
		p.stopAfter = rng.IntN(len(p.chunks) + 1)
	}
	return p
}

func doPause(x int) {
	if x < 0 {
		time.Sleep(time.Duration(-x) * time.Microsecond)
		return
	}
	for range x {
		runtime.Gosched()
	}
}

// fifoRun is what one run of a program did.
type fifoRun struct {
	put      []int // items the producer appended, in order
	taken    []int // items the consumer took, in order
	maxTake  int   // largest take
	drained  []int // left in the ring after a stop
	hw       int
	prodWait time.Duration
	consWait time.Duration
}

// runRing plays p on a ring: producer and consumer in their own
// goroutines, and stop (if any) from a third, as Run does.
func runRing(p fifoProgram) fifoRun {
	q := newRing[int](p.depth, 1, 1)
	var r fifoRun
	prodDone := make(chan struct{})
	consDone := make(chan struct{})
	stopNow := make(chan struct{})
	go func() { // producer
		defer close(prodDone)
		for i, chunk := range p.chunks {
			if i == p.stopAfter {
				close(stopNow)
				// Keep putting: puts after a stop must fail.
			}
			var n int
			if p.single[i] {
				if ringPut(q, chunk[0], &r.prodWait) {
					n = 1
				}
			} else {
				n = q.putAll(chunk, &r.prodWait)
			}
			r.put = append(r.put, chunk[:n]...)
			if n < len(chunk) {
				return // stopping
			}
			doPause(p.prodPause[i])
		}
		if p.stopAfter < 0 {
			q.close()
		}
	}()
	go func() { // consumer
		defer close(consDone)
		var buf []int
		for i := 0; ; i++ {
			var ok bool
			buf, ok = q.take(buf[:0], p.limits[i%len(p.limits)], &r.consWait)
			if !ok {
				return
			}
			r.taken = append(r.taken, buf...)
			r.maxTake = max(r.maxTake, len(buf))
			doPause(p.consPause[i%len(p.consPause)])
		}
	}()
	if p.stopAfter >= 0 {
		select {
		case <-stopNow:
		case <-prodDone: // stopAfter == len(chunks): stop after the last put
		}
		q.stop()
	}
	<-prodDone
	<-consDone
	r.drained = q.drain(nil)
	r.hw = q.highWater()
	return r
}

// runOracle plays p (without its stop) on a chanFifo.
func runOracle(p fifoProgram) []int {
	c := chanFifo{make(chan int, p.depth)}
	go func() {
		for i, chunk := range p.chunks {
			c.putAll(chunk)
			doPause(p.prodPause[i])
		}
		close(c.ch)
	}()
	var got, buf []int
	for i := 0; ; i++ {
		var ok bool
		buf, ok = c.take(buf[:0], p.limits[i%len(p.limits)])
		if !ok {
			return got
		}
		got = append(got, buf...)
		doPause(p.consPause[i%len(p.consPause)])
	}
}

// TestRingOracle is the ring's property test: random programs with
// random pauses on both sides, so that the producer and the consumer each
// find the ring full or empty and park, run on the ring and on the naive
// channel oracle, under -race. After a close, the consumer must have
// taken exactly the oracle's sequence; after a stop at a random point,
// every item put must have been taken or drained exactly once, in order.
// Each take respects its limit, the high-water mark lies between the
// largest take and the depth (and is the depth if the producer ever
// waited), and a watchdog turns a lost wake-up into a failure rather
// than a hang.
func TestRingOracle(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 50
	}
	rng := rand.New(rand.NewPCG(11, 12))
	prodParked, consParked, stopped := 0, 0, 0
	for run := range runs {
		p := randomProgram(rng)
		done := make(chan fifoRun, 1)
		go func() { done <- runRing(p) }()
		var r fifoRun
		select {
		case r = <-done:
		case <-time.After(20 * time.Second):
			buf := make([]byte, 1<<16)
			t.Fatalf("run %d: ring hung (lost wake-up?): depth %d, %d chunks, stop after %d\n%s",
				run, p.depth, len(p.chunks), p.stopAfter, buf[:runtime.Stack(buf, true)])
		}
		name := fmt.Sprintf("run %d (depth %d, %d chunks, stop after %d)", run, p.depth, len(p.chunks), p.stopAfter)
		var all []int
		for _, c := range p.chunks {
			all = append(all, c...)
		}
		if !slices.Equal(r.put, all[:len(r.put)]) {
			t.Fatalf("%s: producer's record is not a prefix of the program", name)
		}
		if p.stopAfter < 0 {
			if want := runOracle(p); !slices.Equal(r.taken, want) || len(r.drained) > 0 {
				t.Fatalf("%s: ring delivered %d items (%d left), oracle %d; first difference at %d",
					name, len(r.taken), len(r.drained), len(want), firstDiff(r.taken, want))
			}
		} else if got := append(slices.Clone(r.taken), r.drained...); !slices.Equal(got, r.put) {
			t.Fatalf("%s: taken+drained (%d+%d) differ from put (%d) at %d",
				name, len(r.taken), len(r.drained), len(r.put), firstDiff(got, r.put))
		}
		if r.hw > p.depth || r.hw < r.maxTake || (r.prodWait > 0 && r.hw != p.depth) {
			t.Fatalf("%s: high water %d, depth %d, largest take %d, producer waited %v", name, r.hw, p.depth, r.maxTake, r.prodWait)
		}
		if r.prodWait > 0 {
			prodParked++
		}
		if r.consWait > 0 {
			consParked++
		}
		if p.stopAfter >= 0 {
			stopped++
		}
	}
	t.Logf("%d runs: producer parked in %d, consumer in %d; %d stopped", runs, prodParked, consParked, stopped)
	if prodParked == 0 || consParked == 0 || stopped == 0 {
		t.Errorf("the runs do not reach every wait path and the stop")
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRingStop: stop releases a producer waiting for room and a consumer
// waiting for items, later calls fail at once, and drain returns what
// is left.
func TestRingStop(t *testing.T) {
	q := newRing[int](1, 1, 1)
	var blocked time.Duration
	ringPut(q, 1, &blocked)
	res := make(chan bool, 2)
	go func() { var b time.Duration; res <- q.putAll([]int{2}, &b) == 1 }()
	e := newRing[int](1, 1, 1)
	go func() { var b time.Duration; _, ok := e.take(nil, 1, &b); res <- ok }()
	time.Sleep(10 * time.Millisecond)
	q.stop()
	e.stop()
	if r1, r2 := <-res, <-res; r1 || r2 {
		t.Fatal("a wait succeeded after stop")
	}
	if ringPut(q, 3, &blocked) || q.putAll([]int{3}, &blocked) != 0 {
		t.Fatal("put after stop succeeded")
	}
	if _, ok := q.take(nil, 1, &blocked); ok {
		t.Fatal("take after stop succeeded")
	}
	if left := q.drain(nil); !slices.Equal(left, []int{1}) {
		t.Fatalf("drain = %v, want [1]", left)
	}
}

// TestRingBlocked: time spent parked is counted on the side that waited,
// and only there.
func TestRingBlocked(t *testing.T) {
	q := newRing[int](1, 1, 1)
	var prod, cons time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(20 * time.Millisecond) // the consumer waits for the first item
		for x := range 3 {
			ringPut(q, x+1, &prod) // the third waits while the consumer sleeps
		}
		q.close()
	}()
	got, _ := q.take(nil, 1, &cons)
	time.Sleep(20 * time.Millisecond)
	for {
		var ok bool
		if got, ok = q.take(got, 1, &cons); !ok {
			break
		}
	}
	<-done
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("took %v", got)
	}
	if cons < 10*time.Millisecond || prod < 10*time.Millisecond {
		t.Errorf("blocked: consumer %v, producer %v; want each about 20ms", cons, prod)
	}
}

// TestRingShared: several producers and consumers, each side sharing the
// ring under its mutex as the workers do, move every item exactly once
// through a small ring.
func TestRingShared(t *testing.T) {
	const producers, consumers, per = 3, 3, 2000
	q := newRing[[2]int](2, producers, consumers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := make([][]int, producers)
	for c := range consumers {
		wg.Go(func() {
			var blocked time.Duration
			for {
				xs, ok := q.take(nil, 1+c, &blocked)
				if !ok {
					return
				}
				mu.Lock()
				for _, x := range xs {
					got[x[0]] = append(got[x[0]], x[1])
				}
				mu.Unlock()
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			var blocked time.Duration
			for i := 0; i < per; {
				k := min(1+p, per-i)
				xs := make([][2]int, k)
				for j := range xs {
					xs[j] = [2]int{p, i + j}
				}
				if q.putAll(xs, &blocked) != k {
					t.Error("putAll short")
				}
				i += k
			}
		})
	}
	pwg.Wait()
	q.close()
	wg.Wait()
	for p, xs := range got {
		// Consumers interleave, so per-producer order is only per take;
		// every item must still arrive exactly once.
		slices.Sort(xs)
		if len(xs) != per || xs[0] != 0 || xs[per-1] != per-1 || len(slices.Compact(xs)) != per {
			t.Errorf("producer %d: %d items delivered", p, len(xs))
		}
	}
}

// TestRingRetake: retake leaves no stale item in the buffer it reuses,
// whether the ring had items (only the tail past the take is cleared) or
// was empty (all of it, before waiting).
func TestRingRetake(t *testing.T) {
	q := newRing[*int](4, 1, 1)
	var blocked time.Duration
	x := new(int)
	buf := []*int{x, x, x, x}
	q.putAll([]*int{x, x}, &blocked)
	buf, ok := q.retake(buf, 4, &blocked)
	if !ok || len(buf) != 2 || buf[:4][2] != nil || buf[:4][3] != nil {
		t.Fatalf("retake from a ring of 2: %v, %v", buf[:4], ok)
	}
	q.close()
	buf, ok = q.retake(buf, 4, &blocked)
	if ok || len(buf) != 0 || buf[:4][0] != nil || buf[:4][1] != nil {
		t.Fatalf("retake from a closed empty ring: %v, %v", buf[:4], ok)
	}
}

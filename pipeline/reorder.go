package pipeline

import "github.com/schedkit/schedkit"

// item is a Result on its way through the pipeline, with a pointer to
// its requester's record so the writer reorders without a map lookup.
type item[I, R any] struct {
	Result[I, R]
	req *requester[I, R]
}

// requester is the per-requester record. The read goroutine owns next;
// the write goroutine owns expect and pending. Run keeps one record per
// distinct requester for its whole life (a few dozen bytes each; an
// accelerator node serves the requesters bound to it, a bounded set).
type requester[I, R any] struct {
	id   schedkit.NodeID
	next uint64 // Seq of the next item read from id

	expect  uint64       // Seq of the next result to write (Ordered)
	pending []item[I, R] // results that arrived before expect: a min-heap on Seq
	listed  bool         // in run.held, so Run finds pending at the end
}

// hold stores it, which arrived ahead of its turn, in r's reorder buffer.
func (r *requester[I, R]) hold(it item[I, R]) {
	h := append(r.pending, it)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].Seq <= h[i].Seq {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	r.pending = h
}

// ready reports whether the earliest held result is the one expected.
func (r *requester[I, R]) ready() bool {
	return len(r.pending) > 0 && r.pending[0].Seq == r.expect
}

// pop removes and returns the earliest held result.
func (r *requester[I, R]) pop() item[I, R] {
	h := r.pending
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = item[I, R]{}
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].Seq < h[c].Seq {
			c++
		}
		if h[i].Seq <= h[c].Seq {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	r.pending = h
	return top
}

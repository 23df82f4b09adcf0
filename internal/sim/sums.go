package sim

import (
	"math"

	"github.com/schedkit/schedkit/resource"
)

// A node's allocation and usage are sums over its running attempts
// (recompute), in the order of Node.running. Floating-point addition is
// not associative in general, so adding every attempt's terms again
// after each change on the node would be the safe way: on a trace day,
// four attempts' worth of cache misses per task start and end, and a
// rate update of every attempt on the node after.
//
// When every term is an exact integer (|x| ≤ 2^32, not −0: slots,
// devices, whole cores and megabytes), every partial sum is exact, so
// any order of adding and subtracting them gives the same sum bit for
// bit, +0 when it is zero. A node then keeps incremental sums (Node.
// incAlloc, incLoad) that each attempt's terms enter when it starts,
// are replaced in when they change (a stage, a plan step, the end of
// waiting: contribute) and leave when it ends (withdraw); recompute
// copies them instead of visiting the attempts. An attempt with an
// inexact term makes the node recompute in full, which rebuilds the
// sums once none is left. CheckInvariants compares the sums and every
// attempt's recorded terms with a full recompute after every event.
//
// The attempts whose terms changed are the only ones whose progress
// rate can have changed, unless the node's compression rates did
// (rate reads nothing else that changes): settle updates only theirs,
// in Node.running order, unless a recompute moved the node's rc.

// exactTerm reports whether x is an integer that sums exactly: |x| ≤
// 2^32, and not −0 (−0 + −0 is −0 but +0 − −0 is +0).
func exactTerm(x float64) bool {
	return x == math.Trunc(x) && math.Abs(x) <= 1<<32 && (x != 0 || !math.Signbit(x))
}

// contribute brings the terms of t's running attempt into its node's
// sums after they may have changed (or at its start), marks the node
// dirty and queues t for its rate update.
func (w *world) contribute(t *Task) {
	if !w.fast {
		return
	}
	a, n := t.run, t.node
	w.withdraw(a, n)
	exact := true
	for k := 0; k < w.k; k++ {
		x, l := a.alloc[k], w.load(a, k)
		a.cAlloc[k], a.cLoad[k] = x, l
		exact = exact && exactTerm(x) && exactTerm(l)
	}
	a.cExact, a.cOn = exact, true
	switch {
	case !exact:
		n.inexact++
		n.resync = true
	case !n.resync:
		for k := 0; k < w.k; k++ {
			n.incAlloc[k] += a.cAlloc[k]
			n.incLoad[k] += a.cLoad[k]
		}
	}
	n.changed = append(n.changed, t)
	w.markDirty(n)
}

// withdraw takes a's terms out of its node n's sums.
func (w *world) withdraw(a *attempt, n *Node) {
	if !a.cOn {
		return
	}
	a.cOn = false
	switch {
	case !a.cExact:
		n.inexact--
	case !n.resync:
		for k := 0; k < w.k; k++ {
			n.incAlloc[k] -= a.cAlloc[k]
			n.incLoad[k] -= a.cLoad[k]
		}
	}
}

// sumsHold reports whether n's allocation and usage can be taken from
// its incremental sums: they are exact and current, and its background
// load is exact too (usage adds it first).
func (w *world) sumsHold(n *Node) bool {
	if !w.fast || n.resync || n.inexact > 0 {
		return false
	}
	for _, x := range n.bg {
		if !exactTerm(x) {
			return false
		}
	}
	return true
}

// rateUpdates updates the progress rates of n's tasks after a settle:
// every running task's (and guest's) if a recompute moved n's
// compression rates or n keeps no sums, else only the changed tasks', in
// Node.running order (as updating every task would: the others' rates
// cannot have moved, and updateRate leaves a task whose rate did not
// move alone).
func (w *world) rateUpdates(n *Node) {
	if !w.fast || n.rateAll {
		for _, t := range n.running {
			w.updateRate(t)
		}
		for _, t := range n.guests {
			w.updateRate(t)
		}
	} else {
		ch := n.changed[:0]
		for _, t := range n.changed {
			if t.run != nil && t.node == n {
				ch = append(ch, t)
			}
		}
		for i := 1; i < len(ch); i++ { // few: insertion sort by slot
			for j := i; j > 0 && ch[j].run.slot < ch[j-1].run.slot; j-- {
				ch[j], ch[j-1] = ch[j-1], ch[j]
			}
		}
		for i, t := range ch {
			if i == 0 || t != ch[i-1] {
				w.updateRate(t)
			}
		}
	}
	clear(n.changed)
	n.changed = n.changed[:0]
	n.rateAll = false
}

// recompute brings n's allocation, availability, usage and compression
// rates up to date (for settle).
func (w *world) recompute(n *Node) {
	if w.sumsHold(n) {
		// the same sums, bit for bit (sums.go)
		copy(n.alloc, n.incAlloc)
		for k := range n.used {
			n.used[k] = n.bg[k] + n.incLoad[k]
		}
	} else {
		w.recomputeFull(n)
	}
	for k := range n.avail {
		n.avail[k] = n.capacity[k] - n.alloc[k]
	}
	w.hot[n.idx].free = freeMask(n.avail)
	for _, k := range w.kinds.compKinds {
		rc, err := resource.CompressionRate(true, n.used[k], n.capacity[k])
		if err != nil { // amounts are finite and non-negative by construction
			rc = 0
		}
		if rc != n.rc[k] {
			n.rateAll = true
		}
		n.rc[k] = rc
	}
}

// settleRates finishes a settle once no dirty node over-commits: the
// nodes recomputed again if a task failed (a failure may have ended
// tasks on nodes recomputed before it, and changed a host's guests;
// without one, nothing changed since each node's recompute, which
// depends only on the node's own tasks and guests: doing it again would
// give the same values), then their tasks' rates updated, the dirty
// list emptied.
func (w *world) settleRates(failed bool) {
	if failed {
		for _, n := range w.dirty {
			w.recompute(n)
		}
	}
	for _, n := range w.dirty {
		w.rateUpdates(n)
		n.dirty = false
	}
	for i := range w.dirty {
		w.dirty[i] = nil
	}
	w.dirty = w.dirty[:0]
}

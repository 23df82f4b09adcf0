package fgm

// Allocation (Algorithm 1, line 18): a placed task's plan and
// reservations, and the undo log that takes a failed Schedule call's
// placements back.

import (
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// commitPlace makes p (taken out of its job's queue) running on v with
// the given stages (nil: open-ended at its requested quantity) and the
// rates in s.scr.rates.
func (s *Scheduler) commitPlace(v *server, p *ptask, mode Mode, stages []estimate.Stage, now time.Duration) {
	dims := s.dims
	j := p.job
	if p.runState == nil {
		if n := len(s.spare); n > 0 {
			p.runState, s.spare[n-1] = s.spare[n-1], nil
			s.spare = s.spare[:n-1]
		} else {
			p.runState = new(runState)
		}
	}
	p.running, p.srv, p.start, p.mode = true, v, now, mode
	s.seq++
	p.startSq = s.seq
	p.startSamples(now)
	p.open = stages == nil
	n := max(len(stages), 1)
	p.work = resizeD(p.work, n)
	p.rc = resizeF(p.rc, n)
	p.vals = resizeF(p.vals, n*dims)
	p.planRC = resizeF(p.planRC, n*dims)
	p.abuf = resizeF(p.abuf, n*dims)
	abuf := p.abuf
	if cap(p.plan) < n {
		p.plan = make([]PlanStep, n)
	}
	p.plan = p.plan[:n]
	if p.peak == nil {
		p.peak, p.charge = s.space.Zero(), s.space.Zero()
	}
	if p.open {
		p.work[0], p.rc[0] = 0, 0
		copy(p.vals, p.requested)
		clear(p.planRC)
		copy(p.peak, p.requested)
		copy(p.charge, p.requested)
		copy(abuf, p.requested)
		p.plan[0] = PlanStep{Alloc: abuf[:dims:dims], Reserved: p.vals[:dims:dims], Compression: p.planRC[:dims:dims]}
		p.dueAt, p.predEnd = now+s.cfg.Horizon, now+s.cfg.Horizon
	} else {
		clear(p.peak)
		due := now
		for si, st := range stages {
			val := p.vals[si*dims : (si+1)*dims : (si+1)*dims]
			copy(val, st.Demand)
			rcv := p.planRC[si*dims : (si+1)*dims : (si+1)*dims]
			copy(rcv, s.scr.rates[si*dims:(si+1)*dims])
			rc := 0.0
			for k, x := range rcv {
				if s.comp[k] {
					rc = max(rc, x)
				}
				p.peak[k] = max(p.peak[k], val[k])
			}
			p.work[si], p.rc[si] = st.Duration, min(rc, maxRate)
			due += st.Duration
			a := abuf[si*dims : (si+1)*dims : (si+1)*dims]
			copy(a, val)
			if s.cfg.CapAtRequest {
				for k := range a {
					if s.comp[k] {
						a[k] = max(a[k], p.requested[k])
					}
				}
			}
			p.plan[si] = PlanStep{Duration: st.Duration, Alloc: a, Reserved: val, Compression: rcv}
			if si == 0 {
				copy(p.charge, a)
			} else {
				_ = p.charge.Max(a)
			}
		}
		p.dueAt, p.predEnd = due, stagedEnd(now, p.work, p.rc, math.MaxInt64)
		if s.cfg.ChargeMean && due > now {
			// The work-weighted mean allocation over the plan's steps.
			clear(p.charge)
			total := float64(due - now)
			for si := range stages {
				w := float64(p.work[si]) / total
				for k, x := range abuf[si*dims : (si+1)*dims] {
					p.charge[k] += w * x
				}
			}
		}
	}
	v.running = append(v.running, p)
	v.reserve(p, now)
	_ = j.state.Allocated.Add(p.charge)
	j.state.Running++
	s.share(j)
	s.undo.placed = append(s.undo.placed, p)
}

func resizeF(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

func resizeD(x []time.Duration, n int) []time.Duration {
	if cap(x) < n {
		return make([]time.Duration, n)
	}
	return x[:n]
}

// undoLog is the undo log of a Schedule call (see rollback): its
// placements, splits and locality waits, and what restoring them
// exactly needs.
type undoLog struct {
	placed     []*ptask
	waits      []waitUndo
	undos      []undo
	undoAlloc  []float64 // the jobs' Allocated before, dims each (undo.alloc)
	undoPlaced []float64 // the server's placed-since-sample amounts before
	undoSeq    uint64    // the sequence counter before
}

type waitUndo struct {
	t       *ptask
	since   time.Duration
	waiting bool
}

// undo is one entry of a Schedule call's undo log: a placement, or the
// split of a run entry's head (splitHead), with what restoring it
// exactly needs.
type undo struct {
	entry *ptask // the queue entry: the task, or the run entry it came from
	q     *ptask // the task placed, or split off the run entry
	i     int    // the entry's index in its job's queue
	run   uint64 // the entry's run label
	split bool   // a split, not a placement
	// removed: the entry left the queue (a single task, or a run entry's
	// last); else the run entry gave up its head task.
	removed bool
	alloc   int // offset in Scheduler.undoAlloc of the job's Allocated before
}

// beginUndo starts the undo log of a Schedule call on v: what rollback
// restores besides the log (v's placed-since-sample amounts, the
// sequence counter).
func (s *Scheduler) beginUndo(v *server) {
	s.undo.placed, s.undo.waits, s.undo.undos = s.undo.placed[:0], s.undo.waits[:0], s.undo.undos[:0]
	s.undo.undoAlloc = s.undo.undoAlloc[:0]
	s.undo.undoPlaced = append(s.undo.undoPlaced[:0], v.placed...)
	s.undo.undoSeq = s.seq
}

// logPlace records the placement of q, from queue entry p at index i of
// its job's queue, before anything of it is changed.
func (s *Scheduler) logPlace(p, q *ptask, i int) {
	j := p.job
	u := undo{entry: p, q: q, i: i, run: j.runs[i], alloc: len(s.undo.undoAlloc)}
	u.removed = p.src == nil || p.src.left == 1
	s.undo.undoAlloc = append(s.undo.undoAlloc, j.state.Allocated...)
	s.undo.undos = append(s.undo.undos, u)
}

// rollback undoes this Schedule call's placements, splits and locality
// waits, newest first, restoring every field they touched exactly (the
// jobs' charged allocations by copy, not by subtraction, so that a
// rounding error cannot change an order later).
func (s *Scheduler) rollback(v *server) {
	for n := len(s.undo.undos) - 1; n >= 0; n-- {
		u := s.undo.undos[n]
		p, q := u.entry, u.q
		j := p.job
		if u.split {
			delete(s.tasks, q.id)
			if u.removed {
				j.pending[u.i] = p
				continue
			}
			j.pending = slices.Delete(j.pending, u.i, u.i+1)
			j.runs = slices.Delete(j.runs, u.i, u.i+1)
			p.src.next--
			p.src.left++
			p.seq--
			s.count(j, q, -1)
			continue
		}
		k := slices.Index(v.running, q)
		v.running = slices.Delete(v.running, k, k+1)
		copy(j.state.Allocated, s.undo.undoAlloc[u.alloc:u.alloc+s.dims])
		j.state.Running--
		s.share(j)
		q.running, q.srv = false, nil
		s.spare = append(s.spare, q.runState)
		q.runState = nil
		if q != p {
			delete(s.tasks, q.id)
		}
		if !u.removed {
			p.src.next--
			p.src.left++
			p.seq--
			j.state.Pending++
			s.moveJob(j)
			continue
		}
		j.pending = slices.Insert(j.pending, u.i, p)
		j.runs = slices.Insert(j.runs, u.i, u.run)
		j.state.Pending++
		s.count(j, p, 1)
		if len(p.locs) > 0 {
			s.locTasks++
		}
		if j.activePos < 0 {
			j.activePos = len(s.active)
			s.active = append(s.active, j)
		}
	}
	copy(v.placed, s.undo.undoPlaced)
	s.seq = s.undo.undoSeq
	v.dirty = true
	for i := len(s.undo.waits) - 1; i >= 0; i-- {
		w := s.undo.waits[i]
		w.t.waitSince, w.t.waiting = w.since, w.waiting
	}
	s.undo.placed, s.undo.waits, s.undo.undos = s.undo.placed[:0], s.undo.waits[:0], s.undo.undos[:0]
}

package fgm

// checkQoS of Algorithm 1 (line 17): deadlines of a server's running
// tasks, their durations by formula (15).

import (
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// checkQoS reports whether every running task with a deadline on v still
// meets it with the new stages (starting at now) reserved: its remaining
// stages take their uncompressed time divided by 1 − rc, rc the largest
// compression (formula (1) against capacity) the timeline minus the
// newcomer's demand implies over the stage, among the compressible kinds
// the stage demands: formula (15). A task that misses its deadline even
// without the newcomer does not refuse it.
func (s *Scheduler) checkQoS(v *server, stages []estimate.Stage, now time.Duration) bool {
	for _, r := range v.running {
		if !r.hasDL || r.open || now >= r.dueAt {
			continue
		}
		if s.endWith(v, r, stages, now) > r.deadline && s.endWith(v, r, nil, now) <= r.deadline {
			return false
		}
	}
	return true
}

// endWith is r's formula (15) end with stages (nil: none) added at now.
func (s *Scheduler) endWith(v *server, r *ptask, stages []estimate.Stage, now time.Duration) time.Duration {
	dims := s.dims
	work, rates := s.scr.qosWork[:0], s.scr.qosRates[:0]
	t := r.start
	for i, w := range r.work {
		a, b := t, t+w
		t = b
		if b <= now || w == 0 {
			continue
		}
		a = max(a, now)
		_ = v.free.Min(a, b, s.scr.tmp)
		if stages != nil {
			maxDemand(stages, now, a, b, s.scr.tmp2)
			_ = s.scr.tmp.Sub(s.scr.tmp2)
		}
		dem := r.vals[i*dims : (i+1)*dims]
		rc := 0.0
		for k, f := range s.scr.tmp {
			if s.comp[k] && f < 0 && dem[k] > 0 {
				rc = max(rc, -f/(v.capacity[k]-f))
			}
		}
		work, rates = append(work, b-a), append(rates, min(rc, maxRate))
	}
	s.scr.qosWork, s.scr.qosRates = work, rates
	return stagedEnd(now, work, rates, 1<<62)
}

// maxRate caps a compression rate where formula (15) divides by 1 − rc.
const maxRate = 0.999

// stagedEnd returns now plus the formula (15) duration of stages work
// at rates (resource.StagedDuration), at most limit.
func stagedEnd(now time.Duration, work []time.Duration, rates []float64, limit time.Duration) time.Duration {
	d, err := resource.StagedDuration(work, rates)
	if err != nil || (now > 0 && d > limit-now) {
		return limit // overflowed
	}
	return min(now+d, limit)
}

// maxDemand sets dst to the element-wise max demand of stages (starting
// at at) over [a, b).
func maxDemand(stages []estimate.Stage, at, a, b time.Duration, dst resource.Vector) {
	clear(dst)
	t := at
	for _, st := range stages {
		e := t + st.Duration
		if e > a && t < b {
			_ = dst.Max(st.Demand)
		}
		t = e
		if t >= b {
			return
		}
	}
}

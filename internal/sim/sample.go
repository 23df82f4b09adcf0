package sim

import (
	"math"
	"math/bits"
	"time"

	"github.com/schedkit/schedkit/internal/drf"
	"github.com/schedkit/schedkit/internal/metrics"
)

// sample records the cluster's utilisation per kind and the sums of the
// dominant shares of the active jobs (metrics.JainSums).
//
// Utilisation of an integral kind (slots, devices) is allocated over
// capacity: a held slot is a used slot. For other kinds it is the true
// demand of the running tasks (background load excluded), capped at
// capacity node by node, over capacity: what the jobs actually consumed.
// Only live nodes count.
func (s *Sim) sample() {
	u := make([]float64, s.k)
	for _, n := range s.live {
		for k := 0; k < s.k; k++ {
			c := n.capacity[k]
			if c <= 0 {
				continue
			}
			x := n.alloc[k]
			if !s.integral[k] {
				x = n.used[k] - n.bg[k]
			}
			u[k] += math.Max(0, math.Min(x, c))
		}
	}
	for k := range u {
		if s.capacity[k] > 0 {
			u[k] /= s.capacity[k]
		} else {
			u[k] = 0
		}
	}
	// Only the sums Jain's index needs are kept: a trace day has
	// thousands of active jobs in each of thousands of samples.
	s.samples = append(s.samples, metrics.Sample{At: time.Duration(s.now), Utilisation: u, Jain: s.jainSums(), Unmet: s.unmetJainSums()})
}

// unmetJainSums returns the Jain sums of the dominant shares of the
// active jobs with unmet demand (ready tasks waiting for a place), in
// submission order: the jobs a DRF allocator is still filling, the
// population paper 004 compares fairness over. A job holding nothing
// but wanting something counts, with share 0.
func (s *Sim) unmetJainSums() metrics.JainSums {
	var jain metrics.JainSums
	for w, word := range s.wanting {
		for ; word != 0; word &= word - 1 {
			j := &s.jobs[w<<6|bits.TrailingZeros64(word)]
			if j.state == jobActive {
				jain.Add(drf.Share(j.alloc, s.capacity))
			}
		}
	}
	return jain
}

// naiveUnmetJainSums is unmetJainSums by visiting every active job and
// adding the shares of those with a ready task in some phase.
func (s *Sim) naiveUnmetJainSums() metrics.JainSums {
	var jain metrics.JainSums
	for _, j := range s.activeList() {
		ready := 0
		for p := range j.phases {
			ready += j.phases[p].prog.Ready
		}
		if ready > 0 {
			jain.Add(drf.Share(j.alloc, s.capacity))
		}
	}
	return jain
}

// jainSums returns the Jain sums of the active jobs' dominant shares in
// submission order, visiting only the jobs that hold something (the
// holding set): a job holding nothing has dominant share exactly +0,
// and adding +0 leaves Sum and SumSq bit for bit as they were and Bad
// unset, so only the count N needs it, and N is the number of active
// jobs. The result is that of adding every active job's share in
// order (naiveJainSums; CheckInvariants compares the two bit for bit).
// A trace day has thousands of active jobs but at most one per running
// task holding anything.
func (s *Sim) jainSums() metrics.JainSums {
	var jain metrics.JainSums
	for w, word := range s.holding {
		for ; word != 0; word &= word - 1 {
			j := &s.jobs[w<<6|bits.TrailingZeros64(word)]
			if j.state == jobActive {
				jain.Add(drf.Share(j.alloc, s.capacity))
			}
		}
	}
	jain.N = s.nActive
	return jain
}

// naiveJainSums is jainSums by adding every active job's share.
func (s *Sim) naiveJainSums() metrics.JainSums {
	var jain metrics.JainSums
	for _, j := range s.activeList() {
		jain.Add(drf.Share(j.alloc, s.capacity))
	}
	return jain
}

// noteAlloc keeps j's place in the holding set (a positive amount of
// some kind allocated) after its allocation changed.
func (s *Sim) noteAlloc(j *Job) {
	w, bit := j.idx>>6, uint64(1)<<(j.idx&63)
	for _, x := range j.alloc {
		if x > 0 {
			s.holding[w] |= bit
			return
		}
	}
	s.holding[w] &^= bit
}

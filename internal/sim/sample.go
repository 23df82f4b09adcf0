package sim

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/resource"
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
	var jain metrics.JainSums
	for _, j := range s.activeList() {
		jain.Add(resource.DominantShareUnchecked(j.alloc, s.capacity))
	}
	s.samples = append(s.samples, metrics.Sample{At: time.Duration(s.now), Utilisation: u, Jain: jain})
}

package experiment

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// KindLoad is the offered load of one resource kind: what the workload
// asks of it against what the cluster has, over the span of submissions.
type KindLoad struct {
	// Kind is the resource kind's name (e.g. "map-slot").
	Kind string
	// Demand is Σ over every task of Requested[kind] × isolated run time,
	// in kind-seconds.
	Demand float64
	// Capacity is the cluster's total of the kind.
	Capacity float64
	// Load is Demand ÷ (Capacity × Span): 1 means the kind is busy all
	// the time if every task runs at its isolated speed. NaN-free: 0 when
	// Capacity or Span is 0.
	Load float64
}

// OfferedLoad returns the offered load of every kind some task requests
// and the cluster has, in the space's order, over span: the time from the
// first to the last submission (0 when all jobs arrive at once, which
// leaves Load 0: an offline workload has no rate).
func OfferedLoad(w *workload.Workload, space *resource.Space, capacity resource.Vector) (loads []KindLoad, span time.Duration) {
	if len(w.Jobs) == 0 {
		return nil, 0
	}
	span = w.Jobs[len(w.Jobs)-1].Submit - w.Jobs[0].Submit
	demand := make([]float64, space.Len())
	for i := range w.Jobs {
		for _, ph := range w.Jobs[i].Phases {
			for t := range ph.Tasks {
				ts := &ph.Tasks[t]
				d := ts.Duration().Seconds()
				for k, q := range ts.Requested {
					if k < len(demand) {
						demand[k] += q * d
					}
				}
			}
		}
	}
	for k := range demand {
		if demand[k] <= 0 || k >= len(capacity) || capacity[k] <= 0 {
			continue
		}
		l := KindLoad{Kind: space.Kind(k).Name, Demand: demand[k], Capacity: capacity[k]}
		if span > 0 {
			l.Load = demand[k] / (capacity[k] * span.Seconds())
		}
		loads = append(loads, l)
	}
	return loads, span
}

// clusterCapacity sums the nodes' capacities.
func clusterCapacity(cfg *sim.Config) resource.Vector {
	total := cfg.Space.Zero()
	for _, n := range cfg.Nodes {
		for k, q := range n.Capacity {
			total[k] += q
		}
	}
	return total
}

// nodesForLoad returns the number of nodes, each with perNode of every
// kind, that brings the busiest kind's offered load to target (rounded up
// to whole nodes, at least 1), or an error when the workload has no rate
// or the count exceeds MaxNodes.
func nodesForLoad(w *workload.Workload, space *resource.Space, perNode resource.Vector, target float64) (int, error) {
	loads, span := OfferedLoad(w, space, perNode)
	if span <= 0 {
		return 0, paramErr("-load needs jobs submitted over time; all %d jobs arrive at once", len(w.Jobs))
	}
	need := 0.0
	for _, l := range loads {
		need = math.Max(need, l.Load/target)
	}
	n := math.Ceil(need)
	if n > MaxNodes {
		return 0, paramErr("-load %g needs %.0f workers, more than the limit %d", target, n, MaxNodes)
	}
	return max(1, int(n)), nil
}

// loadLines states the offered load of w on cfg, and warns (second
// result) when a kind is offered more than its capacity.
func loadLines(w *workload.Workload, cfg *sim.Config) (line, warning string) {
	loads, span := OfferedLoad(w, cfg.Space, clusterCapacity(cfg))
	if len(loads) == 0 {
		return "", ""
	}
	if span <= 0 {
		return fmt.Sprintf("offered load on %d workers: n/a, all jobs submitted at once", len(cfg.Nodes)), ""
	}
	var parts, over []string
	for _, l := range loads {
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%.3g %s-seconds ÷ (%g × %v))", l.Kind, 100*l.Load, l.Demand, l.Kind, l.Capacity, span.Round(time.Second)))
		if l.Load > 1 {
			over = append(over, fmt.Sprintf("%s %.0f%%", l.Kind, 100*l.Load))
		}
	}
	line = fmt.Sprintf("offered load on %d workers (task demand at isolated speed ÷ (capacity × span of submissions)): %s",
		len(cfg.Nodes), strings.Join(parts, ", "))
	if len(over) > 0 {
		warning = fmt.Sprintf("offered load exceeds capacity on %d workers (%s): queues grow for the whole trace; use -nodes or -load", len(cfg.Nodes), strings.Join(over, ", "))
	}
	return line, warning
}

package experiment

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// SlotCluster returns a Config of n identical slot-model workers with the
// given map and reduce slots, 20 per rack, in space (which must hold the
// map-slot and reduce-slot kinds), with Hadoop-1 defaults: heartbeat every
// max(3 s, n/100 s) (the JobTracker's 100 heartbeats per second), 5%
// reduce slow-start, four attempts per task.
func SlotCluster(space *resource.Space, n, maps, reduces int, seed uint64) (sim.Config, []string, error) {
	mi, ok1 := space.Index(resource.MapSlot.Name)
	ri, ok2 := space.Index(resource.ReduceSlot.Name)
	if !ok1 || !ok2 || n <= 0 || n > MaxNodes {
		return sim.Config{}, nil, paramErr("slot cluster needs map and reduce slot kinds and 1 to %d nodes, have %d", MaxNodes, n)
	}
	nodes := make([]sim.NodeSpec, n)
	for i := range nodes {
		c := space.Zero()
		c[mi], c[ri] = float64(maps), float64(reduces)
		nodes[i] = sim.NodeSpec{
			ID:       schedkit.NodeID(fmt.Sprintf("node%04d", i)),
			Rack:     schedkit.RackID(fmt.Sprintf("rack%02d", i/20)),
			Capacity: c,
		}
	}
	cfg := sim.DefaultConfig(space, nodes)
	cfg.HeartbeatInterval = max(sim.DefaultHeartbeat, time.Duration(n)*time.Second/100)
	cfg.Seed = seed
	cfg.MetricsInterval = time.Minute
	lines := []string{
		fmt.Sprintf("cluster: %d workers × (%d map + %d reduce slots), %d per rack", n, maps, reduces, 20),
		fmt.Sprintf("simulator: heartbeat every %v per node (Hadoop-1: max(3s, nodes/100 s)), staggered, plus one when a task ends; reduce slow-start %g; %d attempts per task; seed %d",
			cfg.HeartbeatInterval, cfg.SlowStart, cfg.MaxAttempts, seed),
	}
	return cfg, lines, nil
}

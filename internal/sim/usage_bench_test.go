package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// quietSampler hears usage samples and does nothing with them.
type quietSampler struct {
	greedy
	n int
}

func (p *quietSampler) TaskSampled(time.Time, *sim.Task, resource.Vector) error {
	p.n++
	return nil
}
func (p *quietSampler) NodeSampled(time.Time, *sim.Node, resource.Vector) error { return nil }

// BenchmarkUsageSample measures the simulator's cost per task usage
// sample (true amounts, noise, the call) with a watcher that does
// nothing: nodes×perNode shaped map tasks (a TaskBatch phase in the
// slot space, as in the trace day) run for about rounds sample rounds
// after the nodes' first heartbeats placed them, so usage rounds are
// nearly all the events. With 6,000 nodes the tasks and attempts
// (about 15 MB) do not stay in cache, as in a full trace day where
// fgm's state competes for it.
func BenchmarkUsageSample(b *testing.B) {
	space := workload.SlotSpace()
	shaper, err := workload.NewSlotShaper(space)
	if err != nil {
		b.Fatal(err)
	}
	const rounds = 200
	for _, nodes := range []int{60, 600, 6000} {
		for _, perNode := range []int{4} {
			b.Run(fmt.Sprintf("nodes=%d/perNode=%d", nodes, perNode), func(b *testing.B) {
				req := space.Zero()
				prof := []workload.Stage{{Demand: space.Zero()}}
				if err := shaper.Shape(workload.MapTask, time.Hour, 64<<20, req, prof); err != nil {
					b.Fatal(err)
				}
				caps := make([]resource.Vector, nodes)
				for i := range caps {
					caps[i] = space.Zero()
					for k := range caps[i] {
						caps[i][k] = max(req[k]*float64(perNode), 1)
					}
				}
				cfg := sim.DefaultConfig(space, nodesOf(caps...))
				cfg.MetricsInterval = 24 * time.Hour
				cfg.HeartbeatInterval = 10 * time.Second // each node's first places its tasks
				cfg.SampleInterval = 100 * time.Millisecond
				d := make([]time.Duration, nodes*perNode)
				for i := range d {
					d[i] = cfg.HeartbeatInterval + rounds*cfg.SampleInterval + time.Duration(i)*time.Microsecond
				}
				w := &workload.Workload{Jobs: []workload.JobSpec{{ID: "j", Phases: []workload.PhaseSpec{
					{Batch: &workload.TaskBatch{Logic: "m", DataSize: 64 << 20, Kind: workload.MapTask, Shaper: shaper, Durations: d}},
				}}}}
				b.ReportAllocs()
				samples := 0
				for b.Loop() {
					b.StopTimer()
					p := &quietSampler{}
					s, err := sim.New(cfg, w, p)
					if err != nil {
						b.Fatal(err)
					}
					// Run until every task runs (the first heartbeats).
					for s.Cluster().Running() < len(d) {
						if more, err := s.Step(); err != nil || !more {
							b.Fatal("tasks did not all start", err)
						}
					}
					b.StartTimer()
					if _, err := s.Run(); err != nil {
						b.Fatal(err)
					}
					samples += p.n
				}
				if samples == 0 {
					b.Fatal("no samples")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(samples), "ns/sample")
			})
		}
	}
}

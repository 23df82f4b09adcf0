package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
)

// BenchmarkBuildAndRun is BenchmarkEventLoop with construction included
// (sim.New lays out or defers the tasks), per second of process CPU: the
// fair total when storage moves work from New into the run.
func BenchmarkBuildAndRun(b *testing.B) {
	for _, nodes := range []int{10, 100} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			w := loopWorkload(nodes, 40*nodes, 1)
			cfg := loopConfig(nodes)
			b.ReportAllocs()
			events := 0
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				s, err := sim.New(cfg, w, &greedy{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
				events += s.Stats().Events
			}
			if cpu > 0 {
				b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
			}
		})
	}
}

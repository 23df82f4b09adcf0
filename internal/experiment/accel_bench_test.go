package experiment_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/experiment"
)

// BenchmarkAccel runs the whole accel experiment: scale 0.25 is the
// compact version (the README block), scale 1 the full one. ns/op is the
// wall time on GOMAXPROCS workers, cpu-s/op the process CPU time.
func BenchmarkAccel(b *testing.B) {
	e, err := experiment.Lookup("accel")
	if err != nil {
		b.Fatal(err)
	}
	for _, scale := range []float64{0.25, 1} {
		b.Run(fmt.Sprintf("scale=%g", scale), func(b *testing.B) {
			p := experiment.Defaults()
			p.Scale = scale
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				c0 := cpuTime()
				if _, err := e.Run(p); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
			}
			if cpu > 0 {
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			}
		})
	}
}

package resource

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkTimelineRebuild times a scheduler's upkeep of a server's
// free-resource timeline, as fgm does it: rebuilt from the running tasks
// (Reset, then each task's remaining stages subtracted) after a task
// ends, and trimmed to the clock on every other call in between. Size:
// running tasks on the server, each with three stages of staggered
// lengths.
func BenchmarkTimelineRebuild(b *testing.B) {
	for _, tasks := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			base := Vector{16, 64, 4, 2}
			free, err := NewTimeline(base)
			if err != nil {
				b.Fatal(err)
			}
			demand := []Vector{{1, 2, 1, 0}, {2, 4, 1, 0}, {1, 1, 0, 1}}
			const sec = time.Second
			start := make([]time.Duration, tasks)
			for i := range start {
				start[i] = -time.Duration(i*7%23) * sec / 2
			}
			now := time.Duration(0)
			b.ReportAllocs()
			for b.Loop() {
				now += sec
				if err := free.Reset(base); err != nil {
					b.Fatal(err)
				}
				for i, s := range start {
					t := s + now
					for k, d := range demand {
						w := time.Duration(5+(i+k)%7) * sec
						if t+w <= now {
							t += w
							continue
						}
						if err := free.Sub(max(t, now), t+w, d); err != nil {
							b.Fatal(err)
						}
						t += w
					}
				}
				for k := range 4 {
					free.TrimBefore(now + time.Duration(k)*sec/2)
				}
			}
		})
	}
}

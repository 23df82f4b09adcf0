package resource_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/resource"
)

func Example() {
	space, err := resource.NewSpace(resource.CPU, resource.Memory)
	if err != nil {
		fmt.Println(err)
		return
	}
	capacity, _ := space.New(16, 64)
	demand, _ := space.New(4, 8)

	fits, _ := demand.Fits(capacity)
	share, _ := resource.DominantShare(demand, capacity)
	fmt.Printf("fits=%v dominant share=%.2f\n", fits, share)

	// Reserve the demand for 30 s on the server's free-resource timeline,
	// then ask what is least free over the next minute.
	free, _ := resource.NewTimeline(capacity)
	_ = free.Sub(0, 30*time.Second, demand)
	least := space.Zero()
	_ = free.Min(0, time.Minute, least)
	fmt.Println("least free over a minute:", least)

	// A CPU-bound task compressed by 10% with 20% contention penalty.
	rc, _ := resource.CompressionBound(3, 1, 0.1, resource.DefaultCompressionLimit)
	d, _ := resource.ContendedDuration(90*time.Second, rc, 0.2)
	fmt.Printf("rc=%.2f duration=%v\n", rc, d)
	// Output:
	// fits=true dominant share=0.25
	// least free over a minute: [12 56]
	// rc=0.10 duration=2m0s
}

package estimate_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// A MapReduce job with 10 maps left (two of them running for 15s each)
// and one reduce, on a cluster of 4 map slots and 2 reduce slots, where
// finished tasks took 20s on average.
func ExampleRemainingTime() {
	rem, err := estimate.RemainingTime([]estimate.PhaseLoad{
		{Unfinished: 10, Elapsed: 30 * time.Second, TaskTime: 20 * time.Second, Capacity: 4 * estimate.Slot},
		{Unfinished: 1, TaskTime: 20 * time.Second, Capacity: 2 * estimate.Slot},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("work:", rem.Work, "credit:", rem.Credit, "remaining:", rem.Time)

	deadline := time.Date(2013, 10, 1, 0, 5, 0, 0, time.UTC)
	now := time.Date(2013, 10, 1, 0, 1, 0, 0, time.UTC)
	fmt.Println("spare:", estimate.SpareTime(deadline, now, rem).Time)

	noReduce, _ := estimate.RemainingTime([]estimate.PhaseLoad{
		{Unfinished: 1, TaskTime: 20 * time.Second, Capacity: 0},
	})
	fmt.Println("without reduce slots, cannot finish:", noReduce.CannotFinish)
	// Output:
	// work: 1m20s credit: 7.5s remaining: 1m12.5s
	// spare: 2m47.5s
	// without reduce slots, cannot finish: true
}

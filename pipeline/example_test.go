package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// Three requesters send numbers to square. Two CPU "streams" process them
// concurrently; Ordered keeps each requester's results in the order sent.
// A negative number fails its item only: the failure is written back too.
func Example() {
	inbox := []pipeline.Item[int]{
		{Requester: "n1", Input: 1}, {Requester: "n2", Input: 10},
		{Requester: "n1", Input: 2}, {Requester: "n3", Input: -1},
		{Requester: "n1", Input: 3}, {Requester: "n2", Input: 20},
	}
	next := 0
	replies := map[schedkit.NodeID][]string{} // what each requester receives

	cfg := pipeline.Config{
		Accelerators: []schedkit.Accelerator{pipeline.CPU{ID: "cpu0"}},
		Streams:      2,
		ProcessQueue: 4,
		WriteQueue:   4,
		Ordered:      true,
	}
	stats, err := pipeline.Run(context.Background(), cfg, pipeline.Stages[int, int]{
		Read: func(ctx context.Context) (pipeline.Item[int], error) {
			if next == len(inbox) {
				return pipeline.Item[int]{}, io.EOF
			}
			next++
			return inbox[next-1], nil
		},
		Process: func(ctx context.Context, x int) (int, error) {
			if x < 0 {
				return 0, errors.New("negative input")
			}
			return x * x, nil
		},
		Write: func(ctx context.Context, r pipeline.Result[int, int]) error {
			msg := fmt.Sprintf("#%d %d->%d", r.Seq, r.Input, r.Output)
			if r.Err != nil {
				msg = fmt.Sprintf("#%d failed: %v", r.Seq, r.Err)
			}
			replies[r.Requester] = append(replies[r.Requester], msg)
			return nil
		},
	})
	for _, node := range slices.Sorted(maps.Keys(replies)) {
		fmt.Println(node, replies[node])
	}
	fmt.Printf("err=%v read=%d written=%d failed=%d dropped=%d\n",
		err, stats.Read.Items, stats.Write.Items, stats.Process.Failed, stats.Dropped)
	// Output:
	// n1 [#0 1->1 #1 2->4 #2 3->9]
	// n2 [#0 10->100 #1 20->400]
	// n3 [#0 failed: negative input]
	// err=<nil> read=6 written=6 failed=1 dropped=0
}

// Cancelling the context stops the pipeline: no Write starts after the
// cancellation, and every item read but not written is reported to Drop
// with the reason, in requester and sequence order, before Run returns.
func Example_cancel() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent := 0
	allRead := make(chan struct{})

	cfg := pipeline.Config{
		Accelerators: []schedkit.Accelerator{pipeline.CPU{}},
		Streams:      1,
		ProcessQueue: 2,
		WriteQueue:   2,
	}
	stats, err := pipeline.Run(ctx, cfg, pipeline.Stages[int, int]{
		Read: func(ctx context.Context) (pipeline.Item[int], error) {
			if sent == 5 { // five requests arrive, then the line goes quiet
				close(allRead)
				<-ctx.Done()
				return pipeline.Item[int]{}, ctx.Err()
			}
			sent++
			return pipeline.Item[int]{Requester: "n1", Input: sent}, nil
		},
		Process: func(ctx context.Context, x int) (int, error) { return 10 * x, nil },
		Write: func(ctx context.Context, r pipeline.Result[int, int]) error {
			fmt.Printf("wrote #%d = %d\n", r.Seq, r.Output)
			if r.Seq == 2 {
				<-allRead
				cancel() // e.g. the node is shutting down
			}
			return nil
		},
		Drop: func(r pipeline.Result[int, int], reason error) {
			fmt.Printf("dropped #%d: %v\n", r.Seq, reason)
		},
	})
	fmt.Println("Run:", err)
	fmt.Printf("read=%d written=%d dropped=%d\n", stats.Read.Items, stats.Write.Items, stats.Dropped)
	// Output:
	// wrote #0 = 10
	// wrote #1 = 20
	// wrote #2 = 30
	// dropped #3: context canceled
	// dropped #4: context canceled
	// Run: context canceled
	// read=5 written=3 dropped=2
}

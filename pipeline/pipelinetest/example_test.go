package pipelinetest_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
	"github.com/schedkit/schedkit/pipeline/pipelinetest"
)

// A host checks its own stages' accounting: ten items, one of which makes
// Process panic and one whose requester has gone. Every item is still
// written or dropped exactly once.
func ExampleLedger() {
	next := 0
	stages := pipeline.Stages[int, int]{
		Read: func(context.Context) (pipeline.Item[int], error) {
			if next == 10 {
				return pipeline.Item[int]{}, io.EOF
			}
			next++
			return pipeline.Item[int]{Requester: schedkit.NodeID(fmt.Sprint("n", next%2)), Input: next}, nil
		},
		Process: func(_ context.Context, x int) (int, error) {
			if x == 7 {
				panic("bad input")
			}
			return x * x, nil
		},
		Write: func(_ context.Context, r pipeline.Result[int, int]) error {
			if r.Input == 4 {
				return pipeline.ErrUndeliverable
			}
			return nil
		},
	}
	l := pipelinetest.NewLedger(stages)
	cfg := pipeline.Config{Accelerators: []schedkit.Accelerator{pipeline.CPU{}}, Streams: 2, ProcessQueue: 4, WriteQueue: 4}
	st, err := pipeline.Run(context.Background(), cfg, l.Stages())
	fmt.Println("run:", err)
	fmt.Println("written", l.Written(), "dropped", l.Dropped(), "check:", l.Check(st, err))
	// Output:
	// run: <nil>
	// written 9 dropped 1 check: <nil>
}

// A property test: 200 seeded random scenarios, each checked in full.
func ExampleScenario() {
	rng := rand.New(rand.NewPCG(1, 2))
	failed := 0
	for range 200 {
		s := pipelinetest.RandomScenario(rng, 40)
		if err := s.Check(s.Run()); err != nil {
			failed++
			fmt.Println(err)
		}
	}
	fmt.Println("failed scenarios:", failed)
	// Output:
	// failed scenarios: 0
}

package policy

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// The foreign-quantile tracker, worked numbers: one node of capacity
// (16 cores, 32 GB), Q = 0.75 (the ⌈0.75·n⌉-th smallest of n samples),
// window 10 s. Memory is incompressible and raised to the tasks' usage
// plus the quantile; CPU is reported as measured.
//
//	t=0:  tasks 10, node 18: foreign 8; {8}: q 8 = foreign, report 18
//	t=3:  tasks 10, node 10: foreign 0; {0, 8}: q 8 (2nd), report 10 + 8
//	t=6:  tasks 20, node 20: foreign 0; {0, 0, 8}: q 8 (3rd), report 28
//	t=14: t=0 and t=3 fall out of the window; tasks 20, node 22:
//	      foreign 2; {0, 2}: q 2 (2nd) = foreign, report 22
//	t=15: tasks 0, node 1: foreign 1; {0, 1, 2}: q 2 (3rd), report 2
//	t=16: tasks 31.5, node 31.5: foreign 0; {0, 0, 1, 2}: q 1 (3rd),
//	      report 32.5 capped at the capacity, 32
func TestForeignTracker(t *testing.T) {
	space, err := resource.NewSpace(resource.CPU, resource.Memory)
	if err != nil {
		t.Fatal(err)
	}
	f := newForeignTracker(ForeignQuantile{Q: 0.75, Window: 10 * time.Second}, space)
	capacity := resource.Vector{16, 32}
	t0 := time.Date(2009, 10, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		at          time.Duration
		tasks, node resource.Vector
		want        resource.Vector
	}{
		{0, resource.Vector{4, 10}, resource.Vector{6, 18}, resource.Vector{6, 18}},
		{3 * time.Second, resource.Vector{4, 10}, resource.Vector{6, 10}, resource.Vector{6, 18}},
		{6 * time.Second, resource.Vector{4, 20}, resource.Vector{6, 20}, resource.Vector{6, 28}},
		{14 * time.Second, resource.Vector{4, 20}, resource.Vector{6, 22}, resource.Vector{6, 22}},
		{15 * time.Second, resource.Vector{4, 0}, resource.Vector{6, 1}, resource.Vector{6, 2}},
		{16 * time.Second, resource.Vector{4, 31.5}, resource.Vector{6, 31.5}, resource.Vector{6, 32}},
	}
	for i, s := range steps {
		f.task(s.tasks)
		node := s.node.Clone()
		got := f.node(t0.Add(s.at), "n0", node, capacity).Clone()
		if d := cmp.Diff(s.want, got); d != "" {
			t.Errorf("step %d (t=%v) (-want +got):\n%s", i, s.at, d)
		}
		if d := cmp.Diff(s.node, node); d != "" {
			t.Errorf("step %d: the measured sample changed", i)
		}
	}
}

func TestForeignQuantileRejected(t *testing.T) {
	space, err := resource.NewSpace(resource.CPU, resource.Memory)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []ForeignQuantile{{Q: 1.5}, {Q: -0.1}, {Q: 0.9, Window: -time.Second}} {
		cfg := sim.Config{Space: space}
		if _, err := NewFGM(&cfg, FGMConfig{ForeignQuantile: q}); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", q, err)
		}
	}
}

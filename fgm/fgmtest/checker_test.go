package fgmtest_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// The reference host keeps every invariant under the default
// configuration, its options and its ablations, on several seeds.
func TestHostInvariants(t *testing.T) {
	space, err := resource.NewSpace(resource.CPU, resource.Memory, resource.MapSlot)
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]fgm.Config{
		"default":      {},
		"progressive":  {Progressive: true, ChargeMean: true, CapAtRequest: true},
		"coarse":       {Ablations: fgm.Ablations{CoarseOnly: true}},
		"nocompress":   {Ablations: fgm.Ablations{NoCompression: true, NoCheckQoS: true}},
		"hostchecks":   {HostChecksSteps: true, LocalityWait: -1},
		"noadjustment": {Ablations: fgm.Ablations{NoPolicyAdjustment: true}, ConformityWindow: 1},
	} {
		for seed := range uint64(3) {
			rng := rand.New(rand.NewPCG(seed, 7))
			h, err := fgmtest.NewHost(rng, space, cfg, 3, resource.Vector{16, 64, 4})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 1500 {
				if err := h.Step(fgmtest.RandomEvent(rng)); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, i, err)
				}
			}
			if h.Placed == 0 || h.Completed == 0 {
				t.Errorf("%s seed %d: placed %d completed %d", name, seed, h.Placed, h.Completed)
			}
		}
	}
}

// The Checker catches decisions no scheduler may make: an over-commit of
// memory, a compression beyond the bound, a task not pending, an unknown
// server.
func TestCheckerCatches(t *testing.T) {
	space, _ := resource.NewSpace(resource.CPU, resource.Memory)
	cl := schedkittest.NewCluster(space)
	cl.AddNode("n1", "r1", resource.Vector{16, 16})
	c, err := fgmtest.NewChecker(fgm.Config{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	now := fgmtest.T0
	step := func(d time.Duration, cpu, mem, rc float64) fgm.PlanStep {
		return fgm.PlanStep{Duration: d, Alloc: resource.Vector{cpu, mem}, Reserved: resource.Vector{cpu, mem}, Compression: resource.Vector{rc, 0}}
	}
	alloc := func(id string, steps ...fgm.PlanStep) fgm.Decision {
		return fgm.Decision{Action: fgm.Allocate, Task: taskID(id), Job: "j", Node: "n1", Mode: fgm.FineGrained, Plan: steps}
	}
	for _, id := range []string{"a", "b", "c"} {
		c.Submitted(taskID(id))
	}
	if err := c.Decided(now, []fgm.Decision{alloc("a", step(time.Minute, 1, 12, 0))}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    fgm.Decision
		want string
	}{
		{alloc("b", step(time.Minute, 1, 12, 0)), "memory reserved 24"},
		{alloc("c", step(time.Minute, 1, 1, 0.5)), "beyond the bound"},
		{alloc("x", step(time.Minute, 1, 1, 0)), "not pending"},
		{fgm.Decision{Action: fgm.Allocate, Task: "c", Node: "n9", Plan: []fgm.PlanStep{step(time.Minute, 1, 1, 0)}}, "not registered"},
		{fgm.Decision{Action: fgm.Reclaim, Task: "zz", Node: "n1"}, "not running"},
	} {
		err := c.Decided(now, []fgm.Decision{tc.d})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.d, err, tc.want)
		}
	}
}

func taskID(s string) schedkit.TaskID { return schedkit.TaskID(s) }

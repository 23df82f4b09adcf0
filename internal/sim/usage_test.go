package sim_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// sampler records usage samples.
type sampler struct {
	greedy
	task map[string][]resource.Vector
	node []resource.Vector // node 0's samples
	at   []time.Duration   // times of node 0's samples
}

func (p *sampler) TaskSampled(now time.Time, t *sim.Task, used resource.Vector) error {
	if p.task == nil {
		p.task = map[string][]resource.Vector{}
	}
	p.task[string(t.ID())] = append(p.task[string(t.ID())], used.Clone())
	return nil
}

func (p *sampler) NodeSampled(now time.Time, n *sim.Node, used resource.Vector) error {
	if n.Index() == 0 {
		p.node = append(p.node, used.Clone())
		p.at = append(p.at, now.Sub(sim.Epoch))
	}
	return nil
}

// Without noise, a task's samples are what it actually uses: given half
// its CPU demand under Limits it shows the CPU it got (its allocation)
// and its true memory, for twice its isolated duration; the node's
// samples add its background load.
func TestUsageSamplesExact(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.SampleNoise = 0
	cfg.Background = []sim.BackgroundStep{{At: 0, Node: 0, Demand: resource.Vector{1, 2}}}
	w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{1, 3}, st(9*time.Second, 2, 3))}}
	p := &sampler{}
	runChecked(t, cfg, w, p)
	got := p.task["a/0/0"]
	// 9 s of work at half pace: 18 s; samples at 3, 6, ..., 15 s (at 18 s
	// the task has ended before the sample due then).
	if len(got) != 5 {
		t.Fatalf("%d samples, want 5: %v", len(got), got)
	}
	for _, u := range got {
		if !u.Equal(resource.Vector{1, 3}) {
			t.Errorf("sample %v, want [1 3]", u)
		}
	}
	for i, u := range p.node {
		if !u.Equal(resource.Vector{2, 5}) {
			t.Errorf("node sample %d at %v: %v, want [2 5]", i, p.at[i], u)
		}
	}
}

// With noise σ, samples scatter around the truth with relative standard
// deviation σ, reproducibly for a seed.
func TestUsageSamplesNoise(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.SampleNoise = 0.1
	cfg.SampleInterval = time.Second
	w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{2, 4}, st(2000*time.Second, 2, 4))}}
	run := func() []resource.Vector {
		p := &sampler{}
		runChecked(t, cfg, w, p)
		return p.task["a/0/0"]
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different samples")
	}
	var sum, sq float64
	for _, u := range a {
		r := u[1]/4 - 1
		sum += r
		sq += r * r
	}
	n := float64(len(a))
	mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 0.02 || math.Abs(sd-0.1) > 0.02 {
		t.Errorf("relative error mean %.4f sd %.4f over %d samples, want ≈0 and ≈0.1", mean, sd, len(a))
	}
}

// No policy can reach a task's true profile or its observed stage
// durations: no exported method of the views a policy receives returns a
// workload.Stage, workload.TaskSpec or workload.JobSpec (or anything
// holding one), nor per-stage durations.
func TestNoOracle(t *testing.T) {
	forbidden := []reflect.Type{
		reflect.TypeOf(workload.Stage{}),
		reflect.TypeOf(workload.TaskSpec{}),
		reflect.TypeOf(workload.JobSpec{}),
		reflect.TypeOf(workload.PhaseSpec{}),
		reflect.TypeOf(workload.Workload{}),
		reflect.TypeOf([]time.Duration{}),
	}
	var leaks func(reflect.Type, map[reflect.Type]bool) string
	leaks = func(ty reflect.Type, seen map[reflect.Type]bool) string {
		if seen[ty] {
			return ""
		}
		seen[ty] = true
		for _, f := range forbidden {
			if ty == f {
				return ty.String()
			}
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
			return leaks(ty.Elem(), seen)
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				if f := ty.Field(i); f.IsExported() {
					if l := leaks(f.Type, seen); l != "" {
						return l
					}
				}
			}
		case reflect.Func:
			for i := 0; i < ty.NumOut(); i++ {
				if l := leaks(ty.Out(i), seen); l != "" {
					return l
				}
			}
		}
		return ""
	}
	views := []reflect.Type{
		reflect.TypeOf((*sim.Task)(nil)),
		reflect.TypeOf((*sim.Job)(nil)),
		reflect.TypeOf((*sim.Node)(nil)),
		reflect.TypeOf((*sim.Cluster)(nil)),
	}
	for _, v := range views {
		for i := 0; i < v.NumMethod(); i++ {
			m := v.Method(i)
			for o := 0; o < m.Type.NumOut(); o++ {
				if l := leaks(m.Type.Out(o), map[reflect.Type]bool{}); l != "" {
					t.Errorf("%v.%s returns %v, which reaches %s", v, m.Name, m.Type.Out(o), l)
				}
			}
		}
		// Nor any method revealing true usage of a node.
		for _, name := range []string{"Observed", "Profile", "Used", "Background", "Compression", "Spec"} {
			if _, ok := v.MethodByName(name); ok {
				t.Errorf("%v has method %s", v, name)
			}
		}
	}
	// The methods the views return are views themselves (checked above):
	// *Task.Owner → *Job, *Task.Node → *Node, *Cluster.Job → *Job...
	if !strings.Contains(reflect.TypeOf((*sim.Task)(nil)).String(), "sim.Task") {
		t.Fatal("reflection sanity")
	}
}

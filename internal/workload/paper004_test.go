package workload_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

func TestPaper004Space(t *testing.T) {
	s := workload.Paper004Space()
	want := []struct {
		name, unit   string
		compressible bool
	}{{"cpu", "cores", true}, {"memory", "GB", false}, {"disk-bw", "MB/s", true}, {"net-bw", "MB/s", true}}
	if s.Len() != len(want) {
		t.Fatalf("%d kinds", s.Len())
	}
	for i, w := range want {
		k := s.Kind(i)
		if k.Name != w.name || k.Unit != w.unit || k.Compressible != w.compressible || k.Integral {
			t.Errorf("kind %d = %+v, want %+v", i, k, w)
		}
	}
}

func TestPaper004Cluster(t *testing.T) {
	c, err := workload.Paper004Cluster(workload.Paper004Workers)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workers != 23 || !slices.Equal(c.Capacity, resource.Vector{16, 32, 300, 125}) || c.Space.Validate(c.Capacity) != nil || len(c.Assumptions) == 0 {
		t.Errorf("cluster %+v", c)
	}
	for _, n := range []int{0, -1, 1<<20 + 1} {
		if _, err := workload.Paper004Cluster(n); !errors.Is(err, workload.ErrRange) {
			t.Errorf("n=%d: err %v", n, err)
		}
	}
}

// The setups: offline submits everything at 0 with 400 GB × scale; the
// online totals step 50 → 400; the cloud adds background steps.
func TestPaper004Setups(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	off, err := workload.Paper004Offline(0.5, rng)
	if err != nil {
		t.Fatal(err)
	}
	in := 0.0
	for _, j := range off.Jobs {
		if j.Submit != 0 {
			t.Fatalf("offline job %s at %v", j.ID, j.Submit)
		}
		in += jobInput(j)
	}
	if in < 199.9*workload.GiB || in > 200.1*workload.GiB {
		t.Errorf("offline input %.4g GiB", in/workload.GiB)
	}
	if got := workload.Paper004OnlineTotals(); len(got) != 8 || got[0] != 50 || got[7] != 400 {
		t.Errorf("totals %v", got)
	}
	on, err := workload.Paper004Online(400, rng)
	if err != nil {
		t.Fatal(err)
	}
	last := on.Jobs[len(on.Jobs)-1].Submit
	if on.Jobs[0].Submit != 0 || last < time.Minute || last > 30*time.Minute {
		t.Errorf("online submissions from %v to %v", on.Jobs[0].Submit, last)
	}
	cl, steps, err := workload.Paper004Cloud(100, 23, rng)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 || len(cl.Assumptions) <= len(on.Assumptions) {
		t.Errorf("%d background steps", len(steps))
	}
}

// Background steps are sorted, inside [0, Horizon), alternate busy (a
// demand within [Lo, Hi]) and idle (zero) per node, and are deterministic.
func TestBackground(t *testing.T) {
	c := workload.DefaultBackground(5, 3*time.Hour)
	steps, lines, err := workload.GenerateBackground(c, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 || len(steps) < 10 {
		t.Fatalf("%d steps, %d lines", len(steps), len(lines))
	}
	busy := map[int]bool{}
	for i, s := range steps {
		if i > 0 && (s.At < steps[i-1].At || s.At == steps[i-1].At && s.Node <= steps[i-1].Node) {
			t.Fatalf("step %d out of order", i)
		}
		if s.At < 0 || s.At >= c.Horizon || s.Node < 0 || s.Node >= c.Nodes {
			t.Fatalf("step %+v outside", s)
		}
		zero := slices.Max(s.Demand) == 0
		if zero == !busy[s.Node] && s.At > 0 {
			t.Fatalf("step %+v does not alternate", s)
		}
		busy[s.Node] = !zero
		for k, x := range s.Demand {
			if !zero && (x < c.Lo[k] || x > c.Hi[k]) {
				t.Fatalf("step %+v kind %d outside [lo, hi]", s, k)
			}
		}
	}
	again, _, _ := workload.GenerateBackground(c, rand.New(rand.NewPCG(3, 3)))
	if len(again) != len(steps) || again[len(again)-1].At != steps[len(steps)-1].At {
		t.Error("not deterministic")
	}
	bad := []func(*workload.BackgroundConfig){
		func(c *workload.BackgroundConfig) { c.Nodes = 0 },
		func(c *workload.BackgroundConfig) { c.Horizon = 0 },
		func(c *workload.BackgroundConfig) { c.MeanBusy = 0 },
		func(c *workload.BackgroundConfig) { c.MeanIdle = time.Nanosecond },
		func(c *workload.BackgroundConfig) { c.Lo = resource.Vector{1} },
		func(c *workload.BackgroundConfig) { c.Lo = resource.Vector{30, 0, 0, 0} },
	}
	for i, mut := range bad {
		c := workload.DefaultBackground(5, time.Hour)
		mut(&c)
		if _, _, err := workload.GenerateBackground(c, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, workload.ErrRange) {
			t.Errorf("case %d: err %v", i, err)
		}
	}
}

func FuzzBackground(f *testing.F) {
	f.Add(3, int64(time.Hour), int64(time.Minute), int64(time.Minute), 1.0, 5.0, uint64(1))
	f.Fuzz(func(t *testing.T, nodes int, horizon, busy, idle int64, lo, hi float64, seed uint64) {
		c := workload.BackgroundConfig{Nodes: nodes, Horizon: time.Duration(horizon), MeanBusy: time.Duration(busy), MeanIdle: time.Duration(idle),
			Lo: resource.Vector{lo, lo, lo, lo}, Hi: resource.Vector{hi, hi, hi, hi}}
		if nodes > 50 || c.MeanBusy > 0 && c.MeanIdle > 0 && (c.Horizon/c.MeanBusy > 500 || c.Horizon/c.MeanIdle > 500) {
			return // keep each run small
		}
		steps, _, err := workload.GenerateBackground(c, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			if !errors.Is(err, workload.ErrRange) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		space := workload.Paper004Space()
		for _, s := range steps {
			if s.At < 0 || s.At >= c.Horizon || s.Node < 0 || s.Node >= nodes || space.Validate(s.Demand) != nil {
				t.Fatalf("bad step %+v", s)
			}
		}
	})
}

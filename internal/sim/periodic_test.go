package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// ticking assigns from its ticks only (never on heartbeats), on node 0,
// and changes every job's price once, at the first tick after 4 s.
type ticking struct {
	ticks    []time.Duration
	priced   bool
	costSeen float64
	bad      bool // also send a tick Assign without a node (invalid)
}

func (p *ticking) Name() string                     { return "ticking" }
func (p *ticking) Submit(time.Time, *sim.Job) error { return nil }
func (p *ticking) Heartbeat(_ time.Time, _ *sim.Node, _ *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return dst, nil
}

func (p *ticking) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.ticks = append(p.ticks, now.Sub(sim.Epoch))
	n := c.NodeByIndex(0)
	for _, j := range c.Jobs() {
		for _, t := range j.ReadyTasks(0, n, nil, 10) {
			d := sim.AssignTask(t, n)
			if p.bad {
				d.Node, p.bad = nil, false
			}
			dst = append(dst, d)
		}
		if !p.priced && now.Sub(sim.Epoch) >= 4*time.Second {
			p.costSeen = j.Cost()
			dst = append(dst, sim.PriceJob(j, resource.Vector{3, 0}))
		}
	}
	if now.Sub(sim.Epoch) >= 4*time.Second {
		p.priced = true
	}
	return dst, nil
}

// Ticks come every TickInterval while a job is active, stop while none
// is, and resume at the next submission; their decisions are applied;
// a price change applies from then on, and Job.Cost reads the cost so far.
func TestTicksAndPrices(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.TickInterval = time.Second
	cfg.HeartbeatInterval = time.Hour
	cfg.Prices = resource.Vector{1, 0}
	w := &workload.Workload{Jobs: []workload.JobSpec{
		oneTask("a", 0, resource.Vector{2, 1}, st(10*time.Second, 2, 1)),
		oneTask("b", 100*time.Second, resource.Vector{1, 1}, st(2*time.Second, 1, 1)),
	}}
	p := &ticking{}
	run, s := runChecked(t, cfg, w, p)
	// a starts at the first tick (1 s), runs 1–11 s; b at 101 s, 101–103 s.
	if a := run.Jobs[0]; a.Start != time.Second || a.Finish != 11*time.Second {
		t.Errorf("a ran %v–%v, want 1s–11s", a.Start, a.Finish)
	}
	if b := run.Jobs[1]; b.Start != 101*time.Second || b.Finish != 103*time.Second {
		t.Errorf("b ran %v–%v, want 101s–103s", b.Start, b.Finish)
	}
	// Ticks at 1..10 s (a active; at 11 s it ends before the tick due
	// then), none until b arrives, then 101 and 102 s.
	var want []time.Duration
	for i := 1; i <= 10; i++ {
		want = append(want, time.Duration(i)*time.Second)
	}
	want = append(want, 101*time.Second, 102*time.Second)
	if len(p.ticks) != len(want) {
		t.Fatalf("ticks at %v, want %v", p.ticks, want)
	}
	for i := range want {
		if p.ticks[i] != want[i] {
			t.Fatalf("ticks at %v, want %v", p.ticks, want)
		}
	}
	if st := s.Stats(); st.Ticks != len(want) {
		t.Errorf("Stats.Ticks = %d, want %d", st.Ticks, len(want))
	}
	// a: 2 CPUs × 1/s for 1–4 s = 6 (what Cost read at 4 s), then 2 × 3/s
	// for 4–11 s = 42. b keeps the default price: 1 CPU × 1 × 2 s = 2.
	if p.costSeen != 6 {
		t.Errorf("Cost() read %v at 4s, want 6", p.costSeen)
	}
	if a := run.Jobs[0].Cost; math.Abs(a-48) > 1e-9 {
		t.Errorf("a cost %v, want 48", a)
	}
	if b := run.Jobs[1].Cost; math.Abs(b-2) > 1e-9 {
		t.Errorf("b cost %v, want 2", b)
	}
}

// A tick's Assign without a Node is invalid (no heartbeating node); a
// SetPrice of the wrong length or with a negative price is invalid.
func TestTickInvalid(t *testing.T) {
	cfg := sim.DefaultConfig(cpuMem, nodesOf(resource.Vector{4, 8}))
	cfg.TickInterval = time.Second
	w := &workload.Workload{Jobs: []workload.JobSpec{oneTask("a", 0, resource.Vector{2, 1}, st(3*time.Second, 2, 1))}}
	p := &ticking{bad: true}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); err == nil {
		t.Fatal("no decision error for a tick Assign without a node")
	}
	// Prices.
	var de *sim.DecisionError
	for _, price := range []resource.Vector{{1}, {1, -1}} {
		pp := &pricer{price: price}
		s, err := sim.New(cfg, w, pp)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run()
		if !errors.As(err, &de) || de.Count != 1 {
			t.Errorf("price %v: err %v, want one invalid decision", price, err)
		}
	}
}

type pricer struct {
	greedy
	price resource.Vector
	done  bool
}

func (p *pricer) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if !p.done && len(c.Jobs()) > 0 {
		p.done = true
		dst = append(dst, sim.PriceJob(c.Jobs()[0], p.price))
	}
	return dst, nil
}

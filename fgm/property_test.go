package fgm_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// model is the test's own record of what the decisions reserve, to check
// the scheduler against.
type model struct {
	space    *resource.Space
	capacity resource.Vector
	horizon  time.Duration
	running  map[schedkit.TaskID]*placed
}

type placed struct {
	node     schedkit.NodeID
	start    time.Duration
	steps    []fgm.PlanStep // copied
	open     bool
	peak     resource.Vector
	deadline time.Duration
	hasDL    bool
}

func (m *model) add(d fgm.Decision, now time.Duration, tk *fgmtest.Task) {
	p := &placed{node: d.Node, start: now, open: d.Mode == fgm.Requested, peak: m.space.Zero()}
	for _, s := range d.Plan {
		a := s.Alloc.Clone()
		p.steps = append(p.steps, fgm.PlanStep{Duration: s.Duration, Alloc: a})
		_ = p.peak.Max(a)
	}
	if !tk.DueAt.IsZero() {
		p.hasDL, p.deadline = true, tk.DueAt.Sub(t0)
	}
	m.running[d.Task] = p
}

func (p *placed) due() time.Duration {
	d := p.start
	for _, s := range p.steps {
		d += s.Duration
	}
	return d
}

// reservedAt is the sum of reservations on node at instant x (as seen at now).
func (m *model) reservedAt(node schedkit.NodeID, now, x time.Duration) resource.Vector {
	sum := m.space.Zero()
	for _, p := range m.running {
		if p.node != node {
			continue
		}
		if p.open || now >= p.due() {
			if x < now+m.horizon {
				_ = sum.Add(p.peak)
			}
			continue
		}
		t := p.start
		for _, s := range p.steps {
			if x >= t && x < t+s.Duration {
				_ = sum.Add(s.Alloc)
			}
			t += s.Duration
		}
	}
	return sum
}

// reservedExcept is reservedAt counting only the tasks in keep.
func (m *model) reservedExcept(node schedkit.NodeID, now, x time.Duration, keep map[schedkit.TaskID]bool) resource.Vector {
	saved := m.running
	m.running = map[schedkit.TaskID]*placed{}
	for id, p := range saved {
		if keep[id] {
			m.running[id] = p
		}
	}
	r := m.reservedAt(node, now, x)
	m.running = saved
	return r
}

// breakpoints on node from now on.
func (m *model) breakpoints(node schedkit.NodeID, now time.Duration) []time.Duration {
	pts := []time.Duration{now}
	for _, p := range m.running {
		if p.node != node || p.open || now >= p.due() {
			continue
		}
		t := p.start
		for _, s := range p.steps {
			t += s.Duration
			if t > now {
				pts = append(pts, t)
			}
		}
	}
	slices.Sort(pts)
	return slices.Compact(pts)
}

// check returns, for node at now, the reservations at every breakpoint
// and the set of running tasks on node meeting their deadline by formula
// (15) with the exact per-instant compression.
func (m *model) check(t *testing.T, node schedkit.NodeID, now time.Duration, ctx string) map[schedkit.TaskID]bool {
	t.Helper()
	pts := m.breakpoints(node, now)
	meets := map[schedkit.TaskID]bool{}
	for id, p := range m.running {
		if p.node != node || !p.hasDL || p.open || now >= p.due() {
			continue
		}
		end := float64(now)
		t0s := p.start
		for _, s := range p.steps {
			a, b := t0s, t0s+s.Duration
			t0s = b
			if b <= now || s.Duration == 0 {
				continue
			}
			a = max(a, now)
			rc := 0.0
			for _, x := range pts {
				if x < a || x >= b {
					continue
				}
				r := m.reservedAt(node, now, x)
				for k, v := range r {
					if m.space.Compressible(k) && v > m.capacity[k] && s.Alloc[k] > 0 {
						rc = max(rc, (v-m.capacity[k])/v)
					}
				}
			}
			// the interval's start may sit inside an earlier piece
			r := m.reservedAt(node, now, a)
			for k, v := range r {
				if m.space.Compressible(k) && v > m.capacity[k] && s.Alloc[k] > 0 {
					rc = max(rc, (v-m.capacity[k])/v)
				}
			}
			end += float64(b-a) / (1 - rc)
		}
		meets[id] = end <= float64(p.deadline)+1
	}
	return meets
}

// Random submissions, placements, releases and time steps; after every
// Schedule no incompressible kind is over-reserved and every running task
// that met its deadline before still does.
func TestPropertyInvariants(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 99))
		c := newCluster(space, 3, capacity)
		// Odd seeds charge DRF shares at the mean (ChargeMean): only the
		// order changes, the invariants must hold all the same.
		s := newSched(t, c, fgm.Config{LocalityWait: -1, ChargeMean: seed%2 == 1})
		m := &model{space: space, capacity: capacity, horizon: 24 * time.Hour, running: map[schedkit.TaskID]*placed{}}
		tasks := map[schedkit.TaskID]*fgmtest.Task{}
		now := time.Duration(0)
		next := 0
		for step := range 300 {
			switch op := rng.IntN(10); {
			case op < 4:
				next++
				tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("t%04d", next)), JobKey: schedkit.JobID(fmt.Sprintf("j%d", rng.IntN(5))), Request: resource.Vector{float64(1 + rng.IntN(8)), float64(1 + rng.IntN(16)), 0}}}
				if rng.IntN(5) != 0 {
					tk.Usage = randomStages(rng, resource.Vector{12, 20, 0}, 1+rng.IntN(4))
					for i := range tk.Usage {
						tk.Usage[i].Duration += time.Second
					}
				}
				if rng.IntN(2) == 0 {
					tk.DueAt = t0.Add(now + time.Duration(20+rng.IntN(200))*time.Second)
				}
				tasks[tk.Key] = tk
				submit(t, s, t0.Add(now), tk)
			case op < 7:
				n := c.NodeList[rng.IntN(len(c.NodeList))].Key
				before := m.check(t, n, now, "before")
				old := map[schedkit.TaskID]bool{}
				for id := range m.running {
					old[id] = true
				}
				ds := schedule(t, s, t0.Add(now), n)
				for _, d := range ds {
					m.add(d, now, tasks[d.Task])
				}
				// No allocation over-reserves an incompressible kind: where the
				// new reservations land, the total stays within capacity.
				for _, x := range m.breakpoints(n, now) {
					r := m.reservedAt(n, now, x)
					prev := m.reservedExcept(n, now, x, old)
					for k, v := range r {
						if !space.Compressible(k) && v > prev[k]+1e-9 && v > capacity[k]*(1+1e-9) {
							t.Fatalf("seed %d step %d: %v over-reserve %s on %s at %v: %v > %v", seed, step, ids(ds), space.Kind(k).Name, n, x, v, capacity[k])
						}
					}
				}
				after := m.check(t, n, now, fmt.Sprintf("seed %d step %d after %v", seed, step, ids(ds)))
				for id, ok := range before {
					if ok && !after[id] {
						t.Fatalf("seed %d step %d: %s met its deadline before %v and misses after", seed, step, id, ids(ds))
					}
				}
			case op < 9:
				if len(m.running) == 0 {
					continue
				}
				keys := make([]schedkit.TaskID, 0, len(m.running))
				for id := range m.running {
					keys = append(keys, id)
				}
				slices.Sort(keys)
				id := keys[rng.IntN(len(keys))]
				if err := s.Release(t0.Add(now), id, true); err != nil {
					t.Fatal(err)
				}
				delete(m.running, id)
			default:
				now += time.Duration(rng.IntN(15)) * time.Second
			}
			if s.Running() != len(m.running) {
				t.Fatalf("running %d, model %d", s.Running(), len(m.running))
			}
		}
	}
}

// The scheduler's own free timeline agrees with the model's reservations.
func TestPropertyFreeMatchesModel(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	rng := rand.New(rand.NewPCG(3, 4))
	c := newCluster(space, 1, capacity)
	s := newSched(t, c, fgm.Config{LocalityWait: -1})
	m := &model{space: space, capacity: capacity, horizon: 24 * time.Hour, running: map[schedkit.TaskID]*placed{}}
	now := time.Duration(0)
	for i := range 200 {
		tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint(i)), JobKey: "j", Request: resource.Vector{2, 2, 0}}, Usage: randomStages(rng, resource.Vector{6, 10, 0}, 1+rng.IntN(3))}
		submit(t, s, t0.Add(now), tk)
		for _, d := range schedule(t, s, t0.Add(now), "n00") {
			m.add(d, now, tk)
		}
		now += time.Duration(rng.IntN(10)) * time.Second
		for id, p := range m.running {
			if rng.IntN(4) == 0 && now > p.start {
				_ = s.Release(t0.Add(now), id, true)
				delete(m.running, id)
			}
		}
		free := space.Zero()
		_ = s.Free(t0.Add(now), "n00", free)
		want := capacity.Clone()
		_ = want.Sub(m.reservedAt("n00", now, now))
		for k := range free {
			if d := free[k] - want[k]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("step %d: free %v, model %v", i, free, want)
			}
		}
	}
	_ = estimate.Profile{}
}

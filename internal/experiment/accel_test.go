package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// runAccelCase simulates one case with the simulator's invariant checker
// after every event and returns the application's makespan (from
// submission at 0) and the simulator's counters.
func runAccelCase(t *testing.T, app, intensity, mb int, cl accelCluster, opt accelOption, events ...sim.NodeEvent) (time.Duration, sim.Stats) {
	t.Helper()
	space, err := accelSpace()
	if err != nil {
		t.Fatal(err)
	}
	g := accelSimCase(space, accelCase{key: accelKey{app: app, intensity: intensity, mb: mb, cluster: cl.name, option: opt.name}, cluster: cl, option: opt}, 1)
	c, col := g.Setups[0], g.Columns[0]
	c.Config.AfterEvent = (*sim.Sim).CheckInvariants
	c.Config.NodeEvents = append(c.Config.NodeEvents, events...)
	pol, err := col.Policy.New(Env{Config: &c.Config, Workload: c.Workload})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(c.Config, c.Workload, pol)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	if j := run.Jobs[0]; j.Outcome != sim.Completed {
		t.Fatalf("%s: job %v", c.Name, j.Outcome)
	}
	return run.Jobs[0].Finish, s.Stats()
}

// TestAccelHandChecked works the model by hand for LU at intensity 1
// (CPU 55 s, GPU 6.2 s), start-up S = 15 s, 4 containers per node, tasks
// dealt so that every node gets 25 (its containers 7, 6, 6, 6), the
// paper's binding.
//
//   - Cluster4-0: each node's CPU is processor-shared by its 4 containers
//     and never idles until its 25 tasks are done: 15 + 25·55 = 1390 s.
//   - Cluster4-4: the same on each node's GPU: 15 + 25·6.2 = 170 s.
//   - Cluster4-2 (node2 → node0, node3 → node1) and Cluster4-3 (node3 →
//     node0; node1 and node2 alone): the busiest GPU serves 50 tasks.
//     Without transfers (0 MB) it never idles: 15 + 50·6.2 = 325 s, the
//     same in both clusters (node1 and node2 of 4-3 finish at 170 s).
//   - 10 MB each way: a transfer takes 0.08 s alone on a 125 MB/s NIC.
//     node0's GPU is busy whenever one of its 8 containers' tasks is in
//     its GPU stage; it can idle only while a transfer is under way, and
//     each NIC direction is work-conserving, so the idle time is at most
//     25·0.08 s in + 25·0.08 s out = 4 s: 325 ≤ makespan ≤ 329 s.
func TestAccelHandChecked(t *testing.T) {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for _, tc := range []struct {
		cl       accelCluster
		mb       int
		min, max time.Duration
	}{
		{cluster40, 0, sec(1390), sec(1390)},
		{cluster44, 0, sec(170), sec(170)},
		{cluster42, 0, sec(325), sec(325)},
		{cluster43, 0, sec(325), sec(325)},
		{cluster42, 10, sec(325), sec(329)},
		{cluster43, 10, sec(325), sec(329)},
	} {
		got, _ := runAccelCase(t, 0, 1, tc.mb, tc.cl, optPaper)
		got = got.Round(time.Millisecond)
		if got < tc.min || got > tc.max {
			t.Errorf("%s %d MB: makespan %v, want %v…%v", tc.cl.name, tc.mb, got, tc.min, tc.max)
		}
	}
}

// TestAccelPaperFinding: with the paper's binding Cluster4-3 is no faster
// than Cluster4-2 (one GPU serves two nodes in both), for every
// application and intensity; container-level binding improves Cluster4-3,
// weights improve the heterogeneous clusters, rebalancing changes nothing
// in a static cluster.
func TestAccelPaperFinding(t *testing.T) {
	intensities := accelIntensities
	if testing.Short() {
		intensities = []int{1, 8}
	}
	for a := range accelApps {
		for _, k := range intensities {
			m2, _ := runAccelCase(t, a, k, accelTableMB, cluster42, optPaper)
			m3, _ := runAccelCase(t, a, k, accelTableMB, cluster43, optPaper)
			if r := m2.Seconds() / m3.Seconds(); r < 0.99 || r > 1.01 {
				t.Errorf("%s: Cluster4-3 %v vs Cluster4-2 %v: ratio %.3f, want ≈ 1", appLabel(a, k), m3, m2, r)
			}
		}
	}
	gain := func(cl accelCluster, opt accelOption) float64 {
		base, _ := runAccelCase(t, 0, 1, accelTableMB, cl, optPaper)
		got, _ := runAccelCase(t, 0, 1, accelTableMB, cl, opt)
		return base.Seconds() / got.Seconds()
	}
	for _, tc := range []struct {
		cl       accelCluster
		opt      accelOption
		min, max float64
	}{
		// 4-3 with containers: node3's containers 0..3 go to node0,
		// node1, node2, node0: node0's GPU serves 25 + 13 tasks instead
		// of 50: 325 → about 15 + 38·6.2 = 251 s.
		{cluster43, optContainers, 1.25, 1.35},
		{cluster43, optWC, 1.25, 1.35},
		// 4-3h weighted: node3 goes to the 2× GPU: every GPU then has
		// 155 s of work: 325 → 170 s.
		{cluster43h, optWeighted, 1.85, 1.95},
		// 4-2h weighted: both NNodes on the 2× GPU (75 tasks, 232.5 s)
		// instead of one on each (the slow one 310 s).
		{cluster42h, optWeighted, 1.25, 1.35},
		{cluster42h, optWC, 1.3, 1.5},
		{cluster43, optRebalance, 1, 1},
		{cluster43, optWeighted, 1, 1},
	} {
		if g := gain(tc.cl, tc.opt); g < tc.min-1e-9 || g > tc.max+1e-9 {
			t.Errorf("%s %s: %.3f× the paper binding, want %.2f…%.2f", tc.cl.name, tc.opt.name, g, tc.min, tc.max)
		}
	}
}

// TestAccelChurn: a GPU node failing and returning in the middle of a run
// rebinds its NNode (node-level: Bind moves the running remote tasks;
// container-level: the pinned tasks are lost and restarted on their
// containers' new ANodes); every task still completes and the
// simulator's invariants hold after every event. (Under the paper's
// binding the failure happens to help Cluster4-3: node3 moves to node1,
// and node0, back at 160 s, takes nothing from stacks no larger than its
// own empty one: 290 s instead of 325 s.)
func TestAccelChurn(t *testing.T) {
	down := []sim.NodeEvent{{At: 100 * time.Second, Node: 0}, {At: 160 * time.Second, Node: 0, Up: true}}
	for _, opt := range []accelOption{optPaper, optRebalance, optContainers, optWC, optPull} {
		got, st := runAccelCase(t, 0, 1, accelTableMB, cluster43, opt, down...)
		if st.Lost == 0 || got < 200*time.Second {
			t.Errorf("%s: node0 down 100–160 s: makespan %v, %d tasks lost", opt.name, got, st.Lost)
		}
	}
}

// Same seed, same tables, however many simulations run at once; the
// option columns and the finding are there.
func TestAccelDeterministic(t *testing.T) {
	p := Params{Scale: 0.05, Seed: 3, Parallel: 1}
	a, err := runAccel(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Parallel = 3
	b, err := runAccel(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b, cmpopts.IgnoreFields(Result{}, "Cells")); d != "" {
		t.Fatalf("results differ (-parallel 1 +parallel 3):\n%s", d)
	}
	if len(a.Tables) != 4 || len(a.Assumptions) == 0 {
		t.Fatalf("%d tables, %d assumptions", len(a.Tables), len(a.Assumptions))
	}
	for _, tb := range a.Tables {
		for _, r := range tb.Rows {
			if len(r.Cells) != len(tb.Columns) {
				t.Errorf("%s: row %q has %d cells for %d columns", tb.Title, r.Name, len(r.Cells), len(tb.Columns))
			}
			for _, c := range r.Cells {
				if c == metrics.NA || strings.Contains(c, "NaN") || strings.Contains(c, "Inf") {
					t.Errorf("%s: row %q: cell %q", tb.Title, r.Name, c)
				}
			}
		}
	}
}

// The churn run: Rebalance keeps every rack within max − min ≤ 1 all the
// time; weights bring the busiest GPU closer to its rack's ideal; every
// option sees the same changes.
func TestFleetOptions(t *testing.T) {
	fc := defaultFleet(Params{Scale: 1, Nodes: 160})
	fc.horizon = 3 * time.Hour
	if testing.Short() {
		fc.horizon = time.Hour
	}
	f := newFleet(fc, 7)
	stats := map[string]fleetStats{}
	for _, o := range fleetOptions {
		st, err := f.run(o.cfg)
		if err != nil {
			t.Fatal(err)
		}
		stats[o.name] = st
		if st.changes != stats["paper"].changes || st.changes == 0 {
			t.Errorf("%s: %d changes, paper %d", o.name, st.changes, stats["paper"].changes)
		}
	}
	for _, name := range []string{"rebalance", "rebalance+containers"} {
		if s := stats[name]; s.spreadMax > 1 {
			t.Errorf("%s: max − min reached %d", name, s.spreadMax)
		}
	}
	if p, w := p95(stats["paper"].ratios), p95(stats["weighted"].ratios); w >= p {
		t.Errorf("weighted p95 max/ideal %.2f, paper %.2f", w, p)
	}
}

func TestAccelParams(t *testing.T) {
	for _, p := range []Params{{Scale: -1}, {Scale: 0.1, Nodes: -3}} {
		if _, err := runAccel(p); !errors.Is(err, ErrParams) {
			t.Errorf("%+v: err %v, want ErrParams", p, err)
		}
	}
}

// FuzzAccelFleet: any seed and small cluster size runs the churn table
// without error, and its cells are numbers.
func FuzzAccelFleet(f *testing.F) {
	f.Add(uint64(1), 40)
	f.Add(uint64(9), 1)
	f.Fuzz(func(t *testing.T, seed uint64, nodes int) {
		if nodes < 1 || nodes > 200 {
			t.Skip()
		}
		fc := defaultFleet(Params{Scale: 0.01, Nodes: nodes})
		tb, lines, err := fleetTable(fc, seed)
		if err != nil || len(lines) == 0 {
			t.Fatal(err)
		}
		for _, r := range tb.Rows {
			for _, c := range r.Cells {
				if strings.Contains(c, "NaN") || strings.Contains(c, "Inf") {
					t.Errorf("row %q: %q", r.Name, c)
				}
			}
		}
	})
}

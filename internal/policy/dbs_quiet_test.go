package policy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// dbsSlotSetup is an overloaded slot cluster for DBS (nodes full most of
// the time, so most heartbeats are of full nodes): 1–4 nodes × (2 map, 2
// reduce) slots, 30 jobs of maps and reduces with φ 0, 0.5 or 1, tight
// and loose deadlines and budgets (so that jobs are promoted, demoted
// and miss their deadlines), task durations in whole multiples of the
// heartbeat interval half the time (ties between task ends and
// heartbeats), node churn on some seeds.
func dbsSlotSetup(seed uint64) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(seed, 23))
	n := 1 + rng.IntN(4)
	ns := make([]sim.NodeSpec, n)
	for i := range ns {
		ns[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{2, 2}}
	}
	cfg := sim.DefaultConfig(workload.SlotSpace(), ns)
	cfg.Seed = seed
	cfg.Prices = resource.Vector{workload.Paper003Price, workload.Paper003Price}
	cfg.MetricsInterval = 7 * time.Second
	if n > 1 && seed%3 == 0 {
		cfg.NodeEvents = []sim.NodeEvent{{At: 30 * time.Second, Node: 0, Up: false}, {At: 90 * time.Second, Node: 0, Up: true}}
	}
	dur := func() time.Duration {
		if rng.IntN(2) == 0 {
			return time.Duration(1+rng.IntN(10)) * cfg.HeartbeatInterval
		}
		return time.Duration(1+rng.IntN(30000)) * time.Millisecond
	}
	w := &workload.Workload{}
	at := time.Duration(0)
	for j := range 30 {
		at += time.Duration(rng.IntN(6)) * time.Second
		js := workload.JobSpec{ID: fmt.Sprintf("j%02d", j), Submit: at, Phi: []float64{0, 0.5, 1}[rng.IntN(3)]}
		if js.Phi > 0 {
			js.Deadline = time.Duration(20+rng.IntN(400)) * time.Second
		}
		if js.Phi < 1 || rng.IntN(2) == 0 {
			js.Budget = (0.2 + 3*rng.Float64()) * workload.Paper003Price * 60
		}
		var maps, reds workload.PhaseSpec
		for range 1 + rng.IntN(12) {
			r := resource.Vector{1, 0}
			maps.Tasks = append(maps.Tasks, workload.TaskSpec{Requested: r, Profile: []workload.Stage{{Duration: dur(), Demand: r}}})
		}
		js.Phases = []workload.PhaseSpec{maps}
		if rng.IntN(2) == 0 {
			for range 1 + rng.IntN(3) {
				r := resource.Vector{0, 1}
				reds.Tasks = append(reds.Tasks, workload.TaskSpec{Requested: r, Profile: []workload.Stage{{Duration: dur(), Demand: r}}})
			}
			js.Phases = append(js.Phases, reds)
		}
		w.Jobs = append(w.Jobs, js)
	}
	return cfg, w
}

// runDBS runs w under a DBS adapter with options opt (eager: no lazy
// Updates, policy.SetEagerUpdates) and returns the record, the
// simulator's counters and the adapter's.
func runDBS(t *testing.T, cfg sim.Config, w *workload.Workload, opt policy.DBSOptions, eager ...bool) (sim.Run, sim.Stats, policy.DBSStats) {
	t.Helper()
	p, err := policy.NewDBS(&cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(eager) > 0 && eager[0] {
		policy.SetEagerUpdates(p)
	}
	s, err := sim.New(cfg, w, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return r, s.Stats(), p.Stats()
}

// TestDBSQuietHeartbeatsChangeNothing: not delivering the heartbeats of
// idle nodes (DBS.SkipFullNodes) and passing jobs to dbs's Update after
// their assignments only before the next weight update (exactStarts)
// leave every decision and every metric exactly as delivering every
// heartbeat and updating after every assignment do: job records, task
// records (node, start, end, cost of every attempt), metrics samples,
// the simulator's counters and the adapter's (assignments, queue moves
// with their times and prices), for DBS and its options, on overloaded
// slot clusters and on the paper's two experiments. Only the number of
// policy calls (and the wall-clock decision time) differ.
func TestDBSQuietHeartbeatsChangeNothing(t *testing.T) {
	opts := []policy.DBSOptions{
		{},
		{Sharing: dbs.CapacitySharing, MinimumFirst: true, PhiAwareMoves: true},
		{Sharing: dbs.CapacitySharing, Ablations: dbs.Ablations{EarlyReduces: true}},
		{Ablations: dbs.Ablations{NoMinimumSlots: true}},
		{Ablations: dbs.Ablations{EarlyReduces: true, LostByWeight: true, UnknownByWeight: true}},
	}
	type setup struct {
		name string
		cfg  sim.Config
		w    *workload.Workload
	}
	var setups []setup
	for seed := uint64(1); seed <= 8; seed++ {
		cfg, w := dbsSlotSetup(seed)
		setups = append(setups, setup{fmt.Sprintf("slots seed %d", seed), cfg, w})
	}
	for _, tc := range []struct {
		name string
		jobs []workload.Paper003Job
	}{{"exp1", workload.Paper003Exp1()}, {"exp2", workload.Paper003Exp2()}} {
		_, _, w := paper003Sim(t, tc.jobs, policy.DBSOptions{})
		cfg := sim.DefaultConfig(workload.SlotSpace(), paper003Nodes())
		cfg.Prices = resource.Vector{workload.Paper003Price, workload.Paper003Price}
		setups = append(setups, setup{"paper003 " + tc.name, cfg, w})
	}
	quiet, moves := 0, 0
	for _, su := range setups {
		for oi, opt := range opts {
			name := fmt.Sprintf("%s options %d", su.name, oi)
			cfg := su.cfg
			cfg.RecordTasks = true
			// The skipping run checks the simulator's counters after
			// every event, the ready-by-support counts that decide
			// idleness (computing phases only, unless EarlyReduces)
			// among them.
			cfg.AfterEvent = func(s *sim.Sim) error { return s.CheckInvariants() }
			rq, sq, pq := runDBS(t, cfg, su.w, opt)
			cfg.AfterEvent = nil
			cfg.DeliverFullHeartbeats = true
			rd, sd, pd := runDBS(t, cfg, su.w, opt, true)
			// Every heartbeat delivered, lazy Updates: as the reference.
			rl, sl, pl := runDBS(t, cfg, su.w, opt)
			if sl != sd {
				t.Fatalf("%s: lazy Updates: stats %+v, %+v eager", name, sl, sd)
			}
			if d := cmp.Diff(pd, pl); d != "" {
				t.Fatalf("%s: lazy Updates: adapter stats differ (-eager +lazy):\n%s", name, d)
			}
			rl.DecisionTime, rl.TimedCalls = rd.DecisionTime, rd.TimedCalls
			if d := cmp.Diff(rd, rl); d != "" {
				t.Fatalf("%s: lazy Updates: runs differ (-eager +lazy):\n%s", name, d)
			}
			if sd.QuietHeartbeats != 0 {
				t.Fatalf("%s: %d quiet heartbeats with DeliverFullHeartbeats", name, sd.QuietHeartbeats)
			}
			quiet += sq.QuietHeartbeats
			moves += pq.Promotions + pq.Demotions
			if got, want := sq.Delivered(), sd; got != want {
				t.Fatalf("%s: stats %+v quiet, %+v delivered", name, got, want)
			}
			if d := cmp.Diff(pd, pq); d != "" {
				t.Fatalf("%s: adapter stats differ (-delivered +quiet):\n%s", name, d)
			}
			if rq.Decisions+sq.QuietHeartbeats != rd.Decisions {
				t.Fatalf("%s: %d decisions + %d quiet, want %d", name, rq.Decisions, sq.QuietHeartbeats, rd.Decisions)
			}
			rq.DecisionTime, rd.DecisionTime, rq.Decisions, rd.Decisions, rq.TimedCalls, rd.TimedCalls = 0, 0, 0, 0, 0, 0
			if d := cmp.Diff(rd, rq); d != "" {
				t.Fatalf("%s: runs differ (-delivered +quiet):\n%s", name, d)
			}
		}
	}
	t.Logf("%d heartbeats skipped, %d queue moves", quiet, moves)
	if quiet == 0 || moves == 0 {
		t.Fatalf("%d heartbeats skipped, %d queue moves: the test tests too little", quiet, moves)
	}
	t.Logf("%d heartbeats skipped, %d queue moves", quiet, moves)
}

// TestDBSSkipsOnlyWithSlotSpace: DBS declares idle heartbeats no-ops
// only in a Space of the two slot kinds, and rejects a job whose map
// tasks ask reduce slots (dbs would give them map slots).
func TestDBSSkipsOnlyWithSlotSpace(t *testing.T) {
	cfg := sim.DefaultConfig(workload.SlotSpace(), paper003Nodes())
	cfg.Prices = resource.Vector{1, 1}
	p, err := policy.NewDBS(&cfg, policy.DBSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.SkipFullNodes() {
		t.Error("slot space: SkipFullNodes false")
	}
	wide, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot, resource.Memory)
	if err != nil {
		t.Fatal(err)
	}
	wcfg := sim.DefaultConfig(wide, nil)
	wcfg.Prices = resource.Vector{1, 1, 1}
	q, err := policy.NewDBS(&wcfg, policy.DBSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.SkipFullNodes() {
		t.Error("slots and memory: SkipFullNodes true")
	}

	w := &workload.Workload{}
	for i, req := range []resource.Vector{{1, 0}, {1, 1}} {
		w.Jobs = append(w.Jobs, workload.JobSpec{ID: fmt.Sprintf("j%d", i), Phi: 1, Deadline: time.Hour,
			Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{{Requested: req, Profile: []workload.Stage{{Duration: time.Second, Demand: req}}}}}}})
	}
	rec, _, st := runDBS(t, cfg, w, policy.DBSOptions{})
	if rec.Jobs[0].Outcome != sim.Completed || rec.Jobs[1].Outcome != sim.Rejected || st.Rejected != 1 {
		t.Fatalf("outcomes %v, %v, %d rejected", rec.Jobs[0].Outcome, rec.Jobs[1].Outcome, st.Rejected)
	}
}

package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// slotSetup is an overloaded slot cluster (nodes full most of the time,
// so most heartbeats are of full nodes): 1–4 nodes × (2 map, 2 reduce)
// slots, 30 jobs of maps and reduces with durations in whole multiples
// of the heartbeat interval half the time (ties between task ends and
// heartbeats), node churn on some seeds.
func slotSetup(seed uint64) (sim.Config, *workload.Workload) {
	rng := rand.New(rand.NewPCG(seed, 17))
	n := 1 + rng.IntN(4)
	ns := make([]sim.NodeSpec, n)
	for i := range ns {
		ns[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{2, 2}}
	}
	cfg := sim.DefaultConfig(workload.SlotSpace(), ns)
	cfg.Seed = seed
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
		js := workload.JobSpec{ID: fmt.Sprintf("j%02d", j), Class: fmt.Sprintf("c%d", rng.IntN(3)), Submit: at}
		if rng.IntN(2) == 0 {
			js.Deadline = time.Duration(30+rng.IntN(300)) * time.Second
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

// TestQuietHeartbeatsChangeNothing: skipping the heartbeats of full
// nodes (sim.FullNodeSkipper, which every baseline implements) leaves
// every decision and every metric exactly as delivering them does: job
// records, task records (node, start, end, attempt of every attempt),
// metrics samples and simulator counters, on overloaded slot clusters
// (mostly full nodes, ties between task ends and heartbeats) and on the
// index test's multi-resource workloads with node churn. Only the
// number of policy calls (and the wall-clock decision time) differ.
func TestQuietHeartbeatsChangeNothing(t *testing.T) {
	quietTotal := 0
	for seed := uint64(1); seed <= 8; seed++ {
		for _, setup := range []struct {
			name string
			make func(uint64) (sim.Config, *workload.Workload)
		}{
			{"slots", slotSetup},
			{"cpu-mem", func(seed uint64) (sim.Config, *workload.Workload) { return indexSetup(seed, seed%2 == 0) }},
		} {
			for i := range indexPolicies(t) {
				cfg, w := setup.make(seed)
				cfg.RecordTasks = true
				rq, sq, eq := runBoth(cfg, w, indexPolicies(t)[i])
				cfg.DeliverFullHeartbeats = true
				rd, sd, ed := runBoth(cfg, w, indexPolicies(t)[i])
				name := fmt.Sprintf("%s seed %d %s", setup.name, seed, indexPolicies(t)[i].Name())
				if fmt.Sprint(eq) != fmt.Sprint(ed) {
					t.Fatalf("%s: error %v quiet, %v delivered", name, eq, ed)
				}
				if sd.QuietHeartbeats != 0 {
					t.Fatalf("%s: %d quiet heartbeats with DeliverFullHeartbeats", name, sd.QuietHeartbeats)
				}
				quietTotal += sq.QuietHeartbeats
				if got, want := sq.Delivered(), sd; got != want {
					t.Fatalf("%s: stats %+v quiet, %+v delivered", name, got, want)
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
	}
	if quietTotal == 0 {
		t.Fatal("no heartbeat was skipped: the test tests nothing")
	}
	t.Logf("%d heartbeats skipped", quietTotal)
}

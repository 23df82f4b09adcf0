package policy_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// TestFGMSyncMatchesFullScan: submitting only the marked jobs' new ready
// tasks (the default) gives the same run as reading every active job's
// ready tasks at every heartbeat (the reference): the same job and task
// records, placements by mode and predictions, on the paper-004 offline
// mix, the cloud setup (foreign load: failed and reclaimed tasks are
// submitted again), a SWIM trace on a slot cluster (alike phases: their
// waiting tasks go to fgm as runs, fgm.SubmitRun, and are materialised
// only when placed; the reference submits every task by itself), and
// each with nodes going down and coming back (lost tasks are retried).
func TestFGMSyncMatchesFullScan(t *testing.T) {
	for seed := range uint64(3) {
		for _, setup := range []string{"offline", "cloud", "swim", "offline-churn", "cloud-churn", "swim-churn"} {
			t.Run(fmt.Sprintf("%s/seed=%d", setup, seed), func(t *testing.T) {
				var w workload.Workload
				var err error
				cfg := paper004(t, 4)
				cfg.AfterEvent = nil
				switch setup {
				case "swim", "swim-churn":
					cfg, w = swimSetup(t, seed)
				case "offline", "offline-churn":
					w, err = workload.Paper004Offline(0.03, rand.New(rand.NewPCG(seed, 4)))
				default:
					var steps []workload.BackgroundStep
					w, steps, err = workload.Paper004Cloud(12, 4, rand.New(rand.NewPCG(seed, 4)))
					for _, s := range steps {
						cfg.Background = append(cfg.Background, sim.BackgroundStep{At: s.At, Node: s.Node, Demand: s.Demand})
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(setup, "-churn") {
					for i := range 6 {
						at := time.Duration(30+40*i) * time.Second
						n := (i + int(seed)) % 4
						cfg.NodeEvents = append(cfg.NodeEvents, sim.NodeEvent{At: at, Node: n}, sim.NodeEvent{At: at + 15*time.Second, Node: n, Up: true})
					}
				}
				var got [2]string
				var runs [2]int
				for i, ref := range []bool{false, true} {
					p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}})
					var sp sim.Policy = p
					if ref {
						sp = policy.FGMFullScan(p)
					}
					rec := runPolicy(t, cfg, &w, sp)
					runs[i] = policy.FGMRuns(p)
					rec.DecisionTime = 0 // wall clock
					got[i] = fmt.Sprintf("%+v\n%v\n%+v", rec, p.Modes, p.Predictions())
				}
				if d := cmp.Diff(got[1], got[0]); d != "" {
					t.Fatalf("marked-job sync differs from the full scan (-full +marked):\n%s", d)
				}
				if strings.HasPrefix(setup, "swim") && (runs[0] == 0 || runs[1] != 0) {
					t.Fatalf("runs submitted: %d marked, %d full scan; want some, none", runs[0], runs[1])
				}
			})
		}
	}
}

// swimSetup is a small SWIM day read as the trace experiments read one
// (each phase a TaskBatch) on 5 slot workers, tick every 10 s.
func swimSetup(t *testing.T, seed uint64) (sim.Config, workload.Workload) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	at := int64(0)
	for i := range 40 {
		gap := rng.Int64N(20)
		if i == 0 {
			gap = 0
		}
		at += gap
		maps := 1 + rng.Int64N(60)
		input := (maps-1)*64*workload.MiB + 1 + rng.Int64N(64*workload.MiB)
		shuffle, output := int64(0), input/10
		if rng.IntN(2) == 0 {
			shuffle = input / 3
			output = shuffle / 4
		}
		fmt.Fprintf(&b, "job%d\t%d\t%d\t%d\t%d\t%d\n", i, at, gap, input, shuffle, output)
	}
	opt := workload.DefaultTraceOptions()
	opt.Compact = true
	w, err := workload.Read(strings.NewReader(b.String()), "day.tsv", workload.FormatSWIM, opt, rand.New(rand.NewPCG(seed, 12)))
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]sim.NodeSpec, 5)
	for i := range nodes {
		nodes[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r", Capacity: resource.Vector{2, 2}}
	}
	cfg := sim.DefaultConfig(workload.SlotSpace(), nodes)
	cfg.Seed = seed
	cfg.TickInterval = 10 * time.Second
	cfg.RecordTasks = true
	return cfg, w
}

// TestFGMFindsHeldTasks: the adapter resolves a task ID (a Reclaim
// decision's) to the task it holds after every event of a SWIM day on
// a slot cluster, the placed tasks of runs included: those are not in
// its ID table (Heartbeat resolves them from the tasks the call
// materialised) and are found on their node.
func TestFGMFindsHeldTasks(t *testing.T) {
	cfg, w := swimSetup(t, 1)
	p := newFGM(t, &cfg, policy.FGMConfig{})
	s, err := sim.New(cfg, &w, p)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for {
		more, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		n, err := policy.FGMCheckTasks(p, s.Cluster())
		if err != nil {
			t.Fatal(err)
		}
		found += n
		if !more {
			break
		}
	}
	if found == 0 {
		t.Fatal("no placed task of a run was looked up")
	}
}

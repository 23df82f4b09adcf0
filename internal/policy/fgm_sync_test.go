package policy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// TestFGMSyncMatchesFullScan: submitting only the marked jobs' new ready
// tasks (the default) gives the same run as reading every active job's
// ready tasks at every heartbeat (the reference): the same job and task
// records, placements by mode and predictions, on the paper-004 offline
// mix, the cloud setup (foreign load: failed and reclaimed tasks are
// submitted again) and both with nodes going down and coming back.
func TestFGMSyncMatchesFullScan(t *testing.T) {
	for seed := range uint64(3) {
		for _, setup := range []string{"offline", "cloud", "offline-churn", "cloud-churn"} {
			t.Run(fmt.Sprintf("%s/seed=%d", setup, seed), func(t *testing.T) {
				var w workload.Workload
				var err error
				cfg := paper004(t, 4)
				cfg.AfterEvent = nil
				if setup == "offline" || setup == "offline-churn" {
					w, err = workload.Paper004Offline(0.03, rand.New(rand.NewPCG(seed, 4)))
				} else {
					var steps []workload.BackgroundStep
					w, steps, err = workload.Paper004Cloud(12, 4, rand.New(rand.NewPCG(seed, 4)))
					for _, s := range steps {
						cfg.Background = append(cfg.Background, sim.BackgroundStep{At: s.At, Node: s.Node, Demand: s.Demand})
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				if setup == "offline-churn" || setup == "cloud-churn" {
					for i := range 6 {
						at := time.Duration(30+40*i) * time.Second
						n := (i + int(seed)) % 4
						cfg.NodeEvents = append(cfg.NodeEvents, sim.NodeEvent{At: at, Node: n}, sim.NodeEvent{At: at + 15*time.Second, Node: n, Up: true})
					}
				}
				var got [2]string
				for i, ref := range []bool{false, true} {
					p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}})
					policy.SetFGMScanAll(p, ref)
					rec := runFGM(t, cfg, &w, p)
					rec.DecisionTime = 0 // wall clock
					got[i] = fmt.Sprintf("%+v\n%v\n%+v", rec, p.Modes, p.Predictions())
				}
				if d := cmp.Diff(got[1], got[0]); d != "" {
					t.Fatalf("marked-job sync differs from the full scan (-full +marked):\n%s", d)
				}
			})
		}
	}
}

// With SkipIdleNodes (an approximation) the offline mix still completes
// with the invariants checked, and idle heartbeats are skipped.
func TestFGMSkipIdleNodes(t *testing.T) {
	w, err := workload.Paper004Offline(0.03, rand.New(rand.NewPCG(1, 4)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := paper004(t, 4)
	p := newFGM(t, &cfg, policy.FGMConfig{Scheduler: fgm.Config{CapAtRequest: true}, SkipIdleNodes: true})
	s, err := sim.New(cfg, &w, p)
	if err != nil {
		t.Fatal(err)
	}
	rec := run(t, s)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	for _, j := range rec.Jobs {
		if j.Outcome != metrics.Completed {
			t.Fatalf("job %s: %v", j.ID, j.Outcome)
		}
	}
	if s.Stats().QuietHeartbeats == 0 {
		t.Errorf("no heartbeat skipped")
	}
}

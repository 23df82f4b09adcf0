package policy_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// paper003Sim returns a simulator for one paper-003 job table on the
// paper's 5 workers × (2 map + 2 reduce), with a DBS adapter.
func paper003Sim(t *testing.T, jobs []workload.Paper003Job, opt policy.DBSOptions) (*sim.Sim, *policy.DBS, *workload.Workload) {
	t.Helper()
	w, err := workload.Paper003Workload("test", jobs, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig(workload.SlotSpace(), paper003Nodes())
	cfg.Prices = resource.Vector{workload.Paper003Price, workload.Paper003Price}
	cfg.RecordTasks = true
	cfg.AfterEvent = func(s *sim.Sim) error { return s.CheckInvariants() }
	p, err := policy.NewDBS(&cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TickInterval != dbs.DefaultInterval {
		t.Fatalf("TickInterval %v, want dbs's %v", cfg.TickInterval, dbs.DefaultInterval)
	}
	s, err := sim.New(cfg, &w, p)
	if err != nil {
		t.Fatal(err)
	}
	return s, p, &w
}

// paper003Nodes returns the paper's 5 workers × (2 map + 2 reduce).
func paper003Nodes() []sim.NodeSpec {
	var nodes []sim.NodeSpec
	for i := range workload.Paper003Workers {
		nodes = append(nodes, sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("n%d", i)), Rack: "r",
			Capacity: resource.Vector{workload.Paper003Maps, workload.Paper003Reduces}})
	}
	return nodes
}

func run(t *testing.T, s *sim.Sim) sim.Run {
	t.Helper()
	for {
		more, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s.Record()
}

// TestDBSCostFromTaskRecords: every job's cost, and the total, equal Σ
// price in force × slot-seconds over its per-task records, the price
// following the job's queue: its φ queue from the start, then each
// promotion and demotion at the instant it was decided.
func TestDBSCostFromTaskRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		jobs []workload.Paper003Job
	}{{"exp1", workload.Paper003Exp1()}, {"exp2", workload.Paper003Exp2()}} {
		t.Run(tc.name, func(t *testing.T) {
			s, p, w := paper003Sim(t, tc.jobs, policy.DBSOptions{})
			rec := run(t, s)
			if len(rec.Tasks) == 0 {
				t.Fatal("no task records")
			}
			type seg struct {
				from  time.Duration
				price float64
			}
			q := p.Queues()
			prices := map[string][]seg{}
			for _, j := range w.Jobs {
				qq, _ := dbs.QueueFor(j.Phi)
				prices[j.ID] = []seg{{0, q[qq].Price}}
			}
			st := p.Stats()
			if st.Promotions+st.Demotions == 0 {
				t.Fatal("no queue moves: the test would not exercise price changes")
			}
			for _, m := range st.Moves {
				prices[m.Job] = append(prices[m.Job], seg{m.At, m.Price})
			}
			perJob := map[string]float64{}
			total := 0.0
			for _, r := range rec.Tasks {
				slots := 0.0
				for _, a := range r.Alloc {
					slots += a
				}
				want := 0.0
				segs := prices[r.Job]
				for i, sg := range segs {
					end := time.Duration(math.MaxInt64)
					if i+1 < len(segs) {
						end = segs[i+1].from
					}
					lo, hi := max(sg.from, r.Start), min(end, r.End)
					if hi > lo {
						want += sg.price * slots * (hi - lo).Seconds()
					}
				}
				if math.Abs(want-r.Cost) > 1e-6*max(1, want) {
					t.Fatalf("task %s attempt %d [%v, %v]: cost %v, Σ price × slot-seconds %v", r.Task, r.Attempt, r.Start, r.End, r.Cost, want)
				}
				perJob[r.Job] += want
				total += want
			}
			jobTotal := 0.0
			for _, j := range rec.Jobs {
				if math.Abs(perJob[j.ID]-j.Cost) > 1e-6*max(1, j.Cost) {
					t.Errorf("job %s: cost %v, from its task records %v", j.ID, j.Cost, perJob[j.ID])
				}
				jobTotal += j.Cost
			}
			if math.Abs(total-jobTotal) > 1e-6*total {
				t.Errorf("total cost %v, from task records %v", jobTotal, total)
			}
		})
	}
}

// TestDBSDeterministic: the same seed gives the same run.
func TestDBSDeterministic(t *testing.T) {
	var out [2]string
	for i := range out {
		s, p, _ := paper003Sim(t, workload.Paper003Exp2(), policy.DBSOptions{})
		rec := run(t, s)
		var b strings.Builder
		for _, j := range rec.Jobs {
			fmt.Fprintf(&b, "%s %v %v %.9f\n", j.ID, j.Start, j.Finish, j.Cost)
		}
		fmt.Fprintf(&b, "%+v", p.Stats())
		out[i] = b.String()
	}
	if out[0] != out[1] {
		t.Errorf("two runs differ:\n%s\n---\n%s", out[0], out[1])
	}
}

// TestDBSRejectsInvalidJob: a job dbs cannot take (φ 0.7) is rejected
// with dbs's reason, never dropped; the others run to completion.
func TestDBSRejectsInvalidJob(t *testing.T) {
	jobs := workload.Paper003Exp1()
	jobs[1].Phi = 0.7
	s, p, _ := paper003Sim(t, jobs, policy.DBSOptions{})
	rec := run(t, s)
	var rejected, completed int
	for _, j := range rec.Jobs {
		switch j.Outcome {
		case sim.Rejected:
			rejected++
			if j.ID != jobs[1].ID {
				t.Errorf("rejected %s", j.ID)
			}
		case sim.Completed:
			completed++
		}
	}
	if rejected != 1 || completed != 3 || p.Stats().Rejected != 1 {
		t.Errorf("rejected %d, completed %d, stats %+v", rejected, completed, p.Stats())
	}
}

func TestNewDBSErrors(t *testing.T) {
	if _, err := policy.NewDBS(nil, policy.DBSOptions{}); !errors.Is(err, policy.ErrConfig) {
		t.Errorf("nil config: %v", err)
	}
	cpu, _ := resource.NewSpace(resource.CPU)
	if _, err := policy.NewDBS(&sim.Config{Space: cpu}, policy.DBSOptions{}); !errors.Is(err, policy.ErrConfig) {
		t.Errorf("space without slots: %v", err)
	}
	cfg := sim.Config{Space: workload.SlotSpace()}
	if _, err := policy.NewDBS(&cfg, policy.DBSOptions{}); !errors.Is(err, policy.ErrConfig) {
		t.Errorf("no reference price and no queues: %v", err)
	}
	bad := [3]dbs.QueueConfig{{Share: 0.5, Price: 2}, {Share: 0.5, Price: 1}, {Share: 0.5, Price: 3}}
	if _, err := policy.NewDBS(&cfg, policy.DBSOptions{Queues: bad}); !errors.Is(err, dbs.ErrConfig) {
		t.Errorf("bad queues: %v", err)
	}
}

// TestDBSReducesAfterMaps: by default no reduce task starts before its
// job's last map ended, although the simulator's slow-start (0.05) makes
// reduces ready much earlier; with EarlyReduces some do.
func TestDBSReducesAfterMaps(t *testing.T) {
	for _, early := range []bool{false, true} {
		s, _, _ := paper003Sim(t, workload.Paper003Exp1(), policy.DBSOptions{Ablations: dbs.Ablations{EarlyReduces: early}})
		rec := run(t, s)
		lastMap := map[string]time.Duration{}
		for _, r := range rec.Tasks {
			if r.Phase == 0 {
				lastMap[r.Job] = max(lastMap[r.Job], r.End)
			}
		}
		before := 0
		for _, r := range rec.Tasks {
			if r.Phase == 1 && r.Start < lastMap[r.Job] {
				before++
			}
		}
		if early != (before > 0) {
			t.Errorf("EarlyReduces %v: %d reduce attempts started before their job's last map ended", early, before)
		}
	}
}

package workload_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/workload"
)

// What paper 003's prose fixes is in the tables: exp. 1 same sizes, Job3
// and Job4 deadlines 1300 s and 1200 s with φ 0.5, Job1 φ 1, Job2 φ 0,
// B3 < B4; exp. 2 Job3 smallest, Job4 largest with φ 0.5.
func TestPaper003Tables(t *testing.T) {
	e1 := workload.Paper003Exp1()
	if len(e1) != 4 {
		t.Fatalf("%d jobs", len(e1))
	}
	for _, j := range e1[1:] {
		if j.Maps != e1[0].Maps || j.Reduces != e1[0].Reduces || j.MapTime != e1[0].MapTime {
			t.Errorf("exp. 1 sizes differ: %+v", j)
		}
	}
	if e1[2].Deadline != 1300*time.Second || e1[3].Deadline != 1200*time.Second || e1[2].Phi != 0.5 || e1[3].Phi != 0.5 ||
		e1[0].Phi != 1 || e1[1].Phi != 0 || !(e1[2].Budget < e1[3].Budget) {
		t.Errorf("exp. 1 table breaks the prose: %+v", e1)
	}
	e2 := workload.Paper003Exp2()
	maps := func(j workload.Paper003Job) int { return j.Maps }
	sizes := []int{maps(e2[0]), maps(e2[1]), maps(e2[2]), maps(e2[3])}
	if slices.Min(sizes) != e2[2].Maps || slices.Max(sizes) != e2[3].Maps || e2[3].Phi != 0.5 {
		t.Errorf("exp. 2 table breaks the prose: %+v", e2)
	}
	for _, jobs := range [][]workload.Paper003Job{e1, e2} {
		w, err := workload.Paper003Workload("x", jobs, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Validate(workload.SlotSpace()); err != nil {
			t.Fatal(err)
		}
		for i, j := range w.Jobs {
			if j.ID != jobs[i].ID || j.Submit != 0 || j.Deadline != jobs[i].Deadline || j.Budget != jobs[i].Budget || j.Phi != jobs[i].Phi ||
				len(j.Phases[0].Tasks) != jobs[i].Maps || len(j.Phases[1].Tasks) != jobs[i].Reduces {
				t.Errorf("job %d = %+v from %+v", i, j.ID, jobs[i])
			}
			for _, task := range j.Phases[0].Tasks {
				if d := task.Duration(); d < 36*time.Second || d > 44*time.Second {
					t.Fatalf("map of %v outside 40s ± 10%%", d)
				}
			}
		}
	}
	bad := workload.Paper003Exp1()
	bad[0].Phi = 2
	if _, err := workload.Paper003Workload("x", bad, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, workload.ErrRange) {
		t.Errorf("φ 2: %v", err)
	}
	if _, err := workload.Paper003Workload("x", nil, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, workload.ErrConfig) {
		t.Errorf("no jobs: %v", err)
	}
}

// ApplyDBSRules keeps deadlines, sets budgets and φ by the stated rules,
// deterministically.
func TestApplyDBSRules(t *testing.T) {
	cfg := workload.Paper000Light()
	cfg.Horizon = time.Hour
	gen := func(seed uint64) workload.Workload {
		w, err := workload.GeneratePoisson(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := workload.ApplyDBSRules(&w, workload.DefaultDBSRules(0.01), rand.New(rand.NewPCG(seed, 5))); err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := gen(1)
	plain, _ := workload.GeneratePoisson(cfg, rand.New(rand.NewPCG(1, 1)))
	phis := map[float64]int{}
	for i, j := range w.Jobs {
		if j.Deadline != plain.Jobs[i].Deadline {
			t.Errorf("job %s deadline changed %v → %v", j.ID, plain.Jobs[i].Deadline, j.Deadline)
		}
		secs := 0.0
		for _, ph := range j.Phases {
			for _, task := range ph.Tasks {
				secs += task.Duration().Seconds()
			}
		}
		if u := j.Budget / (0.01 * secs); u < 0.8-1e-9 || u > 1.5+1e-9 {
			t.Errorf("job %s budget factor %v", j.ID, u)
		}
		phis[j.Phi]++
	}
	if len(phis) != 3 || phis[0] == 0 || phis[0.5] == 0 || phis[1] == 0 {
		t.Errorf("φ drawn %v", phis)
	}
	if d := cmp.Diff(w, gen(1)); d != "" {
		t.Errorf("not deterministic:\n%s", d)
	}
	if len(w.Assumptions) <= len(plain.Assumptions) {
		t.Error("rules not stated")
	}
	if err := workload.ApplyDBSRules(&w, workload.DBSRules{}, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, workload.ErrConfig) {
		t.Errorf("empty rules: %v", err)
	}
}

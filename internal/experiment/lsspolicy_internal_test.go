package experiment

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// With speeds 2 and 0.5 a 10 s map takes 5 s or 20 s; the job lss sees
// reports every finished map as 10 s of speed-1 work, while the
// simulator's own counter holds the wall times.
func TestLSSJobSpeedNormalised(t *testing.T) {
	cfg, _, err := SlotCluster(workload.SlotSpace(), 2, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Nodes[0].Speed, cfg.Nodes[1].Speed = 2, 0.5
	shaper, _ := workload.NewSlotShaper(workload.SlotSpace())
	var maps workload.PhaseSpec
	for range 8 {
		req, prof, err := workload.ShapeTask(shaper, workload.MapTask, 10*time.Second, 0)
		if err != nil {
			t.Fatal(err)
		}
		maps.Tasks = append(maps.Tasks, workload.TaskSpec{Requested: req, Profile: prof})
	}
	w := &workload.Workload{Name: "speeds", Jobs: []workload.JobSpec{{ID: "H", Submit: time.Second, Deadline: time.Hour, Phases: []workload.PhaseSpec{maps}}}}
	pol, err := NewLSSPolicy(&cfg, LSSOptions{Heterogeneous: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	cfg.AfterEvent = func(s *sim.Sim) error {
		j := s.Job(0)
		tr := pol.track(j)
		if tr.job == nil || !j.Active() {
			return nil
		}
		raw := j.Progress(schedkit.PhaseMap)
		norm := tr.job.Progress(schedkit.PhaseMap)
		if want := time.Duration(raw.Finished) * 10 * time.Second; norm.FinishedDurationSum != want {
			t.Errorf("at %v: %d finished, normalised sum %v, want %v (raw %v)", s.Elapsed(), raw.Finished, norm.FinishedDurationSum, want, raw.FinishedDurationSum)
		}
		if raw.Finished > 0 && raw.FinishedDurationSum == norm.FinishedDurationSum {
			t.Errorf("at %v: raw sum %v equals the normalised one", s.Elapsed(), raw.FinishedDurationSum)
		}
		checked++
		return nil
	}
	s, err := sim.New(cfg, w, pol)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// -policies replaces the baselines; LSS columns stay.
func TestLSSBaselines(t *testing.T) {
	cols, err := lssBaselines(Params{Policies: []string{"EDF", "drf"}})
	if err != nil || len(cols) != 2 || cols[0].base != "edf" || cols[1].base != "drf" || cols[0].opt != nil {
		t.Fatalf("%+v, %v", cols, err)
	}
	if cols, _ := lssBaselines(Params{}); len(cols) != 3 || cols[0].base != "fifo" || cols[1].base != "edf" || cols[2].base != "fair" {
		t.Fatalf("defaults %+v", cols)
	}
	if _, err := lssBaselines(Params{Policies: []string{"lifo"}}); err == nil {
		t.Fatal("unknown policy accepted")
	}
}

// scaleModel reaches the target load and keeps the model at target 0.
func TestScaleModel(t *testing.T) {
	wc := workload.Paper000Light()
	_, f, m, _ := scaleModel(wc, 0)
	if f != 1 || m < 0.5 || m > 0.6 {
		t.Errorf("as is: factor %v load %v", f, m)
	}
	for _, target := range []float64{0.4, 1.2} {
		c, f, m, _ := scaleModel(wc, target)
		if d := m - target; d > 1e-6 || d < -1e-6 {
			t.Errorf("target %v: load %v (factor %v)", target, m, f)
		}
		if got, _, _ := c.OfferedLoad(10, 5); got != m {
			t.Errorf("target %v: config's load %v, reported %v", target, got, m)
		}
	}
}

// Phase hints come from the earlier ended jobs of the class: 4 maps of
// 10 s and one 30 s reduce on one worker × (2 map + 1 reduce). The first
// job's reduce starts after the first map (slow-start) and waits for the
// last one, about 10 s; the second job is hinted 10 s per map and the
// reduce's 30 s of work — or, with RawPhaseHints, its wait as well.
func TestLSSPhaseHints(t *testing.T) {
	shaper, _ := workload.NewSlotShaper(workload.SlotSpace())
	task := func(kind workload.TaskKind, d time.Duration) workload.TaskSpec {
		req, prof, err := workload.ShapeTask(shaper, kind, d, 0)
		if err != nil {
			t.Fatal(err)
		}
		return workload.TaskSpec{Requested: req, Profile: prof}
	}
	job := func(id string, submit time.Duration) workload.JobSpec {
		var maps workload.PhaseSpec
		for range 4 {
			maps.Tasks = append(maps.Tasks, task(workload.MapTask, 10*time.Second))
		}
		red := workload.PhaseSpec{Tasks: []workload.TaskSpec{task(workload.ReduceTask, 30*time.Second)}}
		return workload.JobSpec{ID: id, Class: "W", Submit: submit, Deadline: time.Hour, Phases: []workload.PhaseSpec{maps, red}}
	}
	for _, raw := range []bool{false, true} {
		cfg, _, err := SlotCluster(workload.SlotSpace(), 1, 2, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := &workload.Workload{Name: "hints", Jobs: []workload.JobSpec{job("X1", time.Second), job("X2", 200*time.Second)}}
		pol, err := NewLSSPolicy(&cfg, LSSOptions{PhaseTaskTimeHints: true, RawPhaseHints: raw})
		if err != nil {
			t.Fatal(err)
		}
		var mapHint, redHint time.Duration
		var ok0, ok1 bool
		cfg.AfterEvent = func(s *sim.Sim) error {
			if j := s.Job(0); j.Active() {
				if _, ok := pol.track(j).job.PhaseTaskTimeHint(1); ok {
					t.Errorf("first job of the class hinted")
				}
			}
			if j := s.Job(1); j.Active() && pol.track(j).job != nil {
				mapHint, ok0 = pol.track(j).job.PhaseTaskTimeHint(0)
				redHint, ok1 = pol.track(j).job.PhaseTaskTimeHint(1)
			}
			return nil
		}
		s, err := sim.New(cfg, w, pol)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			t.Fatal(err)
		}
		t.Logf("raw %v: map hint %v, reduce hint %v", raw, mapHint, redHint)
		if !ok0 || !ok1 || mapHint < 10*time.Second || mapHint > 11*time.Second {
			t.Fatalf("raw %v: map hint %v %v, reduce hint %v %v", raw, mapHint, ok0, redHint, ok1)
		}
		inWork := redHint >= 30*time.Second && redHint <= 31*time.Second
		if raw == inWork || (raw && redHint < 35*time.Second) {
			t.Errorf("raw %v: reduce hint %v", raw, redHint)
		}
	}
}

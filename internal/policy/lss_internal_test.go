package policy

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
	cfg := slotCluster(t, 2, 2, 1)
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
	pol, err := NewLSS(&cfg, LSSOptions{Heterogeneous: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	cfg.AfterEvent = func(s *sim.Sim) error {
		j := s.Job(0)
		tr := pol.jobs.row(j)
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
		cfg := slotCluster(t, 1, 2, 1)
		w := &workload.Workload{Name: "hints", Jobs: []workload.JobSpec{job("X1", time.Second), job("X2", 200*time.Second)}}
		pol, err := NewLSS(&cfg, LSSOptions{PhaseTaskTimeHints: true, RawPhaseHints: raw})
		if err != nil {
			t.Fatal(err)
		}
		var mapHint, redHint time.Duration
		var ok0, ok1 bool
		cfg.AfterEvent = func(s *sim.Sim) error {
			if j := s.Job(0); j.Active() {
				if _, ok := pol.jobs.row(j).job.PhaseTaskTimeHint(1); ok {
					t.Errorf("first job of the class hinted")
				}
			}
			if j := s.Job(1); j.Active() && pol.jobs.row(j).job != nil {
				mapHint, ok0 = pol.jobs.row(j).job.PhaseTaskTimeHint(0)
				redHint, ok1 = pol.jobs.row(j).job.PhaseTaskTimeHint(1)
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

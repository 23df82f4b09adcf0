package fgm_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// A key poisoned by one outlier recovers within a bounded number of
// completions. The History (Smoothing 0.3) learned three tasks of 1 core
// and 2 GB for 10 s, then one observation of 60 cores (a History fed
// elsewhere: fgm itself refuses a sample above its node's 16 cores), so
// it predicts 1 + 0.3 × 59 = 18.7 cores, more than any server has.
//
//   - The next task is placed at once, at its request (Mode Requested,
//     Reason EstimateFitsNoServer), not left pending.
//   - Each completion moves the prediction by 0.3 towards the truth: 1
//     completion brings it to 13.4 cores (it fits: the estimate is used
//     again), 15 to within 10% of 1 core.
func TestPoisonedKeyRecovers(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 2, resource.Vector{16, 64, 100})
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
	if err != nil {
		t.Fatal(err)
	}
	key := schedkit.SimilarityKey{Logic: "wc/map", DataSize: 1}
	run := func(cpu float64) []estimate.UsageSample {
		var u []estimate.UsageSample
		for range 10 {
			u = append(u, estimate.UsageSample{Duration: time.Second, Used: resource.Vector{cpu, 2, 0}})
		}
		return u
	}
	for range 3 {
		if _, err := h.Observe(key, run(1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Observe(key, run(60)); err != nil {
		t.Fatal(err)
	}
	s := newSched(t, c, fgm.Config{History: h, LocalityWait: -1})
	peak := func() float64 {
		p, _ := h.Predict(key)
		v := space.Zero()
		p.Peak(v)
		return v[0]
	}
	if p := peak(); p < 18.6 || p > 18.8 {
		t.Fatalf("poisoned peak %v, want 18.7", p)
	}
	now := t0
	usedAgain, close := -1, -1
	for done := 0; done < 30 && close < 0; done++ {
		id := schedkit.TaskID(fmt.Sprintf("t%d", done))
		submit(t, s, now, &fgmtest.Task{Task: schedkittest.Task{Key: id, JobKey: "j", Similar: key, Request: resource.Vector{2, 4, 0}}})
		ds := schedule(t, s, now, "n00")
		if len(ds) != 1 {
			t.Fatalf("completion %d: task not placed at once: %v", done, ds)
		}
		d := ds[0]
		switch {
		case done == 0 && (d.Mode != fgm.Requested || d.Reason != fgm.EstimateFitsNoServer):
			t.Fatalf("first task after poisoning: %v, want requested (estimate fits no server)", d)
		case d.Mode == fgm.FineGrained && usedAgain < 0:
			usedAgain = done
		}
		for range 10 {
			now = now.Add(time.Second)
			if err := s.SampleTask(now, id, resource.Vector{1, 2, 0}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Release(now, id, true); err != nil {
			t.Fatal(err)
		}
		if peak() <= 1.1 {
			close = done + 1
		}
	}
	t.Logf("poisoned peak 18.7 cores; estimate used again at completion %d; within 10%% after %d completions", usedAgain, close)
	if usedAgain != 1 || close != 15 {
		t.Errorf("estimate used again after %d completions (want 1), within 10%% after %d (want 15)", usedAgain, close)
	}
}

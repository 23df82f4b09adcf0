package lss_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/lss"
)

// TestPhaseWaves checks the wave models of WaveRemaining and
// OptimisticKill on worked numbers: task time 10 s, running tasks that
// all started at the job's submission (so each has run sinceSubmit).
func TestPhaseWaves(t *testing.T) {
	const tt = 10 * sec
	slots := func(n int64) estimate.Capacity { return estimate.Capacity(n) * estimate.Slot }
	tests := []struct {
		name                string
		total, running, fin int
		since               time.Duration
		cap                 estimate.Capacity
		wave, opt           time.Duration // Work − Credit
		waveCredit          time.Duration
	}{
		// Formula (3): ⌈600/1200⌉·10 − 600·9/1200 = 5.5 s; the last wave
		// really needs 1 s.
		{"one wave, all running, 90% done", 600, 600, 0, 9 * sec, slots(1200), 1 * sec, 1 * sec, 9 * sec},
		{"nothing running: ⌈25/10⌉ waves", 25, 0, 0, 0, slots(10), 30 * sec, 30 * sec, 0},
		// All 10 slots busy, 4 s done: 6 s, then ⌈5/10⌉ wave; the
		// optimistic bound runs the 5 beside them.
		{"all slots busy, 5 pending", 15, 10, 0, 4 * sec, slots(10), 16 * sec, 10 * sec, 4 * sec},
		// 6 free slots take the 3 pending now: one wave of 10 s.
		{"pending fit the free slots", 7, 4, 0, 4 * sec, slots(10), 10 * sec, 10 * sec, 0},
		// 6 of 20 pending start now; ⌈14/10⌉ = 2 waves follow.
		{"pending beyond the free slots", 24, 4, 0, 4 * sec, slots(10), 30 * sec, 20 * sec, 0},
		{"running longer than the task time", 3, 2, 1, 12 * sec, slots(10), 0, 0, 10 * sec},
		{"fractional capacity (heterogeneous)", 3, 0, 0, 0, 1500, 20 * sec, 20 * sec, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := schedkit.PhaseProgress{Total: tc.total, Running: tc.running, Finished: tc.fin, FinishedDurationSum: time.Duration(tc.fin) * tt}
			w, c, ok := lss.PhaseWaves(false, pr, tc.since, tt, tc.cap)
			if !ok || w-c != tc.wave || c != tc.waveCredit {
				t.Errorf("wave model: work %v credit %v (ok %v), want time %v credit %v", w, c, ok, tc.wave, tc.waveCredit)
			}
			w, c, ok = lss.PhaseWaves(true, pr, tc.since, tt, tc.cap)
			if !ok || w-c != tc.opt {
				t.Errorf("optimistic model: work %v credit %v (ok %v), want time %v", w, c, ok, tc.opt)
			}
		})
	}
	pr := schedkit.PhaseProgress{Total: 1 << 40}
	if _, _, ok := lss.PhaseWaves(false, pr, 0, estimate.Horizon/2, estimate.Slot); ok {
		t.Error("work beyond estimate.Horizon: ok, want not")
	}
}

// The wrong kill the options remove, in the form the FB-2009 replay
// shows it (see the package doc): 600 workers × (2 map + 2 reduce), a job
// of 100 maps with 98 finished in 20 s each and its last 2 running for
// 15 s, its single reduce started early (slow-start), 15 s to its
// deadline. Formula (3) gives each phase a whole wave of Tavg = 20 s and
// credits the running tasks only ΣR/S with S = 1,200 slots: remaining
// 39.9375 s, Spare + Tavg = 15 − 39.9375 + 20 < 0, killed. The maps need
// 5 s more; the reduce's time is unknown (a reduce is not a map).
func TestWaveOptionsSpareTheLastWave(t *testing.T) {
	job := func() *hostJob {
		return pjob("j", 0, 70*sec,
			schedkit.PhaseProgress{Total: 100, Running: 2, Finished: 98, FinishedDurationSum: 98 * 20 * sec, RunningStartSum: 2 * 40 * sec},
			schedkit.PhaseProgress{Total: 1, Running: 1, RunningStartSum: 10 * sec})
	}
	for _, tc := range []struct {
		name string
		cfg  lss.Config
		want string
	}{
		{"paper", lss.Config{}, "kill j: spare+tavg<0 (spare -24.9375s, tavg 20s)\n"},
		{"waves", lss.Config{WaveRemaining: true}, ""}, // remaining 5 s: spare 10 s
		{"recommended", lss.Recommended(), ""},         // optimistic 5 s: 15 − 5 ≥ 0
		{"soft with optimistic kill", lss.Config{OptimisticKill: true, SoftDeadlines: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			both(t, func(t *testing.T, lit bool) {
				cl := newCluster(600, 2, 2, 0)
				cfg := tc.cfg
				cfg.Cluster, cfg.Literal = cl, lit
				s := mustNew(t, cfg)
				mustSubmit(t, s, at(55*sec), job())
				expect(t, heartbeat(t, s, at(55*sec), cl.NodeList[0]), tc.want)
			})
		})
	}
}

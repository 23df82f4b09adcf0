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

package fgm_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// TestSamplingPeriodEstimateError measures what host duty 4 says of the
// sampling period: a task of three stages (read: 4 cores, 2 units of
// memory; compute: 1 core, 6 units; write: 8 cores, 1 unit; lengths in
// the ratio 1:2:1) runs five times on one server, sampled every period
// from its start as a node agent would (each sample the average since
// the previous one; the tail after the last sample is never reported),
// and the History's prediction is compared with the truth: the relative
// L1 error of each kind's demand over time, averaged over the kinds. A
// 15 s period must predict a 40 s task worse than a 3 s period does, and
// a 4-minute task better than it predicts the 40 s one.
func TestSamplingPeriodEstimateError(t *testing.T) {
	errOf := func(length, period time.Duration) float64 {
		return samplingError(t, length, period)
	}
	short, long := 40*time.Second, 250*time.Second
	e := map[string]float64{}
	for _, length := range []time.Duration{short, long} {
		for _, period := range []time.Duration{3 * time.Second, 15 * time.Second} {
			k := fmt.Sprintf("task %v, period %v", length, period)
			e[k] = errOf(length, period)
			t.Logf("%s: prediction error %.3f", k, e[k])
		}
	}
	if !(e["task 40s, period 15s"] > e["task 40s, period 3s"]) {
		t.Errorf("15 s samples predict a 40 s task no worse than 3 s ones: %v", e)
	}
	if !(e["task 4m10s, period 15s"] < e["task 40s, period 15s"]) {
		t.Errorf("15 s samples predict a 250 s task no better than a 40 s one: %v", e)
	}
}

// samplingError runs TestSamplingPeriodEstimateError's task of the given
// length five times, sampled every period, and returns the prediction's
// error.
func samplingError(t *testing.T, length, period time.Duration) float64 {
	t.Helper()
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 16, 100})
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
	if err != nil {
		t.Fatal(err)
	}
	s, err := fgm.New(fgm.Config{Cluster: c, History: h})
	if err != nil {
		t.Fatal(err)
	}
	q := length / 4
	truth := []estimate.Stage{
		{Duration: q, Demand: resource.Vector{4, 2, 0}},
		{Duration: 2 * q, Demand: resource.Vector{1, 6, 0}},
		{Duration: q, Demand: resource.Vector{8, 1, 0}},
	}
	key := schedkit.SimilarityKey{Logic: "three-stage", DataSize: 1}
	now := fgmtest.T0
	for run := range 5 {
		tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("t", run)), JobKey: "j", Similar: key, Request: resource.Vector{8, 6, 0}}}
		if err := s.Submit(now, tk); err != nil {
			t.Fatal(err)
		}
		ds, err := s.Schedule(now, c.NodeList[0], nil)
		if err != nil || len(ds) != 1 {
			t.Fatalf("run %d: %v, %d placed", run, err, len(ds))
		}
		for at := period; at <= length; at += period {
			used := space.Zero()
			for k := range used {
				used[k] = integral(truth, k, at-period, at) / period.Seconds()
			}
			if err := s.SampleTask(now.Add(at), tk.Key, used); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(length)
		if err := s.Release(now, tk.Key, true); err != nil {
			t.Fatal(err)
		}
	}
	p, ok := h.Predict(key)
	if !ok {
		return math.Inf(1)
	}
	// The relative L1 error per kind, over the longer of the two
	// profiles, on a grid of 100 ms.
	span := max(length, p.Duration())
	const step = 100 * time.Millisecond
	var sum float64
	for k := range 2 {
		var diff, total float64
		for at := time.Duration(0); at < span; at += step {
			diff += math.Abs(integral(p.Stages, k, at, at+step) - integral(truth, k, at, at+step))
			total += integral(truth, k, at, at+step)
		}
		sum += diff / total
	}
	return sum / 2
}

// integral returns ∫ demand of kind k over [from, to) of a profile that
// starts at 0 (0 after its end), in amount × seconds.
func integral(stages []estimate.Stage, k int, from, to time.Duration) float64 {
	var x float64
	start := time.Duration(0)
	for _, st := range stages {
		end := start + st.Duration
		if lo, hi := max(from, start), min(to, end); hi > lo {
			x += st.Demand[k] * (hi - lo).Seconds()
		}
		start = end
	}
	return x
}

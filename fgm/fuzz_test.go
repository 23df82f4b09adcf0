package fgm_test

import (
	"encoding/binary"
	"errors"
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

// FuzzScheduler drives every host entry point with arbitrary input
// (amounts from raw float bits: NaN, infinities, negatives; times that
// go backwards; unknown tasks and nodes; estimates with negative or NaN
// stages) and checks that a call either succeeds or returns an *fgm.Error
// and leaves the state unchanged, never panics, and never decides NaN.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 2, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 3, 4, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		space := testSpace(t)
		c := newCluster(space, 2, resource.Vector{16, 32, 200})
		s, err := fgm.New(fgm.Config{Cluster: c, Estimator: fgmtest.Oracle{}})
		if err != nil {
			t.Fatal(err)
		}
		pos := 0
		next := func() byte {
			if pos >= len(data) {
				return 0
			}
			pos++
			return data[pos-1]
		}
		float := func() float64 {
			if pos+8 > len(data) {
				return float64(next())
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(data[pos:]))
			pos += 8
			return v
		}
		now := time.Duration(0)
		ids := 0
		for pos < len(data) {
			before := snapshot(s, c, t0.Add(now))
			var err error
			switch next() % 9 {
			case 0, 1:
				ids++
				tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint(ids)), JobKey: schedkit.JobID(fmt.Sprint(next() % 3)), Request: resource.Vector{float(), float(), 0}}}
				if next()%2 == 0 {
					tk.Usage = []estimate.Stage{{Duration: time.Duration(int8(next())) * time.Second, Demand: resource.Vector{float(), float(), 0}}}
				}
				err = s.Submit(t0.Add(now), tk)
			case 2:
				var ds []fgm.Decision
				ds, err = s.Schedule(t0.Add(now), c.NodeList[next()%2], nil)
				for _, d := range ds {
					for _, p := range d.Plan {
						for _, x := range p.Alloc {
							if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
								t.Fatalf("bad allocation %v", d)
							}
						}
					}
				}
			case 3:
				err = s.Release(t0.Add(now), schedkit.TaskID(fmt.Sprint(next()%8)), next()%2 == 0)
			case 4:
				err = s.SampleNode(t0.Add(now), c.NodeList[next()%2].Key, resource.Vector{float(), float(), 0})
			case 5:
				_, err = s.Tick(t0.Add(now), nil)
			case 6:
				now += time.Duration(int8(next())) * time.Second // may go backwards
				continue
			case 7:
				err = s.Withdraw(schedkit.TaskID(fmt.Sprint(next() % 8)))
			case 8:
				err = s.SampleTask(t0.Add(now), schedkit.TaskID(fmt.Sprint(next()%8)), resource.Vector{float(), float(), 0})
			}
			if err != nil {
				if _, ok := err.(*fgm.Error); !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				if after := snapshot(s, c, t0.Add(max(now, 0))); fmt.Sprint(after) != fmt.Sprint(before) {
					// Free(now) itself may fail when now went backwards: compare only when readable.
					if now >= 0 {
						t.Fatalf("failed call changed state: %v → %v (%v)", before, after, err)
					}
				}
			}
		}
	})
}

// FuzzConformity: formula (16) on arbitrary segments is an error or a
// finite, non-negative figure.
func FuzzConformity(f *testing.F) {
	f.Add(int64(1e9), 10.0, 9.0, 0.0, int64(2e9), 8.0, 9.0, 1.0, 10.0, 0.05)
	f.Fuzz(func(t *testing.T, d1 int64, u1, p1, i1 float64, d2 int64, u2, p2, i2, n, th float64) {
		c, err := fgm.Conformity([]fgm.Segment{
			{Duration: time.Duration(d1), Used: u1, Predicted: p1, Idle: i1},
			{Duration: time.Duration(d2), Used: u2, Predicted: p2, Idle: i2},
		}, n, th)
		if err != nil {
			return
		}
		if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
			t.Fatalf("conformity %v", c)
		}
	})
}

// FuzzFit gives Fit arbitrary servers and tasks (amounts from raw float
// bits, stages of any length and sign, free timelines with negative or
// NaN pieces refused by the timeline itself): it returns a Verdict or an
// *fgm.Error, never panics, and a StageMatch refusal names a stage of
// the task.
func FuzzFit(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"), true)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 2, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f, 3}, false)
	space := testSpace(f)
	fitter, err := fgm.NewFitter(fgm.FitConfig{Space: space})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, measured bool) {
		pos := 0
		next := func() byte {
			if pos >= len(data) {
				return 0
			}
			pos++
			return data[pos-1]
		}
		float := func() float64 {
			if pos+8 > len(data) {
				return float64(next())
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(data[pos:]))
			pos += 8
			return v
		}
		vec := func() resource.Vector { return resource.Vector{float(), float(), float()} }
		capacity := resource.Vector{16, 32, 200}
		if next()%4 == 0 {
			capacity = vec()
		}
		free, err := resource.NewTimeline(capacity)
		if err != nil {
			return
		}
		for range next() % 4 {
			a := time.Duration(int8(next())) * time.Second
			_ = free.Sub(a, a+time.Duration(next())*time.Second, vec())
		}
		var stages []estimate.Stage
		if next()%3 > 0 {
			for range next() % 4 {
				stages = append(stages, estimate.Stage{Duration: time.Duration(int8(next())) * time.Second, Demand: vec()})
			}
			if stages == nil {
				stages = []estimate.Stage{}
			}
		}
		srv := fgm.Server{Capacity: capacity, Free: free, Measured: measured, Used: vec(), Placed: vec()}
		rates := make([]float64, len(stages)*3)
		v, err := fitter.Fit(srv, time.Time{}.Add(time.Duration(int8(next()))*time.Second), stages, vec(), rates)
		if err != nil {
			var e *fgm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *fgm.Error", err)
			}
			return
		}
		if v.Test == fgm.StageMatch && (v.Refusal.Stage < 0 || v.Refusal.Stage >= len(stages)) {
			t.Fatalf("refusal %+v outside %d stages", v.Refusal, len(stages))
		}
	})
}

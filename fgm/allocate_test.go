package fgm_test

import (
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// The allocation floor, worked: a task requesting 2 cores, 4 GB and
// 100 MB/s of disk, predicted to read (0.2 cores, 2 GB, 80 MB/s) for
// 3 s and then compute (1 core, 3 GB, no disk) for 25 s. Every step
// allocates each compressible kind (CPU, disk) at least 1 −
// CompressionLimit of the request; memory, incompressible, gets its
// prediction; what the timeline reserves (Reserved) is the prediction
// whatever the allocation.
func TestAllocFloor(t *testing.T) {
	space := testSpace(t)
	req := resource.Vector{2, 4, 100}
	pred := []estimate.Stage{st(3*time.Second, 0.2, 2, 80), st(25*time.Second, 1, 3, 0)}
	high := []estimate.Stage{st(3*time.Second, 3, 2, 150), st(25*time.Second, 1, 3, 0)}
	for _, tc := range []struct {
		name   string
		cfg    fgm.Config
		stages []estimate.Stage // nil: unpredictable
		mode   fgm.Mode
		alloc  []resource.Vector
	}{
		{"default: 0.9 of the request", fgm.Config{}, pred, fgm.FineGrained,
			[]resource.Vector{{1.8, 2, 90}, {1.8, 3, 90}}},
		{"limit 30%: 0.7 of the request", fgm.Config{CompressionLimit: 0.3}, pred, fgm.FineGrained,
			[]resource.Vector{{1.4, 2, 80}, {1.4, 3, 70}}},
		{"CapAtRequest: the whole request", fgm.Config{CapAtRequest: true}, pred, fgm.FineGrained,
			[]resource.Vector{{2, 2, 100}, {2, 3, 100}}},
		{"NoCompression: no compression by the allocation either", fgm.Config{Ablations: fgm.Ablations{NoCompression: true}}, pred, fgm.FineGrained,
			[]resource.Vector{{2, 2, 100}, {2, 3, 100}}},
		{"NoAllocFloor: the prediction as printed", fgm.Config{Ablations: fgm.Ablations{NoAllocFloor: true}}, pred, fgm.FineGrained,
			[]resource.Vector{{0.2, 2, 80}, {1, 3, 0}}},
		{"a prediction above the request is kept", fgm.Config{}, high, fgm.FineGrained,
			[]resource.Vector{{3, 2, 150}, {1.8, 3, 90}}},
		{"coarse-grained: one step at the peak", fgm.Config{Ablations: fgm.Ablations{CoarseOnly: true}}, pred, fgm.CoarseGrained,
			[]resource.Vector{{1.8, 3, 90}}},
		{"unpredictable: the request", fgm.Config{}, nil, fgm.Requested,
			[]resource.Vector{{2, 4, 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(space, 1, resource.Vector{16, 32, 200})
			cfg := tc.cfg
			cfg.LocalityWait = -1
			s := newSched(t, c, cfg)
			submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: req}, Usage: tc.stages})
			ds := schedule(t, s, t0, "n00")
			if len(ds) != 1 || ds[0].Mode != tc.mode || len(ds[0].Plan) != len(tc.alloc) {
				t.Fatalf("got %v, want one %v placement of %d steps", ds, tc.mode, len(tc.alloc))
			}
			for i, step := range ds[0].Plan {
				for k, want := range tc.alloc[i] {
					if math.Abs(step.Alloc[k]-want) > 1e-9 {
						t.Errorf("step %d allocates %v, want %v", i, step.Alloc, tc.alloc[i])
						break
					}
				}
				if tc.mode == fgm.FineGrained && !step.Reserved.Equal(tc.stages[i].Demand) {
					t.Errorf("step %d reserves %v, want the prediction %v", i, step.Reserved, tc.stages[i].Demand)
				}
			}
		})
	}
}

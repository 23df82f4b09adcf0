package workload

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/resource"
)

func TestSlotShaper(t *testing.T) {
	s, err := NewSlotShaper(SlotSpace())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind TaskKind
		want resource.Vector
	}{
		{MapTask, resource.Vector{1, 0}},
		{ReduceTask, resource.Vector{0, 1}},
		{ComputeTask, resource.Vector{1, 0}},
	}
	for _, tt := range tests {
		req, prof, err := ShapeTask(s, tt.kind, 7*time.Second, 123)
		if err != nil {
			t.Fatal(err)
		}
		want := []Stage{{Duration: 7 * time.Second, Demand: tt.want}}
		if !req.Equal(tt.want) || !cmp.Equal(prof, want) {
			t.Errorf("%v: req %v profile %v, want %v for 7s", tt.kind, req, prof, tt.want)
		}
	}
	if _, err := NewSlotShaper(MultiSpace()); !errors.Is(err, ErrConfig) {
		t.Errorf("space without slots: %v", err)
	}
}

func TestMultiShaperWorked(t *testing.T) {
	s, err := NewMultiShaper(MultiSpace(), DefaultMultiConfig())
	if err != nil {
		t.Fatal(err)
	}
	const gib = float64(GiB)
	// Order: cpu, memory, disk-bw, net-bw.
	tests := []struct {
		name     string
		kind     TaskKind
		d        time.Duration
		data     int64
		stages   []Stage
		req      resource.Vector
		tolerate float64
	}{
		{
			// read 30% = 3 s at 30 MiB / 3 s = 10 MiB/s, 0.3 cores, 1 GiB;
			// compute 7 s at 1 core, 1.25 GiB. Requested = peak × 1.2.
			name: "map 10s 30MiB", kind: MapTask, d: 10 * time.Second, data: 30 * MiB,
			stages: []Stage{
				{3 * time.Second, resource.Vector{0.3, gib, 10 * MiB, 0}},
				{7 * time.Second, resource.Vector{1, 1.25 * gib, 0, 0}},
			},
			req: resource.Vector{1.2, 1.5 * gib, 12 * MiB, 0},
		},
		{
			// shuffle 40% = 4 s at 40 MiB / 4 s = 10 MiB/s net; compute 4 s;
			// write 20% = 2 s at 40 MiB / 2 s = 20 MiB/s disk; memory 2 GiB,
			// 2.5 GiB computing.
			name: "reduce 10s 40MiB", kind: ReduceTask, d: 10 * time.Second, data: 40 * MiB,
			stages: []Stage{
				{4 * time.Second, resource.Vector{0.3, 2 * gib, 0, 10 * MiB}},
				{4 * time.Second, resource.Vector{1, 2.5 * gib, 0, 0}},
				{2 * time.Second, resource.Vector{0.3, 2 * gib, 20 * MiB, 0}},
			},
			req: resource.Vector{1.2, 3 * gib, 24 * MiB, 12 * MiB},
		},
		{
			// 1 GiB read in 0.3 s would be 3.3 GiB/s: capped at 150 MiB/s.
			name: "map disk capped", kind: MapTask, d: time.Second, data: GiB,
			stages: []Stage{
				{300 * time.Millisecond, resource.Vector{0.3, gib, 150 * MiB, 0}},
				{700 * time.Millisecond, resource.Vector{1, 1.25 * gib, 0, 0}},
			},
			req: resource.Vector{1.2, 1.5 * gib, 180 * MiB, 0},
		},
		{
			name: "compute one stage", kind: ComputeTask, d: 5 * time.Second,
			stages: []Stage{{5 * time.Second, resource.Vector{1, 1.25 * gib, 0, 0}}},
			req:    resource.Vector{1.2, 1.5 * gib, 0, 0},
		},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) })
	for _, tt := range tests {
		req, prof, err := ShapeTask(s, tt.kind, tt.d, tt.data)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.stages, prof, approx); diff != "" {
			t.Errorf("%s: profile (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.req, req, approx); diff != "" {
			t.Errorf("%s: requested (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestMultiShaperMixedSpace(t *testing.T) {
	// A Space holding slots and a custom kind: slots get 1 (integral, so
	// padding rounds 1.2 up to 2 — the user declares 2), the custom kind 0.
	gpuish := resource.Kind{Name: "licence", Integral: true}
	space, err := resource.NewSpace(resource.Memory, resource.MapSlot, resource.CPU, gpuish, resource.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewMultiShaper(space, DefaultMultiConfig())
	if err != nil {
		t.Fatal(err)
	}
	req, prof, err := ShapeTask(s, ReduceTask, 10*time.Second, MiB)
	if err != nil {
		t.Fatal(err)
	}
	if req[1] != 0 || req[4] != 2 || req[3] != 0 || prof[0].Demand[4] != 1 {
		t.Fatalf("req %v, first stage %v", req, prof[0].Demand)
	}
	if err := space.Validate(req); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMultiShaper(SlotSpace(), DefaultMultiConfig()); !errors.Is(err, ErrConfig) {
		t.Fatalf("space without cpu/memory: %v", err)
	}
	bad := DefaultMultiConfig()
	bad.ReduceShuffleFraction, bad.ReduceWriteFraction = 0.6, 0.5
	if _, err := NewMultiShaper(MultiSpace(), bad); !errors.Is(err, ErrRange) {
		t.Fatalf("fractions over 1: %v", err)
	}
	bad = DefaultMultiConfig()
	bad.Padding = math.NaN()
	if _, err := NewMultiShaper(MultiSpace(), bad); !errors.Is(err, ErrRange) {
		t.Fatalf("NaN padding: %v", err)
	}
}

// Property: for any duration and data size, stages sum to the duration,
// every vector is valid in the Space, and Requested covers every stage.
func TestShapersProperty(t *testing.T) {
	slot, _ := NewSlotShaper(SlotSpace())
	multi, _ := NewMultiShaper(MultiSpace(), DefaultMultiConfig())
	rng := seeded(9)
	for i := range 5000 {
		d := time.Duration(1 + rng.Int64N(int64(time.Hour)))
		data := rng.Int64N(10 * GiB)
		kind := TaskKind(i % 3)
		for _, s := range []Shaper{slot, multi} {
			req, prof, err := ShapeTask(s, kind, d, data)
			if err != nil {
				t.Fatal(err)
			}
			var sum time.Duration
			for _, st := range prof {
				sum += st.Duration
				if st.Duration < 0 {
					t.Fatalf("negative stage %v", st.Duration)
				}
				if err := s.Space().Validate(st.Demand); err != nil {
					t.Fatal(err)
				}
				if fits, _ := st.Demand.Fits(req); !fits {
					t.Fatalf("%v %v: stage %v exceeds request %v", kind, d, st.Demand, req)
				}
			}
			if sum != d {
				t.Fatalf("%v: stages sum to %v, want %v", kind, sum, d)
			}
			if err := s.Space().Validate(req); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestShapeArgErrors(t *testing.T) {
	s, _ := NewSlotShaper(SlotSpace())
	if _, _, err := ShapeTask(s, MapTask, 0, 0); !errors.Is(err, ErrRange) {
		t.Errorf("zero duration: %v", err)
	}
	if _, _, err := ShapeTask(s, TaskKind(9), time.Second, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("bad kind: %v", err)
	}
	if err := s.Shape(MapTask, time.Second, 0, make(resource.Vector, 3), make([]Stage, 1)); !errors.Is(err, ErrConfig) {
		t.Errorf("short storage: %v", err)
	}
}

package workload

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// A Shaper turns a task known only by its kind, duration and data size
// into what the simulator needs: the Requested vector a user would declare
// and the true stage Profile, both in one resource Space. Kind indices are
// resolved from the Space once, when the Shaper is built.
//
// Shape writes into storage the caller provides, so that a reader can lay
// out hundreds of thousands of tasks in a few large allocations.
type Shaper interface {
	// Space is the Space every vector written by Shape belongs to.
	Space() *resource.Space
	// Stages returns the number of profile stages Shape writes for a task
	// of this kind (≥ 1).
	Stages(kind TaskKind) int
	// Shape writes the requested quantity into req and the true profile
	// into prof. req has length Space().Len() and is all zero; prof has
	// length Stages(kind) and every prof[i].Demand has length
	// Space().Len() and is all zero. The stage durations Shape writes sum
	// to exactly d. dataBytes is the task's input (map: split bytes;
	// reduce: shuffled bytes; compute: ignored).
	Shape(kind TaskKind, d time.Duration, dataBytes int64, req resource.Vector, prof []Stage) error
	// Assumptions describes the shaping rule, one line each.
	Assumptions() []string
}

// ShapeTask is a convenience that allocates and returns the Requested
// vector and Profile of one task shaped by s.
func ShapeTask(s Shaper, kind TaskKind, d time.Duration, dataBytes int64) (resource.Vector, []Stage, error) {
	n := s.Space().Len()
	req := make(resource.Vector, n)
	prof := make([]Stage, s.Stages(kind))
	for i := range prof {
		prof[i].Demand = make(resource.Vector, n)
	}
	if err := s.Shape(kind, d, dataBytes, req, prof); err != nil {
		return nil, nil, err
	}
	return req, prof, nil
}

// SlotSpace returns a new Space of the Hadoop-1 slot kinds, in the order
// resource.MapSlot, resource.ReduceSlot. It is the Space generators use
// when no Shaper is configured.
func SlotSpace() *resource.Space {
	s, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		panic(err) // unreachable: two distinct, named kinds
	}
	return s
}

// MultiSpace returns a new Space of the four kinds the multi-resource
// model uses, in the order CPU, Memory, DiskBandwidth, NetworkBandwidth.
func MultiSpace() *resource.Space {
	s, err := resource.NewSpace(resource.CPU, resource.Memory, resource.DiskBandwidth, resource.NetworkBandwidth)
	if err != nil {
		panic(err) // unreachable: four distinct, named kinds
	}
	return s
}

// SlotShaper is the Hadoop-1 slot model: a map task requests one MapSlot, a
// reduce task one ReduceSlot, and a compute task (one SWF processor) one
// MapSlot; the true profile is one stage holding exactly the request for
// the whole duration. Safe for concurrent use.
type SlotShaper struct {
	space          *resource.Space
	mapIdx, redIdx int
}

var _ Shaper = (*SlotShaper)(nil)

// NewSlotShaper returns a SlotShaper over space, which must contain kinds
// named resource.MapSlot.Name and resource.ReduceSlot.Name (any position;
// other kinds stay zero).
func NewSlotShaper(space *resource.Space) (*SlotShaper, error) {
	if space == nil {
		return nil, configErr("SlotShaper.Space", ErrConfig, "nil space")
	}
	m, ok := space.Index(resource.MapSlot.Name)
	if !ok {
		return nil, configErr("SlotShaper.Space", ErrConfig, "no %q kind", resource.MapSlot.Name)
	}
	r, ok := space.Index(resource.ReduceSlot.Name)
	if !ok {
		return nil, configErr("SlotShaper.Space", ErrConfig, "no %q kind", resource.ReduceSlot.Name)
	}
	return &SlotShaper{space: space, mapIdx: m, redIdx: r}, nil
}

// Space returns the shaper's Space.
func (s *SlotShaper) Space() *resource.Space { return s.space }

// Stages returns 1 for every kind.
func (s *SlotShaper) Stages(TaskKind) int { return 1 }

// Shape requests one slot of the task's kind for its whole duration.
func (s *SlotShaper) Shape(kind TaskKind, d time.Duration, _ int64, req resource.Vector, prof []Stage) error {
	if err := checkShapeArgs(s.space, s, kind, d, req, prof); err != nil {
		return err
	}
	i := s.mapIdx
	if kind == ReduceTask {
		i = s.redIdx
	}
	req[i] = 1
	prof[0].Duration = d
	prof[0].Demand[i] = 1
	return nil
}

// Assumptions describes the slot model.
func (s *SlotShaper) Assumptions() []string {
	return []string{"shape: slot model; map and compute tasks request 1 map-slot, reduce tasks 1 reduce-slot; true profile = request for the whole duration"}
}

// MultiConfig parameterises the multi-resource model. Fractions split a
// task's duration into stages; demands are per task. Bandwidth demands are
// the task's bytes over its I/O stage's length, capped.
type MultiConfig struct {
	// MapReadFraction is the share of a map's time spent reading its split
	// (disk-heavy); the rest is the compute stage (CPU-heavy).
	MapReadFraction float64
	// ReduceShuffleFraction and ReduceWriteFraction split a reduce into
	// shuffle (network), compute (CPU) and write (disk) stages.
	ReduceShuffleFraction, ReduceWriteFraction float64
	// IOCPU is the cores used during an I/O stage; ComputeCPU during a
	// compute stage (map, reduce or SWF processor).
	IOCPU, ComputeCPU float64
	// MapMemory, ReduceMemory and ComputeMemory are the bytes a task holds
	// during its I/O stages; compute stages hold (1+MemoryGrowth) times as
	// much ("constant-ish" memory).
	MapMemory, ReduceMemory, ComputeMemory float64
	MemoryGrowth                           float64
	// DiskCap and NetCap cap a stage's bandwidth demand in bytes/s (0: no
	// cap). A map with no data still reads nothing: its read stage demands
	// IOCPU only.
	DiskCap, NetCap float64
	// Padding is how much users over-declare: Requested = peak of the
	// profile × (1 + Padding) per kind, rounded up for integral kinds.
	Padding float64
}

// DefaultMultiConfig returns the model used for fgm/DRF experiments,
// sized after paper 004's servers (16 cores, 32 GB, SAS disks, 1 Gb/s):
// maps read for 30% of their time then compute; reduces shuffle 40%,
// compute 40%, write 20%; I/O stages use 0.3 cores, compute stages 1 core;
// map 1 GiB, reduce 2 GiB, compute 1 GiB of memory, +25% while computing;
// disk capped at 150 MiB/s, network at 110 MiB/s; requests padded by 20%.
func DefaultMultiConfig() MultiConfig {
	return MultiConfig{
		MapReadFraction:       0.3,
		ReduceShuffleFraction: 0.4,
		ReduceWriteFraction:   0.2,
		IOCPU:                 0.3,
		ComputeCPU:            1,
		MapMemory:             1 << 30,
		ReduceMemory:          2 << 30,
		ComputeMemory:         1 << 30,
		MemoryGrowth:          0.25,
		DiskCap:               150 * MiB,
		NetCap:                110 * MiB,
		Padding:               0.2,
	}
}

// MultiShaper is the multi-resource model (cpu, memory, disk and network
// bandwidth) with stage profiles:
//
//	map:     read (IOCPU, disk = split/readTime)  → compute (ComputeCPU)
//	reduce:  shuffle (IOCPU, net = bytes/shuffleTime) → compute (ComputeCPU)
//	         → write (IOCPU, disk = bytes/writeTime)
//	compute: one stage (ComputeCPU)
//
// Memory is held through every stage, (1+MemoryGrowth)× in compute
// stages. Requested is the padded peak. Kinds absent from the Space are
// skipped (CPU and Memory are required); map-slot and reduce-slot kinds, if
// present, get 1 for tasks of their kind as in the slot model. Safe for
// concurrent use.
type MultiShaper struct {
	space               *resource.Space
	cfg                 MultiConfig
	cpu, mem, disk, net int // -1 when absent
	mapSlot, redSlot    int // -1 when absent
	integral            []bool
}

var _ Shaper = (*MultiShaper)(nil)

// NewMultiShaper returns a MultiShaper over space with cfg, after checking
// that fractions are in [0, 1) and sum below 1 per kind, and that demands
// and caps are finite and non-negative.
func NewMultiShaper(space *resource.Space, cfg MultiConfig) (*MultiShaper, error) {
	if space == nil {
		return nil, configErr("MultiShaper.Space", ErrConfig, "nil space")
	}
	s := &MultiShaper{space: space, cfg: cfg}
	idx := func(k resource.Kind) int {
		if i, ok := space.Index(k.Name); ok {
			return i
		}
		return -1
	}
	s.cpu, s.mem, s.disk, s.net = idx(resource.CPU), idx(resource.Memory), idx(resource.DiskBandwidth), idx(resource.NetworkBandwidth)
	s.mapSlot, s.redSlot = idx(resource.MapSlot), idx(resource.ReduceSlot)
	if s.cpu < 0 || s.mem < 0 {
		return nil, configErr("MultiShaper.Space", ErrConfig, "needs %q and %q kinds", resource.CPU.Name, resource.Memory.Name)
	}
	s.integral = make([]bool, space.Len())
	for i := range s.integral {
		s.integral[i] = space.Kind(i).Integral
	}
	fr := []struct {
		name string
		v    float64
	}{
		{"MapReadFraction", cfg.MapReadFraction},
		{"ReduceShuffleFraction", cfg.ReduceShuffleFraction},
		{"ReduceWriteFraction", cfg.ReduceWriteFraction},
	}
	for _, f := range fr {
		if !(f.v >= 0 && f.v < 1) {
			return nil, configErr("MultiConfig."+f.name, ErrRange, "%v is outside [0, 1)", f.v)
		}
	}
	if cfg.ReduceShuffleFraction+cfg.ReduceWriteFraction >= 1 {
		return nil, configErr("MultiConfig.ReduceWriteFraction", ErrRange, "shuffle + write fractions %v ≥ 1", cfg.ReduceShuffleFraction+cfg.ReduceWriteFraction)
	}
	nn := []struct {
		name string
		v    float64
	}{
		{"IOCPU", cfg.IOCPU}, {"ComputeCPU", cfg.ComputeCPU},
		{"MapMemory", cfg.MapMemory}, {"ReduceMemory", cfg.ReduceMemory}, {"ComputeMemory", cfg.ComputeMemory},
		{"MemoryGrowth", cfg.MemoryGrowth}, {"DiskCap", cfg.DiskCap}, {"NetCap", cfg.NetCap}, {"Padding", cfg.Padding},
	}
	for _, f := range nn {
		if !nonNegative(f.v) || math.IsNaN(f.v) {
			return nil, configErr("MultiConfig."+f.name, ErrRange, "%v is not a finite value ≥ 0", f.v)
		}
	}
	return s, nil
}

// Space returns the shaper's Space.
func (s *MultiShaper) Space() *resource.Space { return s.space }

// Stages returns 2 for maps, 3 for reduces, 1 for compute tasks.
func (s *MultiShaper) Stages(kind TaskKind) int {
	switch kind {
	case MapTask:
		return 2
	case ReduceTask:
		return 3
	}
	return 1
}

// Shape writes the stage profile described on MultiShaper and the padded
// peak request.
func (s *MultiShaper) Shape(kind TaskKind, d time.Duration, dataBytes int64, req resource.Vector, prof []Stage) error {
	if err := checkShapeArgs(s.space, s, kind, d, req, prof); err != nil {
		return err
	}
	if dataBytes < 0 {
		return configErr("Shape.dataBytes", ErrRange, "negative %d", dataBytes)
	}
	c := &s.cfg
	data := float64(dataBytes)
	switch kind {
	case MapTask:
		splitStages(d, prof, c.MapReadFraction)
		s.set(prof[0].Demand, c.IOCPU, c.MapMemory, s.disk, bandwidth(data, prof[0].Duration, c.DiskCap), s.mapSlot)
		s.set(prof[1].Demand, c.ComputeCPU, c.MapMemory*(1+c.MemoryGrowth), -1, 0, s.mapSlot)
	case ReduceTask:
		splitStages(d, prof, c.ReduceShuffleFraction, 1-c.ReduceShuffleFraction-c.ReduceWriteFraction)
		s.set(prof[0].Demand, c.IOCPU, c.ReduceMemory, s.net, bandwidth(data, prof[0].Duration, c.NetCap), s.redSlot)
		s.set(prof[1].Demand, c.ComputeCPU, c.ReduceMemory*(1+c.MemoryGrowth), -1, 0, s.redSlot)
		s.set(prof[2].Demand, c.IOCPU, c.ReduceMemory, s.disk, bandwidth(data, prof[2].Duration, c.DiskCap), s.redSlot)
	default:
		prof[0].Duration = d
		s.set(prof[0].Demand, c.ComputeCPU, c.ComputeMemory*(1+c.MemoryGrowth), -1, 0, s.mapSlot)
	}
	for _, st := range prof {
		for i, x := range st.Demand {
			if x > req[i] {
				req[i] = x
			}
		}
	}
	for i, x := range req {
		x *= 1 + c.Padding
		if s.integral[i] {
			x = math.Ceil(x)
		}
		req[i] = x
	}
	return nil
}

func (s *MultiShaper) set(v resource.Vector, cpu, mem float64, bwIdx int, bw float64, slot int) {
	v[s.cpu] = cpu
	v[s.mem] = mem
	if bwIdx >= 0 {
		v[bwIdx] = bw
	}
	if slot >= 0 {
		v[slot] = 1
	}
}

// Assumptions describes the multi-resource model and its parameters.
func (s *MultiShaper) Assumptions() []string {
	c := s.cfg
	return []string{
		fmt.Sprintf("shape: multi-resource; map = read %g%% (%g cores, disk = split/stage time ≤ %g MiB/s) → compute (%g cores)", 100*c.MapReadFraction, c.IOCPU, c.DiskCap/MiB, c.ComputeCPU),
		fmt.Sprintf("shape: reduce = shuffle %g%% (net = bytes/stage time ≤ %g MiB/s) → compute → write %g%% (disk ≤ %g MiB/s); compute task = one stage of %g cores",
			100*c.ReduceShuffleFraction, c.NetCap/MiB, 100*c.ReduceWriteFraction, c.DiskCap/MiB, c.ComputeCPU),
		fmt.Sprintf("shape: memory map %g MiB, reduce %g MiB, compute %g MiB, ×%g in compute stages; requested = peak × %g",
			c.MapMemory/MiB, c.ReduceMemory/MiB, c.ComputeMemory/MiB, 1+c.MemoryGrowth, 1+c.Padding),
	}
}

// bandwidth is bytes over the stage's seconds, capped (cap 0: none); 0 for
// no data or an empty stage.
func bandwidth(bytes float64, d time.Duration, limit float64) float64 {
	if bytes <= 0 || d <= 0 {
		return 0
	}
	bw := bytes / d.Seconds()
	if limit > 0 && bw > limit {
		bw = limit
	}
	return bw
}

// splitStages sets prof[i].Duration to fracs[i] of d for the leading
// stages and gives the last stage the remainder, so the sum is exactly d.
func splitStages(d time.Duration, prof []Stage, fracs ...float64) {
	rest := d
	for i, f := range fracs {
		x := time.Duration(math.Round(float64(d) * f))
		if x > rest {
			x = rest
		}
		prof[i].Duration = x
		rest -= x
	}
	prof[len(prof)-1].Duration = rest
}

func checkShapeArgs(space *resource.Space, s Shaper, kind TaskKind, d time.Duration, req resource.Vector, prof []Stage) error {
	if kind > ComputeTask {
		return configErr("Shape.kind", ErrConfig, "unknown %v", kind)
	}
	if d <= 0 {
		return configErr("Shape.duration", ErrRange, "%v is not positive", d)
	}
	n := space.Len()
	if len(req) != n || len(prof) != s.Stages(kind) {
		return configErr("Shape.storage", ErrConfig, "req len %d (want %d), %d stages (want %d)", len(req), n, len(prof), s.Stages(kind))
	}
	for i := range prof {
		if len(prof[i].Demand) != n {
			return configErr("Shape.storage", ErrConfig, "stage %d demand len %d, want %d", i, len(prof[i].Demand), n)
		}
	}
	return nil
}

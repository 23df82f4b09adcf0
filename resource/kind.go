package resource

import (
	"math"
)

// Kind describes one resource dimension: what it is called, its unit, and
// how a task behaves when it gets less of it than it demands.
//
// A compressible kind (CPU time, disk or network bandwidth) given short
// makes a task run longer (paper 004 definition 1); an incompressible kind
// (memory, GPU memory, a slot) given short makes the task fail. An integral
// kind is counted in whole units (slots, devices).
type Kind struct {
	Name         string // unique within a Space, non-empty
	Unit         string // for display only
	Compressible bool   // short supply slows a task instead of failing it
	Integral     bool   // amounts must be whole numbers
}

// The predefined kinds. Users add their own by declaring a Kind value and
// listing it in a Space.
var (
	// CPU is processor time in cores; compressible.
	CPU = Kind{Name: "cpu", Unit: "cores", Compressible: true}
	// Memory is main memory in bytes; incompressible.
	Memory = Kind{Name: "memory", Unit: "bytes"}
	// DiskBandwidth is disk I/O bandwidth in bytes per second; compressible.
	DiskBandwidth = Kind{Name: "disk-bw", Unit: "bytes/s", Compressible: true}
	// NetworkBandwidth is network bandwidth in bytes per second; compressible.
	NetworkBandwidth = Kind{Name: "net-bw", Unit: "bytes/s", Compressible: true}
	// GPU is whole accelerator devices; incompressible and integral (a task
	// that needs a device cannot run on part of one).
	GPU = Kind{Name: "gpu", Unit: "devices", Integral: true}
	// GPUMemory is accelerator memory in bytes; incompressible.
	GPUMemory = Kind{Name: "gpu-memory", Unit: "bytes"}
	// MapSlot is a Hadoop-1 map slot; incompressible and integral.
	MapSlot = Kind{Name: "map-slot", Unit: "slots", Integral: true}
	// ReduceSlot is a Hadoop-1 reduce slot; incompressible and integral.
	ReduceSlot = Kind{Name: "reduce-slot", Unit: "slots", Integral: true}
)

// Space is an ordered set of kinds: element i of every Vector built for the
// Space is an amount of Kind(i). A Space is immutable after NewSpace and
// safe for concurrent use.
type Space struct {
	kinds        []Kind
	byName       map[string]int // setup-time lookups only
	compressible []bool
}

// NewSpace returns a Space over the given kinds, in that order. It fails
// with ErrKind if there are no kinds, a name is empty, or a name repeats.
func NewSpace(kinds ...Kind) (*Space, error) {
	if len(kinds) == 0 {
		return nil, errWhy("NewSpace", ErrKind, "no kinds")
	}
	s := &Space{
		kinds:        append([]Kind(nil), kinds...),
		byName:       make(map[string]int, len(kinds)),
		compressible: make([]bool, len(kinds)),
	}
	for i, k := range kinds {
		if k.Name == "" {
			return nil, errWhy("NewSpace", ErrKind, "kind %d has an empty name", i)
		}
		if _, dup := s.byName[k.Name]; dup {
			return nil, errWhy("NewSpace", ErrKind, "kind %d repeats the name %q", i, k.Name)
		}
		s.byName[k.Name] = i
		s.compressible[i] = k.Compressible
	}
	return s, nil
}

// Len returns the number of kinds.
func (s *Space) Len() int { return len(s.kinds) }

// Kind returns the i-th kind. It returns the zero Kind if i is out of range.
func (s *Space) Kind(i int) Kind {
	if i < 0 || i >= len(s.kinds) {
		return Kind{}
	}
	return s.kinds[i]
}

// Index returns the position of the kind with the given name. It uses a
// map; resolve indices once at setup, not on decision paths.
func (s *Space) Index(name string) (int, bool) {
	i, ok := s.byName[name]
	return i, ok
}

// Compressible reports whether element i is a compressible kind. It returns
// false if i is out of range.
func (s *Space) Compressible(i int) bool {
	return i >= 0 && i < len(s.compressible) && s.compressible[i]
}

// Zero returns a new all-zero vector of the Space's length.
func (s *Space) Zero() Vector { return make(Vector, len(s.kinds)) }

// New returns a vector of the given amounts after checking them with
// Validate. The amounts slice is copied.
func (s *Space) New(amounts ...float64) (Vector, error) {
	v := Vector(append([]float64(nil), amounts...))
	if err := s.Validate(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Validate checks that v has the Space's length and that every amount is
// finite, non-negative and, for integral kinds, whole.
func (s *Space) Validate(v Vector) error {
	if len(v) != len(s.kinds) {
		return errLen("Space.Validate", len(v), len(s.kinds))
	}
	if err := v.Validate(); err != nil {
		return err
	}
	for i, x := range v {
		if s.kinds[i].Integral && x != math.Trunc(x) {
			return errAt("Space.Validate", i, x, ErrNotIntegral)
		}
	}
	return nil
}

package fgm

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// naiveSamples is the reference sample buffer: UsageSamples appended
// one by one, neighbouring pairs merged when MaxSamples are held
// (formula (14), time-weighted), each Used vector a copy of its own.
type naiveSamples struct {
	max     int
	samples []estimate.UsageSample
	last    time.Duration
}

func (n *naiveSamples) add(off time.Duration, used []float64, rc float64) {
	if len(n.samples) == n.max {
		var m []estimate.UsageSample
		for i := 0; i+1 < len(n.samples); i += 2 {
			a, b := n.samples[i], n.samples[i+1]
			mean := func(x, y float64) float64 {
				var m resource.Mean
				m.Add(x, float64(a.Duration))
				m.Add(y, float64(b.Duration))
				return m.Value()
			}
			v := make(resource.Vector, len(a.Used))
			for k := range v {
				v[k] = mean(a.Used[k], b.Used[k])
			}
			m = append(m, estimate.UsageSample{Duration: a.Duration + b.Duration, Used: v, Compression: mean(a.Compression, b.Compression)})
		}
		if len(n.samples)%2 == 1 {
			m = append(m, n.samples[len(n.samples)-1])
		}
		n.samples = m
	}
	n.samples = append(n.samples, estimate.UsageSample{Duration: off - n.last, Used: resource.Vector(used).Clone(), Compression: min(max(rc, 0), 0.999)})
	n.last = off
}

// TestSampleStoreMatchesNaive is the property test of the packed sample
// records (runState.smp, addSample, usageSamples): after every sample of
// random sequences (durations from 1 ns to months, rates inside and
// outside [0, 0.999], small and large MaxSamples, one to five kinds, and
// Release's tail sample repeating the last record) the samples Observe
// would be given are bit-identical to the naive buffer's.
func TestSampleStoreMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 400 {
		dims := 1 + rng.IntN(5)
		maxS := 2 + rng.IntN(9)
		if trial%10 == 0 {
			maxS = 256
		}
		s := &Scheduler{cfg: Config{MaxSamples: maxS}, kinds: kinds{dims: dims}}
		r := new(runState)
		start := time.Duration(rng.Int64N(1 << 40))
		r.startSamples(start)
		ref := &naiveSamples{max: maxS, last: start}
		off := start
		for i := range 1 + rng.IntN(3*maxS+600) {
			switch rng.IntN(10) {
			case 0:
				off += time.Duration(1 + rng.Int64N(1<<53)) // up to 104 days
			case 1:
				off++
			default:
				off += time.Duration(1 + rng.Int64N(int64(10*time.Second)))
			}
			used := make([]float64, dims)
			for k := range used {
				used[k] = rng.Float64() * math.Pow(10, float64(rng.IntN(12)-4))
			}
			rc := rng.Float64()*1.4 - 0.2
			if i > 0 && rng.IntN(8) == 0 {
				// Release's tail: the last record's usage and rate.
				w := s.smpRec()
				last := r.smp[len(r.smp)-w:]
				used, rc = last[2:], last[1]
				ref.add(off, ref.samples[len(ref.samples)-1].Used, ref.samples[len(ref.samples)-1].Compression)
			} else {
				ref.add(off, used, rc)
			}
			s.addSample(r, off, used, rc)
			got := s.usageSamples(r)
			if len(got) != len(ref.samples) {
				t.Fatalf("trial %d sample %d: %d samples, naive %d", trial, i, len(got), len(ref.samples))
			}
			for j, g := range got {
				w := ref.samples[j]
				same := g.Duration == w.Duration && math.Float64bits(g.Compression) == math.Float64bits(w.Compression) && len(g.Used) == len(w.Used)
				for k := range w.Used {
					same = same && math.Float64bits(g.Used[k]) == math.Float64bits(w.Used[k])
				}
				if !same {
					t.Fatalf("trial %d sample %d: record %d = %+v, naive %+v", trial, i, j, g, w)
				}
			}
		}
	}
}

// The fields a cursor-found sample reads and writes lead runState, in
// its first 64 bytes (see runState).
func TestRunStateSampleFieldsFirst(t *testing.T) {
	var r runState
	if end := unsafe.Offsetof(r.lastSmp) + unsafe.Sizeof(r.lastSmp); end > 64 {
		t.Fatalf("runState's sample fields end at byte %d, want ≤ 64", end)
	}
}

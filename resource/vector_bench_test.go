package resource

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/drf"
)

// mapVector is the naive reference: amounts keyed by kind name, as a
// first implementation often has them. Benchmarks measure Vector against
// it in the same run.
type mapVector map[string]float64

func (m mapVector) add(w mapVector) {
	for k, x := range w {
		m[k] += x
	}
}

func (m mapVector) fits(c mapVector) bool {
	for k, x := range m {
		if x > c[k] {
			return false
		}
	}
	return true
}

func benchVectors(n int) (Vector, Vector, mapVector, mapVector) {
	a, b := make(Vector, n), make(Vector, n)
	ma, mb := mapVector{}, mapVector{}
	for i := range a {
		a[i], b[i] = float64(i), float64(2*i+1)
		name := fmt.Sprintf("k%d", i)
		ma[name], mb[name] = a[i], b[i]
	}
	return a, b, ma, mb
}

var sink bool

func BenchmarkVector(b *testing.B) {
	for _, n := range []int{2, 4, 8} {
		x, y, mx, my := benchVectors(n)
		b.Run(fmt.Sprintf("op=add/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = x.Add(y)
				_ = x.Sub(y)
			}
		})
		b.Run(fmt.Sprintf("op=add-naive/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				mx.add(my)
				mx.add(my)
			}
		})
		b.Run(fmt.Sprintf("op=fits/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink, _ = x.Fits(y)
			}
		})
		b.Run(fmt.Sprintf("op=fits-naive/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = mx.fits(my)
			}
		})
		b.Run(fmt.Sprintf("op=dominant-share/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = DominantShare(x, y)
			}
		})
		b.Run(fmt.Sprintf("op=dominant-share-lenient/kinds=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = drf.Share(x, y)
			}
		})
	}
}

// BenchmarkTimeline reserves a 3-stage task profile on a server timeline
// of the given number of stages and asks for the minimum over its span,
// then releases it (a negative reservation): the inner step of stage
// matching.
func BenchmarkTimeline(b *testing.B) {
	for _, stages := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("stages=%d", stages), func(b *testing.B) {
			server, _ := NewTimeline(Vector{16, 64, 100, 100})
			for i := 0; i < stages; i++ {
				_ = server.Sub(time.Duration(i)*time.Second, time.Duration(i+1)*time.Second, Vector{1, 1, 1, 1})
			}
			task := []struct {
				from, to time.Duration
				v, neg   Vector
			}{
				{0, 2 * time.Second, Vector{2, 4, 50, 0}, Vector{-2, -4, -50, 0}},
				{2 * time.Second, 5 * time.Second, Vector{4, 4, 0, 0}, Vector{-4, -4, 0, 0}},
				{5 * time.Second, 6 * time.Second, Vector{1, 4, 0, 80}, Vector{-1, -4, 0, -80}},
			}
			dst := make(Vector, 4)
			off := time.Duration(stages/2) * time.Second
			b.ReportAllocs()
			for b.Loop() {
				_ = server.Min(off, off+6*time.Second, dst)
				for _, st := range task {
					_ = server.Sub(off+st.from, off+st.to, st.v)
				}
				for _, st := range task {
					_ = server.Sub(off+st.from, off+st.to, st.neg)
				}
			}
		})
	}
}

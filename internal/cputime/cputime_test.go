package cputime_test

import (
	"testing"

	"github.com/schedkit/schedkit/internal/cputime"
)

// TestProcessGrows: busy work shows as CPU time where it can be read.
func TestProcessGrows(t *testing.T) {
	c0 := cputime.Process()
	x := 0
	for range 1 << 12 {
		for i := range 1 << 16 {
			x ^= i
		}
		if cputime.Process() > c0 {
			return
		}
	}
	if c0 == 0 {
		t.Skipf("CPU time cannot be read here (%d)", x)
	}
	t.Fatalf("CPU time still %v after 2^28 steps", c0)
}

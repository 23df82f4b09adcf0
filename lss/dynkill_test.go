package lss_test

import (
	"testing"

	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
)

// TestDynamicKillBound runs random event sequences under every variant
// and, after every operation, checks each dynamic job's kill bound (the
// time up to which a heartbeat skips its kill rules) against a full
// evaluation at the latest time, at the bound and between them
// (lss.CheckDynamicKillBounds); TestFastEqualsLiteral compares the
// decisions themselves.
func TestDynamicKillBound(t *testing.T) {
	seeds, steps := 12, 600
	if testing.Short() {
		seeds, steps = 8, 300
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			checked := 0
			for seed := range uint64(seeds) {
				h := newVariantHost(v, seed, t.Fatalf)
				for i := range steps {
					h.Step(lsstest.RandomEvent(h.Rand))
					s := h.Scheds[0]
					n, err := lss.CheckDynamicKillBounds(s)
					if err != nil {
						t.Fatalf("seed %d, step %d: %v", seed, i, err)
					}
					checked += n
				}
			}
			t.Logf("%d bounds checked", checked)
			if checked == 0 {
				t.Fatal("no bound checked: the test exercises nothing")
			}
		})
	}
}

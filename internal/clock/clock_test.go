package clock

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

func TestLimitIsHorizon(t *testing.T) {
	if Limit != int64(estimate.Horizon) {
		t.Fatalf("Limit %d, estimate.Horizon %d", Limit, estimate.Horizon)
	}
}

func TestRule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	far := t0.Add(5*time.Second + time.Duration(Limit) + 1)
	var c Clock
	// Before any commit a reading is relative to its own now.
	if r, f := c.Check(t0); f != OK || r.Now != 0 {
		t.Fatalf("first Check = %d, %v", r.Now, f)
	}
	if c.Started() {
		t.Fatal("Check committed")
	}
	r, _ := c.Check(t0.Add(5 * time.Second))
	c.Commit(r)
	if c.Epoch() != t0.Add(5*time.Second) || c.Latest() != 0 {
		t.Fatalf("epoch %v latest %d", c.Epoch(), c.Latest())
	}
	r, f := c.Check(t0.Add(8 * time.Second))
	if f != OK || r.Now != int64(3*time.Second) {
		t.Fatalf("Check +3s = %d, %v", r.Now, f)
	}
	c.Commit(r)
	tests := []struct {
		name       string
		now        time.Time
		check, pk  Fault
		wantOffset int64
	}{
		{"same time", t0.Add(8 * time.Second), OK, OK, int64(3 * time.Second)},
		{"later", t0.Add(9 * time.Second), OK, OK, int64(4 * time.Second)},
		{"earlier", t0.Add(6 * time.Second), Stale, OK, int64(time.Second)},
		{"before epoch", t0, Stale, OK, int64(-5 * time.Second)},
		{"far future", far, Range, Range, 0},
		{"far past", t0.Add(-time.Duration(Limit) - 10*time.Second), Range, Range, 0},
		{"zero time", time.Time{}, Range, Range, 0},
	}
	for _, tt := range tests {
		r, f := c.Check(tt.now)
		if f != tt.check {
			t.Errorf("%s: Check fault %v, want %v", tt.name, f, tt.check)
		}
		if f != Range && r.Now != tt.wantOffset {
			t.Errorf("%s: offset %d, want %d", tt.name, r.Now, tt.wantOffset)
		}
		if _, f := c.Peek(tt.now); f != tt.pk {
			t.Errorf("%s: Peek fault %v, want %v", tt.name, f, tt.pk)
		}
	}
	if c.Latest() != int64(3*time.Second) {
		t.Fatalf("checks moved the clock to %d", c.Latest())
	}
	if got := c.Reason(Stale, t0); got == "" {
		t.Fatal("no stale reason")
	}
	if got := c.LatestTime(); !got.Equal(t0.Add(8 * time.Second)) {
		t.Fatalf("LatestTime %v", got)
	}
}

// checkByOffset is Check without its repeat path: the reference of
// TestRepeatMatchesOffset.
func checkByOffset(c *Clock, now time.Time) (Reading, Fault) {
	r, f := c.Peek(now)
	if f == OK && r.Now < c.latest {
		f = Stale
	}
	return r, f
}

// TestRepeatMatchesOffset: a Check at the latest committed now gives
// what taking its offset gives, and is counted.
func TestRepeatMatchesOffset(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mono := time.Now() // with a monotonic reading
	for _, base := range []time.Time{t0, mono, mono.Round(0), t0.In(time.FixedZone("x", 3600))} {
		var c Clock
		steps := []time.Duration{0, 0, time.Second, time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
		for i, d := range steps {
			now := base.Add(d)
			want, wf := checkByOffset(&c, now)
			got, gf := c.Check(now)
			if got.Now != want.Now || gf != wf || !got.epoch.Equal(want.epoch) {
				t.Fatalf("%v step %d: Check = %d, %v; by offset %d, %v", base, i, got.Now, gf, want.Now, wf)
			}
			if gf == OK {
				c.Commit(got)
			}
		}
		if c.Repeats() != 4 {
			t.Errorf("%v: %d repeats, want 4", base, c.Repeats())
		}
	}
}

package schedkit

import (
	"errors"
	"math"
	"testing"
	"time"
)

// The transitions keep the six counters, RunningStartSum included, as a
// hand computation does; impossible ones change nothing.
func TestProgressTransitions(t *testing.T) {
	sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return sub.Add(time.Duration(s) * time.Second) }
	p := PhaseProgress{Total: 4, Ready: 2}
	steps := []struct {
		name string
		do   func() error
		want PhaseProgress
	}{
		{"start at 10s", func() error { return p.Start(sub, at(10)) }, PhaseProgress{Total: 4, Ready: 1, Running: 1, RunningStartSum: 10 * time.Second}},
		{"start at 30s", func() error { return p.Start(sub, at(30)) }, PhaseProgress{Total: 4, Running: 2, RunningStartSum: 40 * time.Second}},
		{"finish the first at 70s", func() error { return p.Finish(sub, at(10), at(70)) }, PhaseProgress{Total: 4, Running: 1, Finished: 1, RunningStartSum: 30 * time.Second, FinishedDurationSum: 60 * time.Second}},
		{"lose the second, retry", func() error { return p.Stop(sub, at(30), true) }, PhaseProgress{Total: 4, Finished: 1, Ready: 1, FinishedDurationSum: 60 * time.Second}},
		{"two more become ready", func() error { return p.MakeReady(2) }, PhaseProgress{Total: 4, Finished: 1, Ready: 3, FinishedDurationSum: 60 * time.Second}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil || p != s.want {
			t.Fatalf("%s: %v, %+v; want %+v", s.name, err, p, s.want)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	bad := []struct {
		name string
		do   func() error
	}{
		{"start before submission", func() error { return p.Start(sub, at(-1)) }},
		{"finish with nothing running", func() error { return p.Finish(sub, at(1), at(2)) }},
		{"stop with nothing running", func() error { return p.Stop(sub, at(1), true) }},
		{"too many ready", func() error { return p.MakeReady(1) }},
		{"negative ready", func() error { return p.MakeReady(-1) }},
	}
	before := p
	for _, b := range bad {
		var pe *ProgressError
		if err := b.do(); !errors.As(err, &pe) || !errors.Is(err, ErrInvalidProgress) || p != before {
			t.Errorf("%s: %v, %+v", b.name, err, p)
		}
	}
	_ = p.Start(sub, at(100))
	if err := p.Finish(sub, at(100), at(99)); err == nil {
		t.Error("finish before start accepted")
	}
	if err := p.Finish(sub, at(200), at(300)); err == nil {
		t.Error("finish of a task started later than any running one accepted")
	}
}

// Regression: a job whose Submitted() is the zero time made Start
// saturate at − submitted, and a second Start overflowed RunningStartSum
// to a negative sum, after which the job could never finish. Every step
// the counters cannot represent is refused and changes nothing.
func TestProgressRefusesUnrepresentable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sub := now.Add(-time.Hour)
	maxSpan := sub.Add(time.Duration(math.MaxInt64))
	tests := []struct {
		name string
		p    PhaseProgress
		do   func(p *PhaseProgress) error
	}{
		{"start, zero submission", PhaseProgress{Total: 2, Ready: 2}, func(p *PhaseProgress) error { return p.Start(time.Time{}, now) }},
		{"start, span beyond a Duration", PhaseProgress{Total: 2, Ready: 2}, func(p *PhaseProgress) error { return p.Start(sub, maxSpan.Add(time.Hour)) }},
		{"start, sum overflows", PhaseProgress{Total: 2, Ready: 1, Running: 1, RunningStartSum: math.MaxInt64 - 10}, func(p *PhaseProgress) error { return p.Start(sub, sub.Add(11)) }},
		{"finish, duration beyond a Duration", PhaseProgress{Total: 2, Running: 1, RunningStartSum: time.Hour}, func(p *PhaseProgress) error {
			return p.Finish(sub, sub.Add(time.Hour), sub.Add(time.Hour).Add(time.Duration(math.MaxInt64)).Add(time.Hour))
		}},
		{"finish, sum overflows", PhaseProgress{Total: 3, Running: 1, Finished: 1, RunningStartSum: time.Hour, FinishedDurationSum: math.MaxInt64 - 10}, func(p *PhaseProgress) error {
			return p.Finish(sub, sub.Add(time.Hour), sub.Add(time.Hour).Add(11))
		}},
		{"stop, start beyond a Duration", PhaseProgress{Total: 2, Running: 1, RunningStartSum: math.MaxInt64}, func(p *PhaseProgress) error {
			return p.Stop(time.Time{}, now, true)
		}},
	}
	for _, tt := range tests {
		p := tt.p
		var pe *ProgressError
		if err := tt.do(&p); !errors.As(err, &pe) || !errors.Is(err, ErrInvalidProgress) {
			t.Errorf("%s: err = %v, want a *ProgressError", tt.name, err)
		}
		if p != tt.p {
			t.Errorf("%s: counters changed to %+v", tt.name, p)
		}
	}

	// The sequence of the report: two Starts of a zero-submission job.
	p := PhaseProgress{Total: 2, Ready: 2}
	for i := range 2 {
		if err := p.Start(time.Time{}, now); err == nil {
			t.Fatalf("Start %d of a zero-submission job accepted: %+v", i, p)
		}
	}
	if err := p.Validate(); err != nil || p != (PhaseProgress{Total: 2, Ready: 2}) {
		t.Fatalf("counters %+v, %v", p, err)
	}
	// At the edge the sum is kept exactly.
	p = PhaseProgress{Total: 2, Ready: 1, Running: 1, RunningStartSum: math.MaxInt64 - 10}
	if err := p.Start(sub, sub.Add(10)); err != nil || p.RunningStartSum != math.MaxInt64 {
		t.Fatalf("Start to the largest sum: %v, %+v", err, p)
	}
}

// RunningElapsed is exact where the product Running·(now − submitted)
// does not fit in 64 bits but the difference does, saturates where the
// difference does not fit, and is zero before the starts.
func TestRunningElapsedNeverOverflows(t *testing.T) {
	sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name string
		p    PhaseProgress
		now  time.Time
		want time.Duration
	}{
		{"worked", PhaseProgress{Total: 2, Running: 2, RunningStartSum: 40 * time.Second}, sub.Add(time.Minute), 80 * time.Second},
		// 1000 tasks started 100 days in, now 150 days: the product
		// overflows, the answer, 50,000 days, fits.
		{"product overflows, difference fits", PhaseProgress{Total: 1000, Running: 1000, RunningStartSum: 1000 * 100 * day},
			sub.Add(150 * day), 50000 * day},
		{"difference overflows", PhaseProgress{Total: 1000, Running: 1000}, sub.Add(200 * day), math.MaxInt64},
		{"now before the starts", PhaseProgress{Total: 1, Running: 1, RunningStartSum: time.Hour}, sub.Add(time.Minute), 0},
		{"now before submission", PhaseProgress{Total: 1, Running: 1}, sub.Add(-time.Minute), 0},
		{"nothing runs", PhaseProgress{Total: 1}, sub.Add(time.Hour), 0},
	}
	for _, tt := range tests {
		if got := tt.p.RunningElapsed(sub, tt.now); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

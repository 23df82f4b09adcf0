package schedkit

import (
	"errors"
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

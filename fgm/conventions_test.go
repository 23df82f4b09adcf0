package fgm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// The root package's conventions as fgm keeps them: the time rule for a
// task's deadline, and node values that disagree with the registered
// server.

// farRun is a run whose tasks share a deadline.
type farRun struct {
	*lazyRun
	due time.Time
}

func (r *farRun) Deadline() time.Time { return r.due }

// TestTimeRangeRule is the root package's time rule 1 in fgm: a task's
// deadline more than 2⁶⁰ ns from the first time given is ErrTimeRange
// (as a job's in lss and dbs), for Submit and SubmitRun, also on the
// first call, and changes nothing (the clock included).
func TestTimeRangeRule(t *testing.T) {
	space := testSpace(t)
	far := t0.Add(time.Duration(1<<60) + time.Second)
	const (
		submitText = `fgm: Submit: task "far": time out of range: deadline 2062-07-14 23:58:25.606846976 +0000 UTC is more than 2^60 ns (about 36 years) from 2026-01-01 00:00:00 +0000 UTC, the first time given`
		runText    = `fgm: SubmitRun: time out of range: deadline 2062-07-14 23:58:25.606846976 +0000 UTC is more than 2^60 ns (about 36 years) from 2026-01-01 00:00:00 +0000 UTC, the first time given`
	)
	for _, first := range []bool{true, false} {
		s := newSched(t, newCluster(space, 1, resource.Vector{16, 32, 4}), fgm.Config{})
		if !first {
			submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 1, 0}}})
		}
		err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "far", JobKey: "j", Request: resource.Vector{1, 1, 0}, DueAt: far}})
		if !errors.Is(err, fgm.ErrTimeRange) || err.Error() != submitText {
			t.Errorf("Submit (first call %v):\n got %v\nwant %s", first, err, submitText)
		}
		run := &farRun{lazyRun: &lazyRun{job: "r", n: 3, key: schedkit.SimilarityKey{Logic: "m"}, req: resource.Vector{1, 1, 0}}, due: far}
		err = s.SubmitRun(t0, run)
		if !errors.Is(err, fgm.ErrTimeRange) || err.Error() != runText {
			t.Errorf("SubmitRun (first call %v):\n got %v\nwant %s", first, err, runText)
		}
		want := map[bool]int{true: 0, false: 1}[first]
		if s.Pending() != want {
			t.Errorf("first call %v: %d pending, want %d", first, s.Pending(), want)
		}
		// The first refused call set no epoch: an earlier now is still
		// valid.
		if err := s.Submit(t0.Add(-time.Hour), &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 1, 0}}}); first && err != nil {
			t.Errorf("Submit before t0 after the refusals: %v", err)
		}
	}
}

// TestStaleNodeValueRefused: Schedule given a node value whose capacity
// is not the one registered for its ID (a value taken before the server
// was resized) refuses it with ErrInvalidNode, as lss and dbs refuse a
// node value that disagrees with the cluster's node, and changes
// nothing.
func TestStaleNodeValueRefused(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 4})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 2, 0}}})
	stale := &schedkittest.Node{Key: "n00", RackName: "r0", Cap: resource.Vector{160, 32, 4}}
	ds, err := s.Schedule(t0, stale, nil)
	const want = `fgm: Schedule: node "n00": invalid node: capacity of "cpu" is 160, the cluster's node of this ID has 16 (a stale node value?)`
	if !errors.Is(err, fgm.ErrInvalidNode) || err.Error() != want || len(ds) != 0 {
		t.Fatalf("stale node value: %v, %v\nwant %s", ds, err, want)
	}
	if s.Pending() != 1 || s.Running() != 0 {
		t.Fatalf("after the refusal: %d pending, %d running", s.Pending(), s.Running())
	}
	if ds := schedule(t, s, t0, "n00"); len(ds) != 1 {
		t.Fatalf("the registered node places a: %v", ds)
	}
}

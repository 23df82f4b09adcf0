package dbs_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/dbs/dbstest"
)

// TestResumeEqualsUninterrupted: a host whose scheduler is replaced,
// just before a weight update, by a new one into which every job was
// Resumed from Save (and ResumeUpdates from LastUpdate) takes the same
// decisions from then on as a twin host that kept its scheduler: the
// same moves, assignments, completions, costs and queues, on 30 random
// worlds.
func TestResumeEqualsUninterrupted(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			mk := func() (*dbstest.Host, *rand.Rand) {
				h, err := dbstest.NewHost(rand.New(rand.NewPCG(seed, 1)), dbstest.NewCluster(4, 2, 1), dbs.Config{})
				if err != nil {
					t.Fatal(err)
				}
				return h, rand.New(rand.NewPCG(seed, 2))
			}
			a, ra := mk()
			b, rb := mk()
			restarted := false
			for step := range 400 {
				ea, eb := dbstest.RandomEvent(ra), dbstest.RandomEvent(rb)
				if ea == dbstest.Update && step >= 150 && !restarted {
					restarted = true
					b.Sched = resumed(t, b)
				}
				errA, errB := a.Step(ea), b.Step(eb)
				if errA != nil || errB != nil {
					t.Fatalf("step %d: %v / %v", step, errA, errB)
				}
				if a.Moves != b.Moves || a.Assigned != b.Assigned || a.Completed != b.Completed || len(a.Jobs) != len(b.Jobs) {
					t.Fatalf("step %d (restarted %v): moves %d/%d, assigned %d/%d, completed %d/%d", step, restarted,
						a.Moves, b.Moves, a.Assigned, b.Assigned, a.Completed, b.Completed)
				}
				for i, j := range a.Jobs {
					sa, _ := a.Sched.Save(j.ID())
					sb, _ := b.Sched.Save(j.ID())
					if j.Paid != b.Jobs[i].Paid || sa != sb {
						t.Fatalf("step %d: job %s paid %v/%v, saved %+v/%+v", step, j.ID(), j.Paid, b.Jobs[i].Paid, sa, sb)
					}
				}
			}
			if !restarted || a.Moves == 0 {
				t.Skipf("restarted %v, %d moves: nothing compared", restarted, a.Moves)
			}
		})
	}
}

// resumed is a new scheduler for h's cluster with every job of h
// Resumed from h's scheduler.
func resumed(t *testing.T, h *dbstest.Host) *dbs.Scheduler {
	t.Helper()
	s, err := dbs.New(dbs.Config{Cluster: h.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ResumeUpdates(h.Sched.LastUpdate()); err != nil {
		t.Fatal(err)
	}
	for _, j := range h.Jobs {
		st, err := h.Sched.Save(j.ID())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Resume(h.Now, j, st); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestResumeRefuses: a saved state that is none of dbs's is refused,
// queuing nothing; Save of an unknown job and ResumeUpdates after an
// update fail.
func TestResumeRefuses(t *testing.T) {
	h, err := dbstest.NewHost(rand.New(rand.NewPCG(1, 1)), dbstest.NewCluster(2, 2, 1), dbs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	j := h.RandomJob()
	for _, st := range []dbs.Saved{
		{Queue: 3},
		{LastMove: dbs.Assign, MovedAt: h.Now},
		{LastMove: dbs.Promote},
		{MovedAt: h.Now},
		{LastMove: dbs.Demote, MovedAt: h.Now.Add(time.Second)},
	} {
		if err := h.Sched.Resume(h.Now, j, st); !errors.Is(err, dbs.ErrInvalidJob) || h.Sched.Len() != 0 {
			t.Errorf("%+v: %v, %d jobs", st, err, h.Sched.Len())
		}
	}
	if err := h.Sched.Resume(h.Now, j, dbs.Saved{Queue: dbs.High, MarkedShort: true}); err != nil {
		t.Fatal(err)
	}
	if st, err := h.Sched.Save(j.ID()); err != nil || st != (dbs.Saved{Queue: dbs.High, MarkedShort: true}) || h.Sched.QueueLen(dbs.High) != 1 {
		t.Errorf("saved %+v, %v", st, err)
	}
	if _, err := h.Sched.Save("nope"); !errors.Is(err, dbs.ErrUnknownJob) {
		t.Errorf("Save of an unknown job: %v", err)
	}
	if _, err := h.Sched.Tick(h.Now, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.Sched.ResumeUpdates(h.Now); !errors.Is(err, dbs.ErrStaleTime) {
		t.Errorf("ResumeUpdates after an update: %v", err)
	}
}

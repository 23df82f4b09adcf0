package fgm_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// poisonEstimator is the oracle, except that the poison-th prediction
// it makes while poison > 0 is a stage lasting 0 s (ErrInvalidEstimate).
type poisonEstimator struct{ poison int }

func (e *poisonEstimator) Predict(t schedkit.Task) (estimate.Profile, bool) {
	prof, ok := fgmtest.Oracle{}.Predict(t)
	if e.poison > 0 {
		if e.poison--; e.poison == 0 {
			return estimate.Profile{Stages: []estimate.Stage{st(0, 1, 12, 0)}}, true
		}
	}
	return prof, ok
}

// twinRun is a run whose host makes a nil task once while failNext.
type twinRun struct {
	lazyRun
	failNext *bool
}

func (r *twinRun) Task(i int) schedkit.Task {
	if *r.failNext {
		*r.failNext = false
		return nil
	}
	return r.lazyRun.Task(i)
}

// twin is one of the two schedulers of TestTwinBadCallsChangeNothing.
type twin struct {
	s        *fgm.Scheduler
	est      *poisonEstimator
	failNext bool
}

// A scheduler given every call, bad ones included (and reads, which
// change nothing either), decides afterwards exactly as one given only
// the calls that succeeded: every entry point, with a History and with
// an Estimator, including a Schedule that fails after placing tasks
// (an invalid estimate, a run's host making a nil task).
func TestTwinBadCallsChangeNothing(t *testing.T) {
	space := testSpace(t)
	for _, history := range []bool{false, true} {
		for seed := range uint64(6) {
			t.Run(fmt.Sprintf("history=%v/seed=%d", history, seed), func(t *testing.T) {
				twinRun1(t, space, history, seed)
			})
		}
	}
}

func twinRun1(t *testing.T, space *resource.Space, history bool, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	capacity := resource.Vector{16, 32, 4}
	mk := func() *twin {
		c := newCluster(space, 3, capacity)
		tw := &twin{est: &poisonEstimator{}}
		cfg := fgm.Config{Cluster: c, LocalityWait: -1, ConformityWindow: 2}
		if history {
			h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MinObservations: 1, MinSamples: 1})
			if err != nil {
				t.Fatal(err)
			}
			cfg.History = h
		} else {
			cfg.Estimator = tw.est
		}
		s, err := fgm.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tw.s = s
		return tw
	}
	a, b := mk(), mk() // a gets every call, b the good ones
	nodes := []schedkit.NodeID{"n00", "n01", "n02"}
	running := map[schedkit.TaskID]schedkit.NodeID{}
	pending := []schedkit.TaskID{}
	now := time.Duration(0)
	last, committed := time.Duration(0), false // the latest good call
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	keys := []schedkit.SimilarityKey{{Logic: "a", DataSize: 1}, {Logic: "b", DataSize: 2}, {}}
	next := 0
	track := func(ds []fgm.Decision) {
		for _, d := range ds {
			switch d.Action {
			case fgm.Allocate:
				running[d.Task] = d.Node
				pending = slices.DeleteFunc(pending, func(id schedkit.TaskID) bool { return id == d.Task })
			case fgm.Reclaim:
				delete(running, d.Task)
			}
		}
	}
	// both gives a good call to both and requires the same outcome.
	both := func(what string, call func(tw *twin) ([]fgm.Decision, error)) {
		t.Helper()
		da, ea := call(a)
		db, eb := call(b)
		if ea == nil && what != "Withdraw" && what != "AddNode" && what != "RemoveNode" {
			last, committed = now, true
		}
		if fmt.Sprint(ea) != fmt.Sprint(eb) || fmt.Sprint(da) != fmt.Sprint(db) {
			t.Fatalf("%s at %v: twins differ:\n a: %v %v\n b: %v %v", what, now, da, ea, db, eb)
		}
		track(da)
	}
	// bad gives a call to a only: it must fail (or be a read) and change
	// nothing.
	bad := func(what string, want error, call func(s *fgm.Scheduler) error) {
		t.Helper()
		err := call(a.s)
		if want != nil && !errors.Is(err, want) {
			t.Fatalf("%s at %v: %v, want %v", what, now, err, want)
		}
		if want == nil && err != nil {
			t.Fatalf("read %s at %v: %v", what, now, err)
		}
	}
	sortedRunning := func() []schedkit.TaskID {
		ids := make([]schedkit.TaskID, 0, len(running))
		for id := range running {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	}
	badPlaced := 0
	for step := range 400 {
		now += time.Duration(rng.IntN(4)) * time.Second
		stale := at(last - time.Second - time.Duration(rng.IntN(5))*time.Second)
		switch op := rng.IntN(14); op {
		case 0, 1: // Submit
			next++
			id := schedkit.TaskID(fmt.Sprintf("t%d", next))
			key := keys[rng.IntN(len(keys))]
			req := resource.Vector{float64(1 + rng.IntN(6)), float64(1 + rng.IntN(12)), float64(rng.IntN(2))}
			var stages []estimate.Stage
			if rng.IntN(4) != 0 {
				stages = []estimate.Stage{st(time.Duration(1+rng.IntN(20))*time.Second, req[0], req[1], req[2]),
					st(time.Duration(1+rng.IntN(20))*time.Second, req[0]/2, req[1]/2, req[2])}
			}
			tk := &fgmtest.Task{Task: schedkittest.Task{Key: id, JobKey: schedkit.JobID(fmt.Sprintf("j%d", rng.IntN(4))), Similar: key, Request: req}, Usage: stages}
			both("Submit", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.Submit(at(now), tk) })
			pending = append(pending, id)
		case 2: // bad Submit
			tk := &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j0", Request: resource.Vector{1, 1, 0}}}
			switch rng.IntN(6) {
			case 0:
				bad("Submit nil", fgm.ErrInvalidTask, func(s *fgm.Scheduler) error { return s.Submit(at(now), nil) })
			case 1:
				bad("Submit typed nil", fgm.ErrInvalidTask, func(s *fgm.Scheduler) error { return s.Submit(at(now), (*fgmtest.Task)(nil)) })
			case 2:
				tk.Request = resource.Vector{math.NaN(), 1, 0}
				bad("Submit NaN", fgm.ErrInvalidTask, func(s *fgm.Scheduler) error { return s.Submit(at(now), tk) })
			case 3:
				if committed {
					bad("Submit stale", fgm.ErrStaleTime, func(s *fgm.Scheduler) error { return s.Submit(stale, tk) })
				}
			case 4:
				bad("Submit far", fgm.ErrTimeRange, func(s *fgm.Scheduler) error { return s.Submit(at(now+1<<61), tk) })
			case 5:
				if len(pending) > 0 {
					tk.Key = pending[0]
					bad("Submit duplicate", fgm.ErrDuplicateTask, func(s *fgm.Scheduler) error { return s.Submit(at(now), tk) })
				}
			}
		case 3: // SubmitRun, good or bad
			next++
			job := schedkit.JobID(fmt.Sprintf("r%d", next))
			n := 1 + rng.IntN(5)
			mkRun := func(tw *twin) *twinRun {
				return &twinRun{lazyRun: lazyRun{job: job, n: n, key: keys[rng.IntN(2)], req: resource.Vector{1, 2, 1}}, failNext: &tw.failNext}
			}
			ra, rb := mkRun(a), mkRun(b)
			rb.key = ra.key
			switch rng.IntN(3) {
			case 0:
				bad("SubmitRun typed nil", fgm.ErrInvalidTask, func(s *fgm.Scheduler) error { return s.SubmitRun(at(now), (*twinRun)(nil)) })
			case 1:
				if committed {
					bad("SubmitRun stale", fgm.ErrStaleTime, func(s *fgm.Scheduler) error { return s.SubmitRun(stale, ra) })
				}
			}
			both("SubmitRun", func(tw *twin) ([]fgm.Decision, error) {
				if tw == a {
					return nil, tw.s.SubmitRun(at(now), ra)
				}
				return nil, tw.s.SubmitRun(at(now), rb)
			})
		case 4, 5, 6: // Schedule
			n := nodes[rng.IntN(len(nodes))]
			switch rng.IntN(6) {
			case 0:
				bad("Schedule unknown", fgm.ErrUnknownNode, func(s *fgm.Scheduler) error {
					_, err := s.Schedule(at(now), &schedkittest.Node{Key: "nope"}, nil)
					return err
				})
			case 1:
				bad("Schedule typed nil", fgm.ErrInvalidNode, func(s *fgm.Scheduler) error {
					_, err := s.Schedule(at(now), (*schedkittest.Node)(nil), nil)
					return err
				})
			case 2:
				if committed {
					bad("Schedule stale", fgm.ErrStaleTime, func(s *fgm.Scheduler) error {
						_, err := s.Schedule(stale, &schedkittest.Node{Key: n, Cap: capacity, Free: capacity}, nil)
						return err
					})
				}
			case 3:
				// A Schedule that fails part-way: a poisoned estimate, or
				// a run's host making a nil task. If a never reaches the
				// poison, the call succeeded: b gets it too.
				a.est.poison = 1 + rng.IntN(3)
				a.failNext = true
				ds, err := a.s.Schedule(at(now), &schedkittest.Node{Key: n, Cap: capacity, Free: capacity}, nil)
				a.est.poison, a.failNext = 0, false
				if err != nil {
					if !errors.Is(err, fgm.ErrInvalidEstimate) && !errors.Is(err, fgm.ErrInvalidTask) {
						t.Fatalf("poisoned Schedule: %v", err)
					}
					badPlaced++
					break
				}
				db, eb := b.s.Schedule(at(now), &schedkittest.Node{Key: n, Cap: capacity, Free: capacity}, nil)
				last, committed = now, true
				if eb != nil || fmt.Sprint(ds) != fmt.Sprint(db) {
					t.Fatalf("unpoisoned Schedule at %v: twins differ:\n a: %v\n b: %v %v", now, ds, db, eb)
				}
				track(ds)
				continue
			}
			both("Schedule", func(tw *twin) ([]fgm.Decision, error) {
				return tw.s.Schedule(at(now), &schedkittest.Node{Key: n, Cap: capacity, Free: capacity}, nil)
			})
		case 7: // SampleTask
			ids := sortedRunning()
			if len(ids) == 0 {
				continue
			}
			id := ids[rng.IntN(len(ids))]
			u := resource.Vector{rng.Float64() * 8, rng.Float64() * 16, 1}
			switch rng.IntN(4) {
			case 0:
				bad("SampleTask over capacity", fgm.ErrInvalidSample, func(s *fgm.Scheduler) error {
					return s.SampleTask(at(now), id, resource.Vector{60, 1, 0})
				})
			case 1:
				bad("SampleTask NaN", fgm.ErrInvalidSample, func(s *fgm.Scheduler) error {
					return s.SampleTask(at(now), id, resource.Vector{1, math.NaN(), 0})
				})
			case 2:
				bad("SampleTask unknown", fgm.ErrUnknownTask, func(s *fgm.Scheduler) error { return s.SampleTask(at(now), "nope", u) })
			}
			both("SampleTask", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.SampleTask(at(now), id, u) })
		case 8: // SampleNode
			n := nodes[rng.IntN(len(nodes))]
			u := resource.Vector{rng.Float64() * 16, rng.Float64() * 32, float64(rng.IntN(5))}
			switch rng.IntN(3) {
			case 0:
				bad("SampleNode over capacity", fgm.ErrInvalidSample, func(s *fgm.Scheduler) error {
					return s.SampleNode(at(now), n, resource.Vector{1e6, 1, 0})
				})
			case 1:
				bad("SampleNode unknown", fgm.ErrUnknownNode, func(s *fgm.Scheduler) error { return s.SampleNode(at(now), "nope", u) })
			}
			both("SampleNode", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.SampleNode(at(now), n, u) })
		case 9: // Release
			ids := sortedRunning()
			if rng.IntN(3) == 0 {
				bad("Release unknown", fgm.ErrUnknownTask, func(s *fgm.Scheduler) error { return s.Release(at(now), "nope", true) })
			}
			if len(ids) == 0 {
				continue
			}
			id := ids[rng.IntN(len(ids))]
			if committed && rng.IntN(3) == 0 {
				bad("Release stale", fgm.ErrStaleTime, func(s *fgm.Scheduler) error { return s.Release(stale, id, true) })
			}
			ok := rng.IntN(4) != 0
			both("Release", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.Release(at(now), id, ok) })
			delete(running, id)
		case 10: // Tick
			if committed && rng.IntN(3) == 0 {
				bad("Tick stale", fgm.ErrStaleTime, func(s *fgm.Scheduler) error { _, err := s.Tick(stale, nil); return err })
			}
			both("Tick", func(tw *twin) ([]fgm.Decision, error) { return tw.s.Tick(at(now), nil) })
		case 11: // Withdraw
			bad("Withdraw unknown", fgm.ErrUnknownTask, func(s *fgm.Scheduler) error { return s.Withdraw("nope") })
			if len(pending) > 0 && rng.IntN(2) == 0 {
				id := pending[rng.IntN(len(pending))]
				both("Withdraw", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.Withdraw(id) })
				pending = slices.DeleteFunc(pending, func(x schedkit.TaskID) bool { return x == id })
			}
		case 12: // AddNode, RemoveNode
			switch rng.IntN(5) {
			case 0:
				bad("AddNode typed nil", fgm.ErrInvalidNode, func(s *fgm.Scheduler) error { return s.AddNode((*schedkittest.Node)(nil)) })
			case 1:
				bad("AddNode duplicate", fgm.ErrDuplicateNode, func(s *fgm.Scheduler) error {
					return s.AddNode(&schedkittest.Node{Key: nodes[0], Cap: capacity, Free: capacity})
				})
			case 2:
				bad("AddNode NaN", fgm.ErrInvalidNode, func(s *fgm.Scheduler) error {
					return s.AddNode(&schedkittest.Node{Key: "z", Cap: resource.Vector{math.NaN(), 1, 1}, Free: resource.Vector{math.NaN(), 1, 1}})
				})
			case 3:
				bad("RemoveNode unknown", fgm.ErrUnknownNode, func(s *fgm.Scheduler) error { return s.RemoveNode("nope") })
			case 4:
				if len(nodes) > 1 {
					i := rng.IntN(len(nodes))
					n := nodes[i]
					both("RemoveNode", func(tw *twin) ([]fgm.Decision, error) { return nil, tw.s.RemoveNode(n) })
					nodes = slices.Delete(nodes, i, i+1)
					for id, on := range running {
						if on == n {
							delete(running, id)
						}
					}
				}
				next++
				n := schedkit.NodeID(fmt.Sprintf("n%d", 100+next))
				both("AddNode", func(tw *twin) ([]fgm.Decision, error) {
					return nil, tw.s.AddNode(&schedkittest.Node{Key: n, Cap: capacity, Free: capacity})
				})
				nodes = append(nodes, n)
			}
		case 13: // reads, at any time in range: a only
			n := nodes[rng.IntN(len(nodes))]
			when := at(now + time.Duration(rng.IntN(200)-100)*time.Second)
			dst := space.Zero()
			bad("Free", nil, func(s *fgm.Scheduler) error { return s.Free(when, n, dst) })
			bad("MinFree", nil, func(s *fgm.Scheduler) error {
				return s.MinFree(when, n, time.Duration(1+rng.IntN(60))*time.Second, dst)
			})
			if !committed {
				continue
			}
			bad("Free far", fgm.ErrTimeRange, func(s *fgm.Scheduler) error { return s.Free(at(now+1<<61), n, dst) })
		}
		// The twins agree on everything a host can read.
		if a.s.Pending() != b.s.Pending() || a.s.Running() != b.s.Running() {
			t.Fatalf("step %d: pending %d/%d running %d/%d", step, a.s.Pending(), b.s.Pending(), a.s.Running(), b.s.Running())
		}
		for _, n := range nodes {
			fa, fb := space.Zero(), space.Zero()
			_ = a.s.Free(at(now), n, fa)
			_ = b.s.Free(at(now), n, fb)
			pa, _ := a.s.Policy(n)
			pb, _ := b.s.Policy(n)
			if !fa.Equal(fb) || pa != pb {
				t.Fatalf("step %d node %s: free %v/%v policy %v/%v", step, n, fa, fb, pa, pb)
			}
		}
	}
	if badPlaced == 0 && !history {
		t.Error("no Schedule failed part-way")
	}
}

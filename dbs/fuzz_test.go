package dbs_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// FuzzWeight: model 1 is finite and non-negative for any finite input.
func FuzzWeight(f *testing.F) {
	f.Add(0.5, int64(300e9), false, int64(600e9), 1000.0, 0.05, 200.0)
	f.Add(1.0, int64(-5), true, int64(-1), -3.0, 1.0, -1.0)
	f.Fuzz(func(t *testing.T, phiRaw float64, rem int64, cannot bool, dl int64, secs, price, budget float64) {
		phi := []float64{0, 0.5, 1}[int(math.Abs(math.Mod(phiRaw, 3)))%3]
		if !finite(secs) || !finite(price) || !finite(budget) || price <= 0 || math.Abs(secs) > 1e15 || price > 1e6 || math.Abs(budget) > 1e300 {
			t.Skip()
		}
		w := dbs.Weight(dbs.WeightInput{Phi: phi, Remaining: time.Duration(rem), CannotFinish: cannot,
			DeadlineLeft: time.Duration(dl), SlotSeconds: secs, Price: price, BudgetLeft: budget})
		for _, x := range []float64{w.W, w.TimeTerm, w.CostTerm, w.Cost} {
			if !finite(x) || x < 0 {
				t.Fatalf("Weight gave %+v", w)
			}
		}
		if w.TimeTerm > dbs.MaxTerm || w.CostTerm > dbs.MaxTerm {
			t.Fatalf("term above MaxTerm: %+v", w)
		}
	})
}

// FuzzMinimumSlots: model 2 never exceeds the unfinished tasks, never
// goes negative, and an unmeetable view contributes nothing.
func FuzzMinimumSlots(f *testing.F) {
	f.Add(0.5, 20, int64(30e9), int64(0), 4, int64(30e9), int64(0), int64(2000), false, int64(600e9), int64(60e9), 2000.0, 4)
	f.Fuzz(func(t *testing.T, phiRaw float64, um int, tm, em int64, ur int, tr, er, rc int64, started bool, dl, tx int64, allow float64, held int) {
		phi := []float64{0, 0.5, 1}[int(math.Abs(math.Mod(phiRaw, 3)))%3]
		if um < 0 || ur < 0 || um > 1<<20 || ur > 1<<20 || tm < 0 || tr < 0 || em < 0 || er < 0 || rc < 0 || tx < 0 || !finite(allow) ||
			tm > int64(estimate.Horizon) || tr > int64(estimate.Horizon) || em > int64(estimate.Horizon) || er > int64(estimate.Horizon) || tx > int64(estimate.Horizon) {
			t.Skip()
		}
		in := dbs.MinInput{Phi: phi,
			Map:            dbs.PhaseWork{Unfinished: um, TaskTime: time.Duration(tm), Elapsed: time.Duration(em)},
			Reduce:         dbs.PhaseWork{Unfinished: ur, TaskTime: time.Duration(tr), Elapsed: time.Duration(er)},
			ReduceCapacity: estimate.Capacity(rc), ReduceStarted: started, DeadlineLeft: time.Duration(dl),
			Transfer: time.Duration(tx), Allowance: allow, Held: held}
		r := dbs.MinimumSlots(in)
		if r.Map < 0 || r.Map > um || r.Reduce < 0 || r.Reduce > ur {
			t.Fatalf("MinimumSlots(%+v) = %+v", in, r)
		}
		for _, v := range []dbs.MinView{r.Deadline, r.Budget} {
			if v.Unmeetable && (v.Map != 0 || v.Reduce != 0) {
				t.Fatalf("unmeetable view with slots: %+v", v)
			}
			if v.Applies && !v.Unmeetable && (v.Map > r.Map || v.Reduce > r.Reduce) {
				t.Fatalf("result %+v below a view %+v", r, v)
			}
		}
	})
}

// FuzzScheduler drives a scheduler with arbitrary host input: every call
// either succeeds or returns a typed *dbs.Error, never panics, and no
// assignment exceeds a job's ready tasks or the node's free slots; a
// scheduler running the previous weight update (dbs.UsePreviousTick) in
// lockstep gives the same decisions and Status throughout.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 200, 100, 3, 3, 7})
	f.Add([]byte{0, 0xff, 0x80, 0x7f, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newCluster(3, 2, 1)
		// The options come from the input's length, so the bytes (and the
		// committed corpus) keep their meaning.
		cfg := dbs.Config{Cluster: c, DefaultTaskTime: 5 * sec, TransferRate: 1e6,
			Ablations: dbs.Ablations{EarlyReduces: len(data)%2 == 1}, Sharing: dbs.Sharing(len(data) % 4 / 2)}
		s, err := dbs.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// prev runs the previous weight update in lockstep: every call
		// must give the same result on both (as TestTickEquivalence).
		prev, err := dbs.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dbs.UsePreviousTick(prev)
		same := func(op string, ds []dbs.Decision, err error, f func(*dbs.Scheduler) ([]dbs.Decision, error)) {
			t.Helper()
			pds, perr := f(prev)
			if (err == nil) != (perr == nil) {
				t.Fatalf("%s: error %v, previous update's scheduler %v", op, err, perr)
			}
			if d := cmp.Diff(pds, ds, cmpopts.EquateNaNs()); d != "" {
				t.Fatalf("%s: decisions differ (-previous +new):\n%s", op, d)
			}
		}
		sameStatus := func(ids []schedkit.JobID) {
			t.Helper()
			for _, id := range ids {
				a, errA := s.Status(id)
				b, errB := prev.Status(id)
				if (errA == nil) != (errB == nil) {
					t.Fatalf("Status(%s): %v, previous %v", id, errA, errB)
				}
				if d := cmp.Diff(b, a, cmpopts.EquateNaNs()); d != "" {
					t.Fatalf("Status(%s) differs (-previous +new):\n%s", id, d)
				}
			}
		}
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		weird := []float64{0, 0.5, 1, math.NaN(), -1, math.Inf(1), 0.7, 100}
		now := t0
		jobs := map[schedkit.JobID]*hJob{}
		var ids []schedkit.JobID
		check := func(err error) {
			if err == nil {
				return
			}
			var de *dbs.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T) is not a *dbs.Error", err, err)
			}
		}
		for len(data) > 0 {
			switch next() % 6 {
			case 0: // submit
				id := schedkit.JobID([]byte{'j', next()})
				maps, reds := int(next()%16), int(next()%4)
				j := mrJob(string(id), weird[next()%8], maps, reds, time.Duration(int(next())-20)*sec, weird[next()%8]*100)
				j.SubmittedAt = now.Add(-time.Duration(next()%8) * sec)
				j.Paid = weird[next()%8]
				j.ReduceInput = int64(next()) << 10
				if next()%5 == 0 {
					j.Counters[0].Running = int(next() % 20)
				}
				err := s.Submit(now, j)
				check(err)
				same("Submit", nil, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return nil, p.Submit(now, j) })
				if err == nil {
					jobs[id] = j
					ids = append(ids, id)
				}
			case 1: // update with changed counters
				if len(ids) == 0 {
					continue
				}
				j := jobs[ids[int(next())%len(ids)]]
				p := &j.Counters[next()%2]
				p.Ready = int(next() % 20)
				p.Running = int(next() % 4)
				p.Finished = int(next() % 4)
				if p.Running == 0 {
					p.RunningStartSum = 0
				}
				p.FinishedDurationSum = time.Duration(p.Finished) * time.Duration(next()) * time.Second
				err := s.Update(j.Key)
				check(err)
				same("Update", nil, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return nil, p.Update(j.Key) })
			case 2: // remove
				if len(ids) == 0 {
					continue
				}
				id := ids[int(next())%len(ids)]
				err := s.Remove(id)
				check(err)
				same("Remove", nil, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return nil, p.Remove(id) })
			case 3: // time moves (sometimes backwards)
				now = now.Add(time.Duration(int(next())-30) * 100 * time.Millisecond)
			case 4: // tick
				if len(ids) > 0 {
					// Host duty 3: a job holding no slot has its cost
					// changed only with an Update after it that succeeds
					// (a refused one changes nothing: the host keeps the
					// cost it had).
					j := jobs[ids[int(next())%len(ids)]]
					was := j.Paid
					j.Paid = weird[next()%8] * 10
					if st, err := s.Status(j.Key); err == nil && st.Held == [2]int{} {
						err := s.Update(j.Key)
						check(err)
						same("Update", nil, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return nil, p.Update(j.Key) })
						if err != nil {
							j.Paid = was
						}
					}
				}
				ds, err := s.Tick(now, nil)
				check(err)
				same("Tick", ds, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return p.Tick(now, nil) })
				for _, d := range ds {
					if d.Action != dbs.Promote && d.Action != dbs.Demote {
						t.Fatalf("tick decision %v", d)
					}
					if !finite(d.Figures.Weight) || !finite(d.Figures.QueueAverage) {
						t.Fatalf("non-finite figures %+v", d.Figures)
					}
				}
			case 5: // heartbeat
				n := c.NodeList[int(next())%len(c.NodeList)]
				n.Free = resource.Vector{weird[next()%8] * 2, weird[next()%8]}
				ds, err := s.Heartbeat(now, n, nil)
				check(err)
				same("Heartbeat", ds, err, func(p *dbs.Scheduler) ([]dbs.Decision, error) { return p.Heartbeat(now, n, nil) })
				var used [2]int
				for _, d := range ds {
					used[d.Phase] += d.Count
					st, err := s.Status(d.Job)
					if err != nil {
						t.Fatalf("assignment to a job not queued: %v", d)
					}
					if !finite(st.Weight) {
						t.Fatalf("weight %v", st.Weight)
					}
				}
				for k := range used {
					if err == nil && float64(used[k]) > n.Free[k] {
						t.Fatalf("assigned %v on free %v", used, n.Free)
					}
				}
			}
			sameStatus(ids)
		}
	})
}

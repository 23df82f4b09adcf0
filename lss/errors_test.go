package lss_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

func TestNewRejectsBadConfig(t *testing.T) {
	cl := newCluster(1, 2, 1, 0)
	cpuOnly, _ := resource.NewSpace(resource.CPU)
	tests := []struct {
		name string
		cfg  lss.Config
	}{
		{"nil cluster", lss.Config{}},
		{"nil space", lss.Config{Cluster: &hostCluster{}}},
		{"unknown kind", lss.Config{Cluster: cl, PhaseKinds: []string{"map-slot", "gpu"}}},
		{"non-integral kind", lss.Config{Cluster: cl, PhaseKinds: []string{"cpu"}}},
		{"no map slot kind in space", lss.Config{Cluster: &hostCluster{Resources: cpuOnly}}},
		{"too many phases", lss.Config{Cluster: cl, PhaseKinds: make([]string, schedkit.MaxPhases+1)}},
		{"speeds without heterogeneous", lss.Config{Cluster: cl, NodeSpeeds: map[schedkit.NodeID]float64{"n00": 2}}},
		{"NaN speed", lss.Config{Cluster: cl, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": math.NaN()}}},
		{"negative speed", lss.Config{Cluster: cl, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": -1}}},
		{"zero speed", lss.Config{Cluster: cl, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": 0}}},
		{"infinite speed", lss.Config{Cluster: cl, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": math.Inf(1)}}},
		{"negative admission task time", lss.Config{Cluster: cl, Admission: true, AdmissionTaskTime: -sec}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := lss.New(tc.cfg)
			var e *lss.Error
			if s != nil || !errors.Is(err, lss.ErrConfig) || !errorsAs(err, &e) || e.Op != "New" {
				t.Fatalf("New = %v, %v; want ErrConfig", s, err)
			}
		})
	}
}

// Every bad Submit, Update and Remove returns a typed error and changes
// nothing: the queue and the next decisions are as if it never happened.
func TestBadJobsChangeNothing(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		good := newJob("good", t0, at(100*sec), 4, 1)
		mustSubmit(t, s, t0, good)
		p := func(pr ...schedkit.PhaseProgress) []schedkit.PhaseProgress { return pr }
		ok := schedkit.PhaseProgress{Total: 1, Ready: 1}
		bad := []struct {
			name string
			job  schedkit.Job
			want error
		}{
			{"nil job", nil, lss.ErrInvalidJob},
			{"empty ID", &hostJob{Counters: p(ok), SubmittedAt: t0}, lss.ErrInvalidJob},
			{"duplicate ID", newJob("good", t0, at(100*sec), 1), lss.ErrDuplicateJob},
			{"deadline before submission", &hostJob{Key: "x", SubmittedAt: at(50 * sec), DeadlineAt: at(40 * sec), Counters: p(ok)}, lss.ErrInvalidJob},
			{"deadline already passed", &hostJob{Key: "x", SubmittedAt: at(-50 * sec), DeadlineAt: at(-1), Counters: p(ok)}, lss.ErrInvalidJob},
			{"no phases", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec)}, lss.ErrInvalidJob},
			{"three phases, two configured", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(ok, ok, ok)}, lss.ErrInvalidJob},
			{"negative count", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(schedkit.PhaseProgress{Total: -1})}, schedkit.ErrInvalidProgress},
			{"running exceeds total", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(schedkit.PhaseProgress{Total: 1, Running: 2})}, schedkit.ErrInvalidProgress},
			{"negative finished duration", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(schedkit.PhaseProgress{Total: 1, Finished: 1, FinishedDurationSum: -sec})}, schedkit.ErrInvalidProgress},
			{"negative running start sum", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(schedkit.PhaseProgress{Total: 1, Running: 1, RunningStartSum: -sec})}, schedkit.ErrInvalidProgress},
			{"duration sum without finished tasks", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(sec), Counters: p(schedkit.PhaseProgress{Total: 1, FinishedDurationSum: sec})}, lss.ErrInvalidJob},
			{"zero submission time", &hostJob{Key: "x", DeadlineAt: at(sec), Counters: p(ok)}, lss.ErrInvalidJob},
			{"deadline centuries away", &hostJob{Key: "x", SubmittedAt: t0, DeadlineAt: at(100 * 365 * 24 * time.Hour), Counters: p(ok)}, lss.ErrTimeRange},
		}
		for _, b := range bad {
			err := s.Submit(t0, b.job)
			var e *lss.Error
			if !errors.Is(err, b.want) || !errorsAs(err, &e) || e.Op != "Submit" {
				t.Errorf("%s: Submit error %v, want %v", b.name, err, b.want)
			}
		}
		for _, fn := range []func() error{
			func() error { return s.Update("ghost") },
			func() error { return s.Remove("ghost") },
		} {
			if err := fn(); !errors.Is(err, lss.ErrUnknownJob) {
				t.Errorf("unknown ID: error %v, want ErrUnknownJob", err)
			}
		}
		// Inconsistent counters on Update: the old snapshot stays.
		good.Counters[0].Running = 9
		if err := s.Update("good"); !errors.Is(err, schedkit.ErrInvalidProgress) || !errors.Is(err, lss.ErrInvalidJob) {
			t.Errorf("Update with inconsistent counters: %v", err)
		}
		good.Counters = append(good.Counters, schedkit.PhaseProgress{})
		if err := s.Update("good"); !errors.Is(err, lss.ErrInvalidJob) {
			t.Errorf("Update with a changed phase count: %v", err)
		}
		if s.Len() != 1 {
			t.Fatalf("Len = %d, want 1", s.Len())
		}
		expect(t, heartbeat(t, s, t0, cl.NodeList[0]), ""+
			"assign good map×1 on n00 (pass 1)\n"+
			"assign good map×1 on n00 (pass 2)\n")
	})
}

// Bad nodes and clusters are errors with no decision taken; zero slots
// are not an error.
func TestBadHeartbeats(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		mustSubmit(t, s, t0, pjob("late", 0, 10*sec, schedkit.PhaseProgress{Total: 1, Ready: 1}))
		n := cl.NodeList[0]
		corrupt := []struct {
			name string
			mut  func() func() // corrupts, returns the undo
		}{
			{"NaN free slots", func() func() { n.Free[1] = math.NaN(); return func() { n.Free[1] = 2 } }},
			{"negative free slots", func() func() { n.Free[1] = -1; return func() { n.Free[1] = 2 } }},
			{"fractional free slots", func() func() { n.Free[2] = 0.5; return func() { n.Free[2] = 1 } }},
			{"short vector", func() func() { v := n.Free; n.Free = v[:2]; return func() { n.Free = v } }},
			{"NaN cluster capacity", func() func() { cl.Cap[2] = math.NaN(); return func() { cl.Recount() } }},
			{"negative cluster capacity", func() func() { cl.Cap[1] = -4; return func() { cl.Recount() } }},
		}
		for _, c := range corrupt {
			undo := c.mut()
			ds, err := s.Heartbeat(at(20*sec), n, nil)
			undo()
			if !errors.Is(err, lss.ErrInvalidNode) || len(ds) != 0 {
				t.Errorf("%s: %v, %v; want ErrInvalidNode and no decision", c.name, ds, err)
			}
		}
		if _, err := s.Heartbeat(at(20*sec), nil, nil); !errors.Is(err, lss.ErrInvalidNode) {
			t.Errorf("nil node: %v", err)
		}
		if _, err := s.Heartbeat(at(200*365*24*time.Hour), n, nil); !errors.Is(err, lss.ErrTimeRange) {
			t.Errorf("far future: %v", err)
		}
		// Nothing was lost: the kill still happens, on a node with no
		// free slot.
		n.Free[1], n.Free[2] = 0, 0
		expect(t, heartbeat(t, s, at(20*sec), n), "kill late: deadline passed (spare -10s, tavg unknown)\n")
	})
	cl := newCluster(1, 2, 1, 0)
	s := mustNew(t, lss.Config{Cluster: cl})
	for _, v := range []float64{math.NaN(), -1, 0, math.Inf(1), 1e9} {
		if err := s.SetNodeSpeed("n00", v); !errors.Is(err, lss.ErrConfig) {
			t.Errorf("SetNodeSpeed(%v) = %v, want ErrConfig", v, err)
		}
	}
	h := mustNew(t, lss.Config{Cluster: cl, Heterogeneous: true})
	for _, v := range []float64{math.NaN(), -1, 0, math.Inf(1), 1e9} {
		if err := h.SetNodeSpeed("n00", v); !errors.Is(err, lss.ErrConfig) {
			t.Errorf("SetNodeSpeed(%v) = %v, want ErrConfig", v, err)
		}
	}
}

// FuzzSubmitHeartbeat feeds arbitrary counters, times and free slots to
// Submit, Update and Heartbeat of both implementations: no panic, errors
// are typed (a now before the first Submit is ErrStaleTime), and the
// decisions agree.
func FuzzSubmitHeartbeat(f *testing.F) {
	f.Add(10, 2, 4, 4, int64(180*sec), int64(80*sec), 1, 0, 0, 0, int64(0), int64(0), int64(0), int64(300*sec), int64(100*sec), 2.0, 1.0)
	f.Add(1, 0, 0, 1, int64(0), int64(0), 1, 0, 0, 1, int64(0), int64(0), int64(-5), int64(-1), int64(0), math.NaN(), -1.0)
	f.Add(-1, 5, 9, -3, int64(-1), int64(math.MaxInt64), 0, 0, 0, 0, int64(0), int64(1), int64(1), int64(math.MaxInt64), int64(math.MinInt64), 1.5, 0.5)
	f.Fuzz(func(t *testing.T, tot, run, fin, rdy int, ss, fs int64, tot2, run2, fin2, rdy2 int, ss2, fs2, sub, dl, now int64, freeMap, freeRed float64) {
		var decs [2][]lss.Decision
		var errs [2]string
		for i, lit := range []bool{false, true} {
			cl := newCluster(2, 2, 1, 0)
			s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
			j := &hostJob{Key: "j", SubmittedAt: at(time.Duration(sub)), Counters: []schedkit.PhaseProgress{
				{Total: tot, Running: run, Finished: fin, Ready: rdy, RunningStartSum: time.Duration(ss), FinishedDurationSum: time.Duration(fs)},
				{Total: tot2, Running: run2, Finished: fin2, Ready: rdy2, RunningStartSum: time.Duration(ss2), FinishedDurationSum: time.Duration(fs2)},
			}}
			if dl != 0 {
				j.DeadlineAt = at(time.Duration(dl))
			}
			other := newJob("other", t0, at(time.Hour), 3, 1)
			mustSubmit(t, s, t0, other)
			err := s.Submit(at(time.Duration(now)), j)
			if err != nil {
				var e *lss.Error
				if !errorsAs(err, &e) || s.Len() != 1 {
					t.Fatalf("Submit: untyped error or queue changed: %v (Len %d)", err, s.Len())
				}
			}
			cl.NodeList[0].Free[1], cl.NodeList[0].Free[2] = freeMap, freeRed
			ds, err := s.Heartbeat(at(time.Duration(now)), cl.NodeList[0], nil)
			// "other" was submitted at t0, so a now before it is stale
			// (and only then).
			switch {
			case err == nil || errors.Is(err, lss.ErrInvalidNode) || errors.Is(err, lss.ErrTimeRange):
			case errors.Is(err, lss.ErrStaleTime) && now < 0:
			default:
				t.Fatalf("Heartbeat: %v", err)
			}
			free := [3]int{}
			for _, d := range ds {
				if d.Action == lss.Assign {
					free[d.Phase] += d.Count
					if float64(free[d.Phase]) > cl.NodeList[0].Free[1+int(d.Phase)] {
						t.Fatalf("over-assigned: %v", ds)
					}
				}
			}
			decs[i], errs[i] = ds, fmt.Sprint(err)
		}
		if d := diffDecisions(decs[0], decs[1]); d != "" || errs[0] != errs[1] {
			t.Fatalf("indexed and literal differ (%s / %s):\n%s", errs[0], errs[1], d)
		}
	})
}

// The host's mistakes an adopter makes in the first hour are typed errors
// that change nothing: the scheduler given them decides exactly as one
// that never saw them.
func TestHostMisuseChangesNothing(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(2, 2, 1, 0)
		clean := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		mk := func() *hostJob {
			return pjob("j", 0, 200*sec,
				schedkit.PhaseProgress{Total: 6, Finished: 1, Ready: 5, FinishedDurationSum: 20 * sec},
				schedkit.PhaseProgress{Total: 1})
		}
		mustSubmit(t, clean, at(90*sec), mk())
		mustSubmit(t, s, at(90*sec), mk())
		n := cl.NodeList[0]
		var nilJob *hostJob
		var nilNode *hostNode
		stranger := &hostNode{Key: "stranger", Cap: n.Cap.Clone(), Free: n.Free.Clone()}
		misuse := []struct {
			name string
			call func() error
			want error
			text string
		}{
			{"Submit dated before an earlier Submit", func() error {
				return s.Submit(at(10*sec), pjob("k", 0, 300*sec, schedkit.PhaseProgress{Total: 1, Ready: 1}))
			}, lss.ErrStaleTime, `lss: Submit: job "k": time before an earlier call: now 2013-10-01 00:00:10 +0000 UTC is before 2013-10-01 00:01:30 +0000 UTC, given earlier`},
			{"Heartbeat dated before an earlier Submit", func() error {
				_, err := s.Heartbeat(at(10*sec), n, nil)
				return err
			}, lss.ErrStaleTime, `lss: Heartbeat: node "n00": time before an earlier call: now 2013-10-01 00:00:10 +0000 UTC is before 2013-10-01 00:01:30 +0000 UTC, given earlier`},
			{"Submit of a job submitted after now", func() error {
				return s.Submit(at(90*sec), pjob("k", 100*sec, 300*sec, schedkit.PhaseProgress{Total: 1, Ready: 1}))
			}, lss.ErrInvalidJob, `lss: Submit: job "k": invalid job: submitted 2013-10-01 00:01:40 +0000 UTC, after now 2013-10-01 00:01:30 +0000 UTC`},
			{"Heartbeat from a node the cluster does not know", func() error {
				_, err := s.Heartbeat(at(90*sec), stranger, nil)
				return err
			}, lss.ErrUnknownNode, `lss: Heartbeat: node "stranger": unknown node ID: none of the cluster's 2 nodes has this ID`},
			{"node reporting more free slots than its capacity", func() error {
				n.Free[1] = 29
				defer func() { n.Free[1] = 2 }()
				_, err := s.Heartbeat(at(90*sec), n, nil)
				return err
			}, lss.ErrInvalidNode, `lss: Heartbeat: node "n00": invalid node: 29 free "map-slot" slots, more than its capacity 2`},
			{"typed nil job", func() error { return s.Submit(at(90*sec), nilJob) },
				lss.ErrInvalidJob, `lss: Submit: invalid job: nil job (a typed nil *schedkittest.Job)`},
			{"typed nil node", func() error {
				_, err := s.Heartbeat(at(90*sec), nilNode, nil)
				return err
			}, lss.ErrInvalidNode, `lss: Heartbeat: invalid node: nil node (a typed nil *schedkittest.Node)`},
		}
		for _, m := range misuse {
			err := m.call()
			var e *lss.Error
			if !errors.Is(err, m.want) || !errorsAs(err, &e) || err.Error() != m.text {
				t.Errorf("%s:\n got %v\nwant %s", m.name, err, m.text)
			}
		}
		if s.Len() != 1 {
			t.Fatalf("Len = %d after misuse, want 1", s.Len())
		}
		for _, now := range []time.Duration{90 * sec, 100 * sec, 190 * sec} {
			want := lines(heartbeat(t, clean, at(now), n))
			expect(t, heartbeat(t, s, at(now), n), want)
		}
		if _, err := lss.New(lss.Config{Cluster: (*hostCluster)(nil)}); !errors.Is(err, lss.ErrConfig) ||
			err.Error() != "lss: New: invalid config: nil Cluster (a typed nil *schedkittest.Cluster)" {
			t.Errorf("typed nil cluster: %v", err)
		}
	})
}

// TestTimeRangeRule is the root package's time rule 1 in lss: a job's
// submission or deadline more than 2⁶⁰ ns from the first time given is
// ErrTimeRange (as in dbs and fgm), and changes nothing.
func TestTimeRangeRule(t *testing.T) {
	far := time.Duration(1<<60) + time.Second
	for _, tt := range []struct {
		name     string
		sub, due time.Time
		text     string
	}{
		{"deadline", t0, t0.Add(far),
			`lss: Submit: job "far": time out of range: deadline 2050-04-13 23:58:25.606846976 +0000 UTC is more than 2^60 ns (about 36 years) from 2013-10-01 00:00:00 +0000 UTC, the first time given`},
		{"submission", t0.Add(-far), t0.Add(time.Hour),
			`lss: Submit: job "far": time out of range: submission 1977-03-20 00:01:34.393153024 +0000 UTC is more than 2^60 ns (about 36 years) from 2013-10-01 00:00:00 +0000 UTC, the first time given`},
	} {
		for _, first := range []bool{true, false} {
			s := mustNew(t, lss.Config{Cluster: newCluster(1, 2, 1, 0)})
			if !first {
				mustSubmit(t, s, t0, newJob("a", t0, t0.Add(time.Hour), 2, 1))
			}
			err := s.Submit(t0, newJob("far", tt.sub, tt.due, 2, 1))
			if !errors.Is(err, lss.ErrTimeRange) || err.Error() != tt.text {
				t.Errorf("%s (first call %v):\n got %v\nwant %s", tt.name, first, err, tt.text)
			}
			if want := map[bool]int{true: 0, false: 1}[first]; s.Len() != want {
				t.Errorf("%s: %d jobs queued, want %d", tt.name, s.Len(), want)
			}
		}
	}
}

// TestNodeSpeedRange: node speeds are counted in thousandths, so the
// range lss accepts is [0.001, 1000], as its doc and its message say.
func TestNodeSpeedRange(t *testing.T) {
	s := mustNew(t, lss.Config{Cluster: newCluster(1, 2, 1, 0), Heterogeneous: true})
	for _, v := range []float64{0.001, 0.5, 1000} {
		if err := s.SetNodeSpeed("n00", v); err != nil {
			t.Errorf("speed %v: %v", v, err)
		}
	}
	for _, v := range []float64{0, 0.0009, 1000.5, math.NaN(), math.Inf(1), -1} {
		err := s.SetNodeSpeed("n00", v)
		want := fmt.Sprintf(`lss: SetNodeSpeed: node "n00": invalid config: speed %v outside [0.001, 1000] (speeds are counted in thousandths)`, v)
		if !errors.Is(err, lss.ErrConfig) || err.Error() != want {
			t.Errorf("speed %v:\n got %v\nwant %s", v, err, want)
		}
		cfg := lss.Config{Cluster: newCluster(1, 2, 1, 0), Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": v}}
		want = fmt.Sprintf(`lss: New: invalid config: node "n00": speed %v outside [0.001, 1000] (speeds are counted in thousandths)`, v)
		if _, err := lss.New(cfg); !errors.Is(err, lss.ErrConfig) || err.Error() != want {
			t.Errorf("New with speed %v:\n got %v\nwant %s", v, err, want)
		}
	}
}

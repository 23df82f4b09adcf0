package sim_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// failing is greedy that returns boom from one of its calls (hook), the
// first time it is made, and counts the calls made after that.
type failing struct {
	greedy
	hook   string
	boom   error
	failed bool
	after  int // calls after the failure
}

func (f *failing) fail(hook string) error {
	if f.failed {
		f.after++
		return nil
	}
	if hook != f.hook {
		return nil
	}
	f.failed = true
	return f.boom
}

func (f *failing) Name() string { return "failing" }
func (f *failing) Submit(now time.Time, j *sim.Job) error {
	if err := f.fail("Submit"); err != nil {
		return err
	}
	return f.greedy.Submit(now, j)
}
func (f *failing) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if err := f.fail("Heartbeat"); err != nil {
		return dst, err
	}
	return f.greedy.Heartbeat(now, n, c, dst)
}
func (f *failing) TaskEnded(time.Time, *sim.Task, schedkit.TaskState) error {
	return f.fail("TaskEnded")
}
func (f *failing) JobEnded(time.Time, *sim.Job, sim.Outcome) error { return f.fail("JobEnded") }
func (f *failing) TaskSampled(time.Time, *sim.Task, resource.Vector) error {
	return f.fail("TaskSampled")
}
func (f *failing) NodeSampled(time.Time, *sim.Node, resource.Vector) error {
	return f.fail("NodeSampled")
}
func (f *failing) Tick(_ time.Time, _ *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return dst, f.fail("Tick")
}
func (f *failing) NodeChanged(_ time.Time, _ *sim.Node, _ bool, _ *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	return dst, f.fail("NodeChanged")
}

// An error from any of the policy's calls but a rejection at Submit
// ends the run there: ErrPolicy wrapping the policy's error (errors.Is
// finds both), naming the policy and the call, with the policy called
// no more and the record ending at that event's time.
func TestPolicyErrorEndsRun(t *testing.T) {
	for _, tc := range []struct {
		hook string
		end  time.Duration // when the failing call comes
	}{
		{"Submit", 0},
		{"Heartbeat", 0},
		{"NodeChanged", 0},
		{"Tick", 2 * time.Second},
		{"TaskSampled", 3 * time.Second},
		{"NodeSampled", 3 * time.Second},
		{"TaskEnded", 10 * time.Second},
		{"JobEnded", 20 * time.Second},
	} {
		t.Run(tc.hook, func(t *testing.T) {
			boom := errors.New("boom")
			cfg := sim.DefaultConfig(slotSpace, slotNodes(1, 2, 1))
			cfg.TickInterval = 2 * time.Second
			cfg.AfterEvent = (*sim.Sim).CheckInvariants
			w := &workload.Workload{Jobs: []workload.JobSpec{
				mrJob("a", 0, durs(10, 10), durs(10)),
				mrJob("b", 0, durs(30), nil),
			}}
			p := &failing{hook: tc.hook, boom: boom}
			s, err := sim.New(cfg, w, p)
			if err != nil {
				t.Fatal(err)
			}
			run, err := s.Run()
			if !errors.Is(err, sim.ErrPolicy) || !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "failing: "+tc.hook) {
				t.Errorf("%q names not the policy and %s", msg, tc.hook)
			}
			if p.after != 0 {
				t.Errorf("%d calls after the error", p.after)
			}
			if run.End != tc.end {
				t.Errorf("run ended at %v, want %v", run.End, tc.end)
			}
			if _, err := s.Step(); !errors.Is(err, boom) {
				t.Errorf("Step after the end: %v", err)
			}
		})
	}
}

// A Submit returning Reject rejects the job, with its reason, and the
// run goes on.
func TestRejectAtSubmit(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.JobSpec{mrJob("a", 0, durs(1), nil), mrJob("b", 0, durs(1), nil)}}
	s, err := sim.New(sim.DefaultConfig(slotSpace, slotNodes(1, 1, 0)), w, &rejectFirst{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if run.Jobs[0].Outcome != sim.Rejected || s.KillReason(0) != "no room" || run.Jobs[1].Outcome != sim.Completed {
		t.Errorf("outcomes %v %v, reason %q", run.Jobs[0].Outcome, run.Jobs[1].Outcome, s.KillReason(0))
	}
}

type rejectFirst struct {
	greedy
	n int
}

func (r *rejectFirst) Submit(time.Time, *sim.Job) error {
	if r.n++; r.n == 1 {
		return sim.Reject("no room")
	}
	return nil
}

package dbs_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
)

func TestNewConfigErrors(t *testing.T) {
	c := newCluster(2, 2, 1)
	cpuOnly, _ := resource.NewSpace(resource.CPU)
	q := dbs.DefaultQueues
	bad := func(f func(*[3]dbs.QueueConfig)) [3]dbs.QueueConfig { x := q; f(&x); return x }
	for name, cfg := range map[string]dbs.Config{
		"nil cluster":    {},
		"missing kind":   {Cluster: &hCluster{space: cpuOnly}},
		"same kinds":     {Cluster: c, MapKind: "map-slot", ReduceKind: "map-slot"},
		"unknown kind":   {Cluster: c, MapKind: "gpu-slot"},
		"NaN share":      {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Share = math.NaN() })},
		"shares over 1":  {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Share = 0.5 })},
		"zero price":     {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Mid].Price = 0 })},
		"inf price":      {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.High].Price = math.Inf(1) })},
		"price order":    {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Price = 1 })},
		"negative Δ":     {Cluster: c, Interval: -time.Second},
		"NaN rate":       {Cluster: c, TransferRate: math.NaN()},
		"negative prior": {Cluster: c, DefaultTaskTime: -time.Second},
	} {
		if _, err := dbs.New(cfg); !errors.Is(err, dbs.ErrConfig) {
			t.Errorf("%s: New error %v, want ErrConfig", name, err)
		}
	}
	if _, err := dbs.New(dbs.Config{Cluster: c}); err != nil {
		t.Fatalf("valid config: %v", err)
	}
}

// snapshot captures everything observable about a scheduler's state.
type snapshot struct {
	Len    int
	Status []dbs.JobStatus
}

func snap(t *testing.T, s *dbs.Scheduler, ids []schedkit.JobID) snapshot {
	t.Helper()
	sn := snapshot{Len: s.Len()}
	for _, id := range ids {
		st, err := s.Status(id)
		if err != nil {
			t.Fatalf("Status(%s): %v", id, err)
		}
		sn.Status = append(sn.Status, st)
	}
	return sn
}

func TestBadInputChangesNothing(t *testing.T) {
	now := t0.Add(10 * sec)
	setup := func(t *testing.T) (*dbs.Scheduler, *hCluster, []*hJob) {
		c := newCluster(3, 2, 1)
		s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 20 * sec})
		if err != nil {
			t.Fatal(err)
		}
		jobs := []*hJob{
			mrJob("a", 1, 6, 1, 600*sec, 0),
			mrJob("b", 0.5, 6, 1, 600*sec, 50),
			mrJob("c", 0, 6, 1, 600*sec, 50),
		}
		for _, j := range jobs {
			if err := s.Submit(now, j); err != nil {
				t.Fatal(err)
			}
		}
		return s, c, jobs
	}
	ids := []schedkit.JobID{"a", "b", "c"}
	type tc struct {
		name string
		want error
		call func(s *dbs.Scheduler, c *hCluster, jobs []*hJob) error
	}
	submit := func(mut func(j *hJob)) func(*dbs.Scheduler, *hCluster, []*hJob) error {
		return func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			j := mrJob("x", 0.5, 4, 1, 600*sec, 40)
			mut(j)
			return s.Submit(now, j)
		}
	}
	cases := []tc{
		{"nil job", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Submit(now, nil) }},
		{"empty ID", dbs.ErrInvalidJob, submit(func(j *hJob) { j.id = "" })},
		{"duplicate", dbs.ErrDuplicateJob, submit(func(j *hJob) { j.id = "a" })},
		{"NaN budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.budget = math.NaN() })},
		{"negative budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.budget = -1 })},
		{"infinite budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.budget = math.Inf(1) })},
		{"no budget with φ<1", dbs.ErrInvalidJob, submit(func(j *hJob) { j.budget = 0 })},
		{"φ 0.7", dbs.ErrInvalidJob, submit(func(j *hJob) { j.phi = 0.7 })},
		{"φ NaN", dbs.ErrInvalidJob, submit(func(j *hJob) { j.phi = math.NaN() })},
		{"φ 2", dbs.ErrInvalidJob, submit(func(j *hJob) { j.phi = 2 })},
		{"deadline before submission", dbs.ErrInvalidJob, submit(func(j *hJob) { j.dl = t0.Add(-sec) })},
		{"no deadline with φ>0", dbs.ErrInvalidJob, submit(func(j *hJob) { j.dl = time.Time{} })},
		{"NaN cost", dbs.ErrInvalidJob, submit(func(j *hJob) { j.cost = math.NaN() })},
		{"negative data", dbs.ErrInvalidJob, submit(func(j *hJob) { j.red = -1 })},
		{"negative hint", dbs.ErrInvalidJob, submit(func(j *hJob) { j.hint = -sec })},
		{"three phases", dbs.ErrInvalidJob, submit(func(j *hJob) { j.nph = 3 })},
		{"inconsistent counters", schedkit.ErrInvalidProgress, submit(func(j *hJob) { j.ph[0].Running = 9 })},
		{"submit time backwards", dbs.ErrTimeBackwards, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			return s.Submit(now.Add(-sec), mrJob("x", 1, 1, 1, 600*sec, 0))
		}},
		{"update unknown", dbs.ErrUnknownJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Update("zz") }},
		{"update inconsistent", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[0].ph[0].Ready = 99
			return s.Update("a")
		}},
		{"update phase count", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[0].nph = 1
			return s.Update("a")
		}},
		{"remove unknown", dbs.ErrUnknownJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Remove("zz") }},
		{"tick time backwards", dbs.ErrTimeBackwards, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			_, err := s.Tick(now.Add(-sec), nil)
			return err
		}},
		{"tick NaN cost", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[1].cost = math.NaN()
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"tick negative cost", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[2].cost = -1
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"tick bad capacity", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.capv = resource.Vector{math.NaN(), 3}
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"heartbeat nil node", dbs.ErrInvalidNode, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now, nil, nil)
			return err
		}},
		{"heartbeat NaN free", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.nodes[0].free = resource.Vector{math.NaN(), 1}
			_, err := s.Heartbeat(now, c.nodes[0], nil)
			return err
		}},
		{"heartbeat fractional free", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.nodes[0].free = resource.Vector{1.5, 1}
			_, err := s.Heartbeat(now, c.nodes[0], nil)
			return err
		}},
		{"heartbeat short vector", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.nodes[0].free = resource.Vector{1}
			_, err := s.Heartbeat(now, c.nodes[0], nil)
			return err
		}},
		{"heartbeat negative capacity", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.capv = resource.Vector{-1, 3}
			_, err := s.Heartbeat(now, c.nodes[0], nil)
			return err
		}},
		{"heartbeat time backwards", dbs.ErrTimeBackwards, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now.Add(-sec), c.nodes[0], nil)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, c, jobs := setup(t)
			before := snap(t, s, ids)
			err := tc.call(s, c, jobs)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			var de *dbs.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *dbs.Error", err)
			}
			if msg := err.Error(); len(msg) < 5 || msg[:5] != "dbs: " || strings.Contains(msg[5:], "dbs: ") {
				t.Errorf("error text %q: want exactly one package prefix", msg)
			}
			if diff := cmp.Diff(before, snap(t, s, ids)); diff != "" {
				t.Errorf("state changed (-before +after):\n%s", diff)
			}
			// The clock did not advance: the original time still works.
			c.nodes[0].free = resource.Vector{2, 1}
			c.capv = resource.Vector{6, 3}
			if _, err := s.Heartbeat(now, c.nodes[0], nil); err != nil {
				t.Errorf("heartbeat at the original now after the error: %v", err)
			}
		})
	}
}

package schedkit

import (
	"errors"
	"github.com/schedkit/schedkit/resource"
	"math"
	"testing"
	"time"
)

func TestPhaseProgress(t *testing.T) {
	sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Two running tasks started 10 s and 30 s after submission; at 60 s
	// their elapsed times are 50 s + 30 s = 80 s = 2·60 s − (10 s + 30 s).
	p := PhaseProgress{Total: 5, Running: 2, Finished: 1, Ready: 2,
		RunningStartSum: 40 * time.Second, FinishedDurationSum: 20 * time.Second}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := p.RunningElapsed(sub, sub.Add(60*time.Second)); got != 80*time.Second {
		t.Fatalf("RunningElapsed = %v, want 80s", got)
	}
	if p.Unfinished() != 4 || p.Pending() != 2 {
		t.Fatalf("Unfinished %d Pending %d", p.Unfinished(), p.Pending())
	}
	if got := (PhaseProgress{Total: 1}).RunningElapsed(sub, sub.Add(time.Hour)); got != 0 {
		t.Fatalf("RunningElapsed with nothing running = %v", got)
	}
	bad := []PhaseProgress{
		{Total: -1},
		{Total: 1, Running: 1, Finished: 1},
		{Total: 2, Running: 1, Ready: 2, RunningStartSum: 1},
		{Total: 1, Running: 1, RunningStartSum: -1},
		{Total: 1, FinishedDurationSum: -1},
		{Total: 1, RunningStartSum: 5},
	}
	for _, b := range bad {
		var pe *ProgressError
		if err := b.Validate(); !errors.Is(err, ErrInvalidProgress) || !errors.As(err, &pe) {
			t.Errorf("%+v: err = %v", b, err)
		}
	}
}

func TestAcceleratorInfoValidate(t *testing.T) {
	ok := AcceleratorInfo{ID: "gpu0", Kind: AcceleratorGPU, Memory: 5 << 30, Weight: 2, Utilisation: 0.5, Healthy: true}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if w := (AcceleratorInfo{}).EffectiveWeight(); w != 1 {
		t.Fatalf("EffectiveWeight of zero = %v", w)
	}
	for name, a := range map[string]AcceleratorInfo{
		"no id":      {Kind: AcceleratorGPU},
		"no kind":    {ID: "g"},
		"neg memory": {ID: "g", Kind: AcceleratorGPU, Memory: -1},
		"NaN weight": {ID: "g", Kind: AcceleratorGPU, Weight: math.NaN()},
		"neg weight": {ID: "g", Kind: AcceleratorGPU, Weight: -1},
		"Inf weight": {ID: "g", Kind: AcceleratorGPU, Weight: math.Inf(1)},
		"util > 1":   {ID: "g", Kind: AcceleratorGPU, Utilisation: 1.5},
		"util NaN":   {ID: "g", Kind: AcceleratorGPU, Utilisation: math.NaN()},
	} {
		if err := a.Validate(); !errors.Is(err, ErrInvalidAccelerator) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestStrings(t *testing.T) {
	for want, got := range map[string]string{
		"map": PhaseMap.String(), "reduce": PhaseReduce.String(), "phase-3": Phase(3).String(),
		"pending": TaskPending.String(), "killed": TaskKilled.String(), "TaskState(9)": TaskState(9).String(),
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if TaskRunning.Final() || !TaskFailed.Final() || TaskState(9).Final() {
		t.Error("Final wrong")
	}
	if !(SimilarityKey{}).IsZero() || (SimilarityKey{Logic: "x"}).IsZero() {
		t.Error("IsZero wrong")
	}
}

type chkNode struct {
	id         NodeID
	rack       RackID
	cap, avail []float64
}

func (n *chkNode) ID() NodeID                      { return n.id }
func (n *chkNode) Rack() RackID                    { return n.rack }
func (n *chkNode) Capacity() resource.Vector       { return n.cap }
func (n *chkNode) Available() resource.Vector      { return n.avail }
func (n *chkNode) Accelerators() []AcceleratorInfo { return nil }

type chkCluster struct {
	sp    *resource.Space
	nodes []Node
	cap   resource.Vector
}

func (c *chkCluster) Space() *resource.Space    { return c.sp }
func (c *chkCluster) Nodes() int                { return len(c.nodes) }
func (c *chkCluster) Node(i int) Node           { return c.nodes[i] }
func (c *chkCluster) Capacity() resource.Vector { return c.cap }

func TestCheckCluster(t *testing.T) {
	sp, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	mk := func() *chkCluster {
		return &chkCluster{sp: sp, cap: resource.Vector{4, 2}, nodes: []Node{
			&chkNode{id: "a", rack: "r", cap: []float64{2, 1}, avail: []float64{2, 1}},
			&chkNode{id: "b", rack: "r", cap: []float64{2, 1}, avail: []float64{0, 1}},
		}}
	}
	if err := CheckCluster(mk()); err != nil {
		t.Fatal(err)
	}
	var nilNode *chkNode
	for name, mut := range map[string]func(c *chkCluster){
		"capacity not the sum":    func(c *chkCluster) { c.cap[0] = 5 },
		"more free than capacity": func(c *chkCluster) { c.nodes[0].(*chkNode).avail[0] = 29 },
		"duplicate ID":            func(c *chkCluster) { c.nodes[1].(*chkNode).id = "a" },
		"no rack":                 func(c *chkCluster) { c.nodes[1].(*chkNode).rack = "" },
		"NaN":                     func(c *chkCluster) { c.nodes[1].(*chkNode).cap[1] = math.NaN() },
		"short vector":            func(c *chkCluster) { c.nodes[1].(*chkNode).avail = []float64{1} },
		"typed nil node":          func(c *chkCluster) { c.nodes[1] = nilNode },
		"nil space":               func(c *chkCluster) { c.sp = nil },
	} {
		c := mk()
		mut(c)
		if err := CheckCluster(c); !errors.Is(err, ErrInconsistentHost) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := CheckCluster((*chkCluster)(nil)); !errors.Is(err, ErrInconsistentHost) {
		t.Errorf("typed nil cluster: %v", err)
	}
}

type chkJob struct {
	id            JobID
	sub, deadline time.Time
	phases        []PhaseProgress
}

func (j *chkJob) ID() JobID                      { return j.id }
func (j *chkJob) Submitted() time.Time           { return j.sub }
func (j *chkJob) Deadline() time.Time            { return j.deadline }
func (j *chkJob) Phases() int                    { return len(j.phases) }
func (j *chkJob) Progress(p Phase) PhaseProgress { return j.phases[p] }

func TestCheckJob(t *testing.T) {
	sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	good := func() *chkJob {
		return &chkJob{id: "j", sub: sub, deadline: sub.Add(time.Hour), phases: []PhaseProgress{{Total: 1, Ready: 1}}}
	}
	if err := CheckJob(good()); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(j *chkJob){
		"empty ID":          func(j *chkJob) { j.id = "" },
		"no phases":         func(j *chkJob) { j.phases = nil },
		"zero submission":   func(j *chkJob) { j.sub = time.Time{} },
		"deadline before":   func(j *chkJob) { j.deadline = sub.Add(-time.Second) },
		"negative counters": func(j *chkJob) { j.phases[0].Ready = -1 },
	}
	for name, f := range bad {
		j := good()
		f(j)
		if err := CheckJob(j); !errors.Is(err, ErrInconsistentHost) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := CheckJob((*chkJob)(nil)); !errors.Is(err, ErrInconsistentHost) {
		t.Errorf("typed nil: %v", err)
	}
}

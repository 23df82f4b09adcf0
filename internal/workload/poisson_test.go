package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// exactModel has no jitter and no minimum that matters, for worked numbers.
func exactModel() TaskModel {
	return TaskModel{MapOverhead: 2 * time.Second, MapRate: MiB, ReduceOverhead: 0, ReduceRate: MiB,
		ShuffleRatio: 0.5, OutputRatio: 0, MinDuration: time.Millisecond}
}

func TestPaper000PresetsMatchTable2(t *testing.T) {
	type wf struct {
		name     string
		gap      float64 // 1/λ
		d        time.Duration
		maps, rd int
	}
	tests := []struct {
		cfg  PoissonConfig
		want []wf
	}{
		{Paper000Light(), []wf{{"W1", 500, 500 * time.Second, 108, 1}, {"W2", 300, 300 * time.Second, 39, 1}, {"W3", 200, 200 * time.Second, 20, 1}}},
		{Paper000Heavy(), []wf{{"W4", 500, 400 * time.Second, 108, 1}, {"W5", 300, 240 * time.Second, 39, 1}, {"W6", 200, 160 * time.Second, 20, 1}}},
	}
	for _, tt := range tests {
		for i, w := range tt.cfg.Workflows {
			want := tt.want[i]
			if w.Name != want.name || math.Abs(1/w.Rate-want.gap) > 1e-9 || w.Deadline != want.d || w.Maps != want.maps || w.Reduces != want.rd {
				t.Errorf("%s: got %+v, want %+v", tt.cfg.Name, w, want)
			}
			// 3.35 GiB, 1.21 GiB and 623 MiB in 32 MiB splits give the paper's M.
			if got := ceilDiv(w.InputBytes, 32*MiB); got != int64(want.maps) {
				t.Errorf("%s %s: ⌈S/32MiB⌉ = %d, want M = %d", tt.cfg.Name, w.Name, got, want.maps)
			}
		}
	}
}

func TestGeneratePoissonDeterministic(t *testing.T) {
	a, err := GeneratePoisson(Paper000Heavy(), seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GeneratePoisson(Paper000Heavy(), seeded(1))
	c, _ := GeneratePoisson(Paper000Heavy(), seeded(2))
	// reflect.DeepEqual: cmp is too slow on ~13,000 tasks.
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different workloads")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same workload")
	}
	if err := a.Validate(SlotSpace()); err != nil {
		t.Fatal(err)
	}
	if len(a.Assumptions) == 0 {
		t.Fatal("no assumptions listed")
	}
}

func TestGeneratePoissonInvariants(t *testing.T) {
	for seed := range uint64(20) {
		w, err := GeneratePoisson(Paper000Light(), seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Validate(SlotSpace()); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, j := range w.Jobs {
			if j.Submit <= 0 || j.Submit >= 2*time.Hour {
				t.Fatalf("seed %d: job %s submitted at %v, outside (0, 2h)", seed, j.ID, j.Submit)
			}
			if j.Phi != 1 || j.Budget != 0 {
				t.Fatalf("seed %d: job %s φ=%v budget=%v, want 1 and 0", seed, j.ID, j.Phi, j.Budget)
			}
		}
	}
}

func TestGeneratePoissonRate(t *testing.T) {
	// One workflow, λ = 1/10 s: over a horizon H the count is Poisson with
	// mean H/10, standard deviation √(H/10). Allow 5 standard deviations.
	horizon := 1_000_000 * time.Second
	if testing.Short() {
		horizon = 100_000 * time.Second
	}
	cfg := PoissonConfig{
		Workflows: []Workflow{{Name: "W", Rate: 0.1, InputBytes: MiB, Maps: 1}},
		Horizon:   horizon, Model: WordCountModel(),
	}
	w, err := GeneratePoisson(cfg, seeded(7))
	if err != nil {
		t.Fatal(err)
	}
	mean := horizon.Seconds() / 10
	if got := float64(len(w.Jobs)); math.Abs(got-mean) > 5*math.Sqrt(mean) {
		t.Fatalf("%v arrivals, want %v ± %v", got, mean, 5*math.Sqrt(mean))
	}
	// Mean gap ≈ 1/λ.
	gap := w.Jobs[len(w.Jobs)-1].Submit.Seconds() / float64(len(w.Jobs))
	if math.Abs(gap-10) > 0.5 {
		t.Fatalf("mean gap %v s, want 10 ± 0.5", gap)
	}
}

func TestGeneratePoissonJobsPerWorkflow(t *testing.T) {
	cfg := Paper000Light()
	cfg.Horizon, cfg.JobsPerWorkflow = 0, 5
	w, err := GeneratePoisson(cfg, seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, j := range w.Jobs {
		count[j.Class]++
	}
	if diff := cmp.Diff(map[string]int{"W1": 5, "W2": 5, "W3": 5}, count); diff != "" {
		t.Fatal(diff)
	}
}

func TestGeneratePoissonWorkedDurations(t *testing.T) {
	// S = 10 MiB, M = 10 → 1 MiB splits: map = 2 s + 1 MiB / (1 MiB/s) = 3 s.
	// Shuffle = 0.5 × 10 MiB = 5 MiB to R = 1 reduce: 0 + 5 s = 5 s.
	cfg := PoissonConfig{
		Workflows:       []Workflow{{Name: "W", Rate: 0.01, Deadline: time.Minute, InputBytes: 10 * MiB, Maps: 10, Reduces: 1}},
		JobsPerWorkflow: 1, Model: exactModel(), Logic: "wc",
	}
	w, err := GeneratePoisson(cfg, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	j := w.Jobs[0]
	if len(j.Phases) != 2 || len(j.Phases[0].Tasks) != 10 || len(j.Phases[1].Tasks) != 1 {
		t.Fatalf("phases %d, want 10 maps and 1 reduce", len(j.Phases))
	}
	m, r := j.Phases[0].Tasks[0], j.Phases[1].Tasks[0]
	if m.Duration() != 3*time.Second || r.Duration() != 5*time.Second {
		t.Fatalf("map %v reduce %v, want 3s and 5s", m.Duration(), r.Duration())
	}
	if m.Logic != "wc/map" || m.DataSize != MiB || r.Logic != "wc/reduce" || r.DataSize != 5*MiB {
		t.Fatalf("similarity keys %q/%d and %q/%d", m.Logic, m.DataSize, r.Logic, r.DataSize)
	}
	if j.ID != "W-1" || j.Class != "W" || j.Deadline != time.Minute {
		t.Fatalf("job %+v", j)
	}
}

func TestOfferedLoad(t *testing.T) {
	// As above: λ = 0.01, 10 maps × 3 s on 10 slots → 0.01·10·3/10 = 0.03;
	// 1 reduce × 5 s on 1 slot → 0.01·1·5/1 = 0.05.
	cfg := PoissonConfig{
		Workflows: []Workflow{{Name: "W", Rate: 0.01, InputBytes: 10 * MiB, Maps: 10, Reduces: 1}},
		Horizon:   time.Hour, Model: exactModel(),
	}
	m, r, ok := cfg.OfferedLoad(10, 1)
	if !ok || math.Abs(m-0.03) > 1e-12 || math.Abs(r-0.05) > 1e-12 {
		t.Fatalf("OfferedLoad = %v, %v, %v; want 0.03, 0.05", m, r, ok)
	}
	// Halving the rates roughly doubles the byte-driven part of the load.
	cfg.Model.MapRate /= 2
	m2, _, _ := cfg.OfferedLoad(10, 1)
	if math.Abs(m2-0.04) > 1e-12 { // map = 2 + 2 = 4 s
		t.Fatalf("after halving MapRate: %v, want 0.04", m2)
	}
	if _, _, ok := cfg.OfferedLoad(0, 1); ok {
		t.Fatal("zero slots accepted")
	}
	// The paper-000 presets on the paper's 10 map / 5 reduce slots.
	p := Paper000Light()
	m, r, _ = p.OfferedLoad(10, 5)
	if m < 0.5 || m > 0.6 || r > 0.1 {
		t.Fatalf("paper000 light load = %v, %v; want about 0.56, 0.06", m, r)
	}
}

func TestTaskModel(t *testing.T) {
	m := exactModel()
	m.WriteRate = 2 * MiB
	tests := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"map 4MiB in, no out: 2+4", m.MapBase(4*MiB, 0), 6 * time.Second},
		{"map-only 4MiB in, 2MiB out: 2+4+1", m.MapBase(4*MiB, 2*MiB), 7 * time.Second},
		{"reduce 3MiB shuffled, 4MiB out: 0+3+2", m.ReduceBase(3*MiB, 4*MiB), 5 * time.Second},
		{"apply without jitter", m.Apply(1500*time.Millisecond, nil), 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	m.Jitter, m.MinDuration = 0.2, 5*time.Second
	rng := seeded(1)
	for range 1000 {
		d := m.Apply(10*time.Second, rng)
		if d < 8*time.Second || d > 12*time.Second || d%time.Millisecond != 0 {
			t.Fatalf("jittered 10s = %v, want in [8s, 12s] whole ms", d)
		}
		if d := m.Apply(time.Second, rng); d != 5*time.Second {
			t.Fatalf("MinDuration not applied: %v", d)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	bad := func(f func(*PoissonConfig)) PoissonConfig {
		c := Paper000Light()
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  PoissonConfig
		want error
	}{
		{"no workflows", bad(func(c *PoissonConfig) { c.Workflows = nil }), ErrConfig},
		{"zero rate", bad(func(c *PoissonConfig) { c.Workflows[0].Rate = 0 }), ErrRange},
		{"NaN rate", bad(func(c *PoissonConfig) { c.Workflows[0].Rate = math.NaN() }), ErrRange},
		{"zero maps", bad(func(c *PoissonConfig) { c.Workflows[0].Maps = 0 }), ErrRange},
		{"negative reduces", bad(func(c *PoissonConfig) { c.Workflows[0].Reduces = -1 }), ErrRange},
		{"repeated name", bad(func(c *PoissonConfig) { c.Workflows[1].Name = "W1" }), ErrConfig},
		{"no bound", bad(func(c *PoissonConfig) { c.Horizon = 0 }), ErrConfig},
		{"jitter 1", bad(func(c *PoissonConfig) { c.Model.Jitter = 1 }), ErrRange},
		{"negative map rate", bad(func(c *PoissonConfig) { c.Model.MapRate = -1 }), ErrRange},
		{"zero min duration", bad(func(c *PoissonConfig) { c.Model.MinDuration = 0 }), ErrRange},
		{"deadline k reversed", bad(func(c *PoissonConfig) { c.Constraints.Deadline = DeadlineRule{KMin: 3, KMax: 2} }), ErrRange},
		{"share without slots", bad(func(c *PoissonConfig) { c.Constraints.Deadline = DeadlineRule{KMin: 1, KMax: 2, Basis: ClusterShare} }), ErrRange},
		{"budget no price", bad(func(c *PoissonConfig) { c.Constraints.Budget = BudgetRule{UMin: 1, UMax: 2} }), ErrRange},
		{"phi 2", bad(func(c *PoissonConfig) { c.Constraints.Phi = []float64{2} }), ErrRange},
	}
	for _, tt := range tests {
		_, err := GeneratePoisson(tt.cfg, seeded(1))
		var ce *ConfigError
		if !errors.Is(err, tt.want) || !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *ConfigError wrapping %v", tt.name, err, tt.want)
		}
	}
	if _, err := GeneratePoisson(Paper000Light(), nil); !errors.Is(err, ErrConfig) {
		t.Errorf("nil rng: %v", err)
	}
}

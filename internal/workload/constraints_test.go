package workload

import (
	"testing"
	"time"
)

// job returns a job whose phase p has tasks of the given seconds.
func job(phases ...[]float64) JobSpec {
	var j JobSpec
	for _, ph := range phases {
		var p PhaseSpec
		for _, s := range ph {
			p.Tasks = append(p.Tasks, TaskSpec{Profile: []Stage{{Duration: time.Duration(s * float64(time.Second))}}})
		}
		j.Phases = append(j.Phases, p)
	}
	return j
}

func TestIsolated(t *testing.T) {
	j := job([]float64{10, 20, 30}, []float64{5})
	tests := []struct {
		name string
		rule DeadlineRule
		want time.Duration
	}{
		{"critical path: 30 + 5", DeadlineRule{Basis: CriticalPath}, 35 * time.Second},
		{"share 2/1: max(30, 60/2) + max(5, 5/1)", DeadlineRule{Basis: ClusterShare, MapSlots: 2, ReduceSlots: 1}, 35 * time.Second},
		{"share 1/1: 60 + 5", DeadlineRule{Basis: ClusterShare, MapSlots: 1, ReduceSlots: 1}, 65 * time.Second},
		{"share 4/1: max(30, 15) + 5", DeadlineRule{Basis: ClusterShare, MapSlots: 4, ReduceSlots: 1}, 35 * time.Second},
	}
	for _, tt := range tests {
		if got := tt.rule.Isolated(&j); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestConstraintsApply(t *testing.T) {
	tests := []struct {
		name     string
		c        Constraints
		phiGiven bool
		deadline time.Duration
		budget   float64
		phi      float64
	}{
		// k fixed at 2 × critical path 35 s = 70 s.
		{"deadline only: φ 1", Constraints{Deadline: DeadlineRule{KMin: 2, KMax: 2}}, false, 70 * time.Second, 0, 1},
		// k 1.01 × 35 = 35.35 s, rounded up to 36 s.
		{"deadline rounds up", Constraints{Deadline: DeadlineRule{KMin: 1.01, KMax: 1.01}}, false, 36 * time.Second, 0, 1},
		// u 1 × price 0.5 × 65 task-seconds = 32.5.
		{"budget only: φ 0", Constraints{Budget: BudgetRule{UMin: 1, UMax: 1, Price: 0.5}}, false, 0, 32.5, 0},
		{"both: φ 0.5", Constraints{Deadline: DeadlineRule{KMin: 2, KMax: 2}, Budget: BudgetRule{UMin: 2, UMax: 2, Price: 1}}, false, 70 * time.Second, 130, 0.5},
		{"neither: φ 1", Constraints{}, false, 0, 0, 1},
		{"one φ choice", Constraints{Phi: []float64{0.25}}, false, 0, 0, 0.25},
		{"φ given is kept", Constraints{Phi: []float64{0.25}}, true, 0, 0, 0.75},
	}
	for _, tt := range tests {
		j := job([]float64{10, 20, 30}, []float64{5})
		if tt.phiGiven {
			j.Phi = 0.75
		}
		if err := tt.c.Validate(); err != nil {
			t.Fatal(err)
		}
		tt.c.apply(&j, tt.phiGiven, seeded(1))
		if j.Deadline != tt.deadline || j.Budget != tt.budget || j.Phi != tt.phi {
			t.Errorf("%s: deadline %v budget %v φ %v; want %v %v %v", tt.name, j.Deadline, j.Budget, j.Phi, tt.deadline, tt.budget, tt.phi)
		}
	}
	// k drawn in [KMin, KMax].
	c := Constraints{Deadline: DeadlineRule{KMin: 1.5, KMax: 4}, Phi: []float64{0, 0.5, 1}}
	rng := seeded(2)
	seen := map[float64]int{}
	for range 1000 {
		j := job([]float64{100})
		c.apply(&j, false, rng)
		if j.Deadline < 150*time.Second || j.Deadline > 400*time.Second {
			t.Fatalf("deadline %v outside [150s, 400s]", j.Deadline)
		}
		seen[j.Phi]++
	}
	if len(seen) != 3 {
		t.Fatalf("φ choices drawn: %v", seen)
	}
}

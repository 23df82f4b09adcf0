package experiment

import (
	"testing"

	"github.com/schedkit/schedkit/internal/workload"
)

// -policies replaces the baselines; LSS columns stay.
func TestLSSBaselines(t *testing.T) {
	cols, err := lssBaselines(Params{Policies: []string{"EDF", "drf"}}, lssBaseNames)
	if err != nil || len(cols) != 2 || cols[0].Name != "edf" || cols[1].Name != "drf" {
		t.Fatalf("%+v, %v", cols, err)
	}
	if cols, _ := lssBaselines(Params{}, lssBaseNames); len(cols) != 3 || cols[0].Name != "fifo" || cols[1].Name != "edf" || cols[2].Name != "fair" {
		t.Fatalf("defaults %+v", cols)
	}
	if _, err := lssBaselines(Params{Policies: []string{"lifo"}}, lssBaseNames); err == nil {
		t.Fatal("unknown policy accepted")
	}
}

// scaleModel reaches the target load and keeps the model at target 0.
func TestScaleModel(t *testing.T) {
	wc := workload.Paper000Light()
	_, f, m, _ := scaleModel(wc, 0)
	if f != 1 || m < 0.5 || m > 0.6 {
		t.Errorf("as is: factor %v load %v", f, m)
	}
	for _, target := range []float64{0.4, 1.2} {
		c, f, m, _ := scaleModel(wc, target)
		if d := m - target; d > 1e-6 || d < -1e-6 {
			t.Errorf("target %v: load %v (factor %v)", target, m, f)
		}
		if got, _, _ := c.OfferedLoad(10, 5); got != m {
			t.Errorf("target %v: config's load %v, reported %v", target, got, m)
		}
	}
}

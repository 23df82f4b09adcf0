package dbs_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/schedkittest"
)

// costedJob is a schedkittest.Job with dbs's budget, φ and cost.
type costedJob struct {
	*schedkittest.Job
}

func (costedJob) Budget() float64           { return 0 }
func (costedJob) Phi() float64              { return 1 }
func (costedJob) CostSoFar() float64        { return 0 }
func (costedJob) DataSizes() (int64, int64) { return 0, 0 }

// TestTaskTimeHintSharedWithLSS: a job type hinting a task time as lss
// reads it gives dbs the same hint (one interface for both).
func TestTaskTimeHintSharedWithLSS(t *testing.T) {
	j := costedJob{schedkittest.NewJob("j", t0, t0.Add(time.Hour), 10, 2)}
	j.Hint = 30 * sec
	var _ lss.TaskTimeHinter = j
	var _ dbs.TaskTimeHinter = j
	s, err := dbs.New(dbs.Config{Cluster: newCluster(2, 2, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(t0, j); err != nil {
		t.Fatal(err)
	}
	st, err := s.Status("j")
	if err != nil {
		t.Fatal(err)
	}
	if st.TaskTimeUnknown || st.TaskTime != 30*sec {
		t.Errorf("task time %v (unknown %v), want the 30 s hint", st.TaskTime, st.TaskTimeUnknown)
	}
}

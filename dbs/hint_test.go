package dbs_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/lss"
)

// TestTaskTimeHintSharedWithLSS: a job type hinting a task time as lss
// reads it gives dbs the same hint (one interface for both).
func TestTaskTimeHintSharedWithLSS(t *testing.T) {
	j := mrJob("j", 1, 10, 2, time.Hour, 0) // dbstest's job: schedkittest's, with dbs's budget, φ and cost
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

package sim

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/workload"
)

// naiveTaskID is the reference for taskID: the ID by concatenation.
func naiveTaskID(j *Job, p, i int) schedkit.TaskID {
	return schedkit.TaskID(j.spec.ID + "/" + strconv.Itoa(p) + "/" + strconv.Itoa(i))
}

// taskID builds the same string as concatenation, for short and long
// job IDs (past its stack buffer) and small and large indices.
func TestTaskIDMatchesNaive(t *testing.T) {
	long := fmt.Sprintf("%080d", 7)
	for _, id := range []string{"", "j", "job-000123", long} {
		j := &Job{spec: &workload.JobSpec{ID: id}}
		for _, p := range []int{0, 1, 9, 10, 255} {
			for _, i := range []int{0, 5, 99, 100, 12345, 174999, 1 << 40} {
				if got, want := taskID(j, p, i), naiveTaskID(j, p, i); got != want {
					t.Fatalf("taskID(%q, %d, %d) = %q, want %q", id, p, i, got, want)
				}
			}
		}
	}
}

// BenchmarkTaskID compares taskID with concatenation (naive) for a
// trace day's job ID and task indices of 1 to 6 digits.
func BenchmarkTaskID(b *testing.B) {
	j := &Job{spec: &workload.JobSpec{ID: "job-012345"}}
	for _, i := range []int{7, 1234, 174999} {
		for _, naive := range []bool{false, true} {
			f := taskID
			if naive {
				f = naiveTaskID
			}
			b.Run(fmt.Sprintf("index=%d/naive=%v", i, naive), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = f(j, 1, i)
				}
			})
		}
	}
}

package workload_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/workload"
)

// TestSWIMShare: cutting with Share before tasks are laid out keeps
// exactly the jobs (tasks, durations, deadlines) a full read followed by
// the same cut keeps, on input out of submission order.
func TestSWIMShare(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "j%d\t%d\t0\t%d\t%d\t%d\n", i, (i*37)%50, (1+i%7)*64<<20, (i%3)*(1<<30), 1<<20)
	}
	read := func(share float64) workload.Workload {
		opt := workload.DefaultTraceOptions()
		opt.Share = share
		w, err := workload.ReadSWIM(strings.NewReader(b.String()), "t", opt, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	full := read(0)
	for _, share := range []float64{0.1, 0.5, 0.99} {
		cut := read(share)
		keep := len(cut.Jobs)
		if want := int(float64(len(full.Jobs))*share + 0.999999); keep != want {
			t.Errorf("share %g kept %d jobs, want %d", share, keep, want)
		}
		if d := cmp.Diff(full.Jobs[:keep], cut.Jobs); d != "" {
			t.Errorf("share %g: jobs differ from a full read's (-full +cut):\n%s", share, d)
		}
	}
	opt := workload.DefaultTraceOptions()
	opt.Share = 1.5
	if _, err := workload.ReadSWIM(strings.NewReader(b.String()), "t", opt, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Error("Share 1.5 accepted")
	}
}

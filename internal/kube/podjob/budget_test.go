package podjob_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestBudgetAnnotations checks the DeadlineBudget annotations read with
// Options.Budget, and the runs a job's cost is charged for.
func TestBudgetAnnotations(t *testing.T) {
	ann := map[string]string{podjob.AnnotationPhi: "0.5", podjob.AnnotationBudget: "40.5",
		podjob.AnnotationRelativeDeadline: "500s", podjob.AnnotationDataSizes: "input=3350Mi, reduce=1k"}
	pods := []*v1.Pod{
		pod("m0", "j", 0, succeeded(0, 20*time.Second)),
		pod("m1", "j", 1, running("n1", 40*time.Second)),
		pod("m2", "j", 2),
	}
	snap := podjob.BuildWith(now, pods, lookup(job("j", ann)), nil, podjob.Options{Budget: true})
	if len(snap.Jobs) != 1 {
		t.Fatalf("not translated: %v", snap.PodError(pods[0].UID))
	}
	j := snap.Jobs[0]
	in, red := j.DataSizes()
	if j.Phi() != 0.5 || j.Budget() != 40.5 || in != 3350<<20 || red != 1000 || !j.Deadline().Equal(sub.Add(500*time.Second)) {
		t.Errorf("phi %v budget %v sizes %d %d deadline %v", j.Phi(), j.Budget(), in, red, j.Deadline())
	}
	runs := j.Runs()
	want := []podjob.Run{{Start: sub, End: sub.Add(20 * time.Second)}, {Start: sub.Add(40 * time.Second)}}
	if len(runs) != 2 || runs[0] != want[0] || runs[1] != want[1] {
		t.Errorf("runs %+v, want %+v", runs, want)
	}

	// φ = 0 needs no deadline; without Options.Budget the same job needs one.
	lean := map[string]string{podjob.AnnotationPhi: "0", podjob.AnnotationBudget: "3"}
	snap = podjob.BuildWith(now, pods[2:], lookup(job("j", lean)), nil, podjob.Options{Budget: true})
	if len(snap.Jobs) != 1 || !snap.Jobs[0].Deadline().IsZero() || snap.Jobs[0].Phi() != 0 {
		t.Errorf("φ=0 job without deadline: %v", snap.PodError(pods[2].UID))
	}
	snap = podjob.Build(now, pods[2:], lookup(job("j", lean)), nil)
	if err := snap.PodError(pods[2].UID); err == nil || !strings.Contains(err.Error(), "needs a deadline") {
		t.Errorf("without Options.Budget: %v", err)
	}

	with := func(kv ...string) map[string]string {
		m := map[string]string{podjob.AnnotationRelativeDeadline: "500s"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "-" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		ann  map[string]string
		want string
	}{
		{"no phi", with(podjob.AnnotationBudget, "3"), "schedkit.io/phi: missing"},
		{"phi 0.7", with(podjob.AnnotationPhi, "0.7", podjob.AnnotationBudget, "3"), `schedkit.io/phi: "0.7": want 1`},
		{"phi text", with(podjob.AnnotationPhi, "high"), `schedkit.io/phi: "high"`},
		{"phi NaN", with(podjob.AnnotationPhi, "NaN"), `schedkit.io/phi: "NaN"`},
		{"no budget", with(podjob.AnnotationPhi, "0.5"), "schedkit.io/budget: missing or zero"},
		{"zero budget", with(podjob.AnnotationPhi, "0", podjob.AnnotationBudget, "0"), "schedkit.io/budget: missing or zero"},
		{"negative budget", with(podjob.AnnotationPhi, "1", podjob.AnnotationBudget, "-2"), `schedkit.io/budget: "-2" is not`},
		{"NaN budget", with(podjob.AnnotationPhi, "1", podjob.AnnotationBudget, "NaN"), `schedkit.io/budget: "NaN" is not`},
		{"Inf budget", with(podjob.AnnotationPhi, "1", podjob.AnnotationBudget, "+Inf"), `schedkit.io/budget: "+Inf" is not`},
		{"phi 1 no deadline", with(podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "-"), "a job with schedkit.io/phi 1 > 0 needs a deadline"},
		{"sizes empty", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, " "), "schedkit.io/data-sizes: empty"},
		{"sizes key", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "output=1Gi"), "unknown size"},
		{"sizes no =", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "1Gi"), "want input=size"},
		{"sizes twice", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "input=1,input=2"), "input given twice"},
		{"sizes negative", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "input=-1Gi"), "not a non-negative quantity"},
		{"sizes garbled", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "reduce=lots"), "not a non-negative quantity"},
		{"sizes huge", with(podjob.AnnotationPhi, "1", podjob.AnnotationDataSizes, "input=100Ei"), "below 2^63"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("p0", "j", 0)
			snap := podjob.BuildWith(now, []*v1.Pod{p}, lookup(job("j", tc.ann)), nil, podjob.Options{Budget: true})
			err := snap.PodError(p.UID)
			if len(snap.Jobs) != 0 || err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, podjob.ErrInvalid) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

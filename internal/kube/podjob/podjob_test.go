package podjob_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

var (
	now = kubetest.Now
	sub = now.Add(-100 * time.Second)
)

// job is Job ns/name submitted at sub.
func job(name string, ann map[string]string) *batchv1.Job {
	j := kubetest.Job("ns", name, sub)
	j.Annotations = ann
	return j
}

// jobOf is the Job ns/name pods name as their controller (its UID).
func jobOf(name string) *batchv1.Job { return job(name, nil) }

// pod is pod ns/name of Job ns/jobName (none: "") created i ms after sub.
func pod(name, jobName string, i int, mutate ...func(*v1.Pod)) *v1.Pod {
	if jobName != "" {
		mutate = append([]func(*v1.Pod){kubetest.Of(jobOf(jobName))}, mutate...)
	}
	return kubetest.Pod("ns", name, sub.Add(time.Duration(i)*time.Millisecond), mutate...)
}

// running binds a pod to node, started start after sub (start < 0: not
// started yet).
func running(node string, start time.Duration) func(*v1.Pod) {
	if start < 0 {
		return kubetest.Bound(node)
	}
	return kubetest.Running(node, sub.Add(start))
}

func succeeded(start, dur time.Duration) func(*v1.Pod) {
	return kubetest.Succeeded("n1", sub.Add(start), dur)
}

var (
	reduce = kubetest.Reduce
	lookup = kubetest.Lookup
)

func setLabel(p *v1.Pod, k, v string) { kubetest.Label(k, v)(p) }

func node(name string, maps, reduces int64, cordoned bool) *v1.Node {
	if cordoned {
		return kubetest.Node(name, maps, reduces, kubetest.Cordoned)
	}
	return kubetest.Node(name, maps, reduces)
}

// TestTranslate checks the counters of one job with every kind of pod.
func TestTranslate(t *testing.T) {
	j := job("etl", map[string]string{podjob.AnnotationRelativeDeadline: "500s", podjob.AnnotationTasks: "map=6,reduce=2"})
	pods := []*v1.Pod{
		pod("m0", "etl", 0, succeeded(0, 20*time.Second)),
		pod("m1", "etl", 1, succeeded(5*time.Second, 30*time.Second)),
		pod("m2", "etl", 2, running("n1", 40*time.Second), func(p *v1.Pod) {
			p.Spec.Containers = []v1.Container{{Resources: v1.ResourceRequirements{Requests: v1.ResourceList{podjob.ResourceMapSlot: resource.MustParse("1")}}}}
		}),
		pod("m3", "etl", 3, running("n2", -1)), // not started yet: starts now
		pod("m5", "etl", 5),
		pod("m4", "etl", 5), // same creation time: name breaks the tie
		pod("mf", "etl", 6, func(p *v1.Pod) { p.Status.Phase = v1.PodFailed }),
		pod("r0", "etl", 7, reduce),
		pod("r1", "etl", 8, reduce, func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "slow-start"}} }),
		pod("other", "", 9),
	}
	snap := podjob.Build(now, pods, lookup(j), []*v1.Node{node("n1", 2, 1, false), node("n2", 2, 1, false), node("n3", 9, 9, true)})
	if len(snap.Jobs) != 1 {
		t.Fatalf("jobs: %v", snap.Jobs)
	}
	got := snap.Jobs[0]
	if got.ID() != "Job/ns/etl" || !got.Submitted().Equal(sub) || !got.Deadline().Equal(sub.Add(500*time.Second)) || got.Phases() != 2 {
		t.Errorf("job %s submitted %v deadline %v phases %d", got.ID(), got.Submitted(), got.Deadline(), got.Phases())
	}
	wantMap := schedkit.PhaseProgress{Total: 6, Running: 2, Finished: 2, Ready: 2,
		RunningStartSum: 40*time.Second + 100*time.Second, FinishedDurationSum: 50 * time.Second}
	if pr := got.Progress(schedkit.PhaseMap); pr != wantMap {
		t.Errorf("map progress %+v, want %+v", pr, wantMap)
	}
	wantReduce := schedkit.PhaseProgress{Total: 2, Ready: 1}
	if pr := got.Progress(schedkit.PhaseReduce); pr != wantReduce {
		t.Errorf("reduce progress %+v, want %+v", pr, wantReduce)
	}
	var names []string
	for _, p := range got.Ready(schedkit.PhaseMap) {
		names = append(names, p.Name)
	}
	if fmt.Sprint(names) != "[m4 m5]" {
		t.Errorf("ready maps %v, want [m4 m5]", names)
	}
	if r, ok := snap.Pod("pod-m5"); !ok || r.Rank != 1 || r.Phase != schedkit.PhaseMap {
		t.Errorf("pod m5: %+v %v", r, ok)
	}
	if r, ok := snap.Pod("pod-m2"); !ok || r.Rank != -1 {
		t.Errorf("running pod m2: %+v %v", r, ok)
	}
	if _, ok := snap.Pod("pod-other"); ok || snap.PodError("pod-other") != nil {
		t.Error("an unmanaged pod was translated")
	}
	if c := snap.Cluster.Capacity(); c[0] != 4 || c[1] != 2 {
		t.Errorf("capacity %v, want [4 2] (cordoned node left out)", c)
	}
	if a := snap.Cluster.Node(0).Available(); a[0] != 1 || a[1] != 1 {
		t.Errorf("n1 available %v, want [1 1]", a)
	}
}

func TestPodGroup(t *testing.T) {
	ann := map[string]string{podjob.AnnotationDeadline: "2026-11-23T03:00:00Z"}
	group := func(p *v1.Pod) { setLabel(p, podjob.LabelPodGroup, "g"); p.Annotations = ann }
	snap := podjob.Build(now, []*v1.Pod{pod("b", "", 2, group), pod("a", "", 1, group)}, nil, nil)
	if len(snap.Jobs) != 1 {
		t.Fatalf("jobs %v, errors %v", snap.Jobs, snap.PodError("pod-a"))
	}
	j := snap.Jobs[0]
	if j.ID() != "PodGroup/ns/g" || !j.Submitted().Equal(sub.Add(time.Millisecond)) || j.Phases() != 1 || j.Object != nil {
		t.Errorf("group %s submitted %v phases %d", j.ID(), j.Submitted(), j.Phases())
	}
	if snap.Job("PodGroup/ns/g") != j || snap.Job("nope") != nil {
		t.Error("Snapshot.Job lookup")
	}
}

// TestBadInput checks that every kind of bad input gives an error that
// names the object and the annotation, for every pod of the job, and
// leaves the job out.
func TestBadInput(t *testing.T) {
	good := map[string]string{podjob.AnnotationRelativeDeadline: "500s"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	phase := func(v string) func(*v1.Pod) { return func(p *v1.Pod) { setLabel(p, podjob.LabelPhase, v) } }
	for _, tc := range []struct {
		name string
		ann  map[string]string
		pods []*v1.Pod
		want string // in the error text
		is   error
	}{
		{"no deadline", with(podjob.AnnotationTasks, "map=1"), nil, "schedkit.io/deadline: missing", podjob.ErrInvalid},
		{"two deadlines", with(podjob.AnnotationTasks, "map=1", podjob.AnnotationDeadline, "2026-11-23T03:00:00Z", podjob.AnnotationRelativeDeadline, "1s"), nil, "both", podjob.ErrInvalid},
		{"bad time", with(podjob.AnnotationDeadline, "tomorrow"), nil, `"tomorrow" is not an RFC 3339 time`, podjob.ErrInvalid},
		{"bad duration", with(podjob.AnnotationRelativeDeadline, "soon"), nil, "not a positive Go duration", podjob.ErrInvalid},
		{"negative duration", with(podjob.AnnotationRelativeDeadline, "-5s"), nil, "not a positive Go duration", podjob.ErrInvalid},
		{"empty tasks", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, ""), nil, "schedkit.io/tasks: empty", podjob.ErrInvalid},
		{"tasks no =", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "map"), nil, "want phase=count", podjob.ErrInvalid},
		{"tasks phase", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "shuffle=2"), nil, "unknown phase", podjob.ErrInvalid},
		{"tasks twice", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "map=2,map=3"), nil, "given twice", podjob.ErrInvalid},
		{"tasks count", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "map=-1"), nil, "count must be", podjob.ErrInvalid},
		{"tasks huge", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "map=99999999999"), nil, "count must be", podjob.ErrInvalid},
		{"tasks too few", with(podjob.AnnotationRelativeDeadline, "5s", podjob.AnnotationTasks, "map=1"),
			[]*v1.Pod{pod("p0", "j", 0), pod("p1", "j", 1)}, "declares map=1 but the job has 2 map pods", podjob.ErrInvalid},
		{"bad phase label", good, []*v1.Pod{pod("p0", "j", 0, phase("shuffle"))}, `schedkit.io/phase: "shuffle"`, podjob.ErrInvalid},
		{"unannotated Job, labelled pods", map[string]string{"other": "x"}, []*v1.Pod{pod("p0", "j", 0, phase("map"))}, "no schedkit.io/ annotation", podjob.ErrInvalid},
		{"succeeded without start", good, []*v1.Pod{pod("p0", "j", 0, func(p *v1.Pod) { p.Status.Phase = v1.PodSucceeded })}, "without status.startTime", podjob.ErrInvalid},
		{"succeeded without finish", good, []*v1.Pod{pod("p0", "j", 0, succeeded(0, time.Second), func(p *v1.Pod) { p.Status.ContainerStatuses = nil })}, "without a container finish time", podjob.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := tc.pods
			if pods == nil {
				pods = []*v1.Pod{pod("p0", "j", 0), pod("p1", "j", 1)}
			}
			snap := podjob.Build(now, pods, lookup(job("j", tc.ann)), nil)
			if len(snap.Jobs) != 0 {
				t.Fatalf("bad job translated: %+v", snap.Jobs[0])
			}
			for _, p := range pods {
				err := snap.PodError(p.UID)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) || !strings.HasPrefix(err.Error(), "podjob: ") {
					t.Errorf("pod %s: error %v; want one containing %q", p.Name, err, tc.want)
				}
				if strings.Count(err.Error(), "podjob:") != 1 {
					t.Errorf("error %q repeats its prefix", err)
				}
			}
		})
	}
	t.Run("Job not found", func(t *testing.T) {
		p := pod("p0", "ghost", 0, phase("map"))
		snap := podjob.Build(now, []*v1.Pod{p}, lookup(), nil)
		if err := snap.PodError(p.UID); !errors.Is(err, podjob.ErrNotFound) {
			t.Errorf("error %v, want ErrNotFound", err)
		}
		snap = podjob.Build(now, []*v1.Pod{p}, nil, nil)
		if err := snap.PodError(p.UID); !errors.Is(err, podjob.ErrNotFound) {
			t.Errorf("nil lookup: error %v, want ErrNotFound", err)
		}
	})
	t.Run("ordinary Job", func(t *testing.T) {
		p := pod("p0", "plain", 0)
		snap := podjob.Build(now, []*v1.Pod{p}, lookup(job("plain", nil)), nil)
		if _, ok := snap.Pod(p.UID); ok || snap.PodError(p.UID) != nil || len(snap.Jobs) != 0 {
			t.Error("an ordinary Job's pod was managed")
		}
	})
	t.Run("pod group disagreement", func(t *testing.T) {
		a := pod("a", "", 0, func(p *v1.Pod) { setLabel(p, podjob.LabelPodGroup, "g"); p.Annotations = good })
		b := pod("b", "", 1, func(p *v1.Pod) {
			setLabel(p, podjob.LabelPodGroup, "g")
			p.Annotations = map[string]string{podjob.AnnotationRelativeDeadline: "600s"}
		})
		snap := podjob.Build(now, []*v1.Pod{a, b, nil}, nil, []*v1.Node{nil})
		if err := snap.PodError(b.UID); err == nil || !strings.Contains(err.Error(), "pod group ns/g: pods a and b carry different") {
			t.Errorf("error %v", err)
		}
	})
}

// FuzzAnnotations feeds arbitrary annotation values through Build (and,
// with budget, BuildWith reading the DeadlineBudget annotations): it
// must never panic, and a job is either translated with a valid
// deadline (for DeadlineBudget: one when φ > 0), φ, budget, data sizes
// and counters, or every pod gets an error.
func FuzzAnnotations(f *testing.F) {
	f.Add("2026-11-23T03:00:00Z", "", "map=3,reduce=1", "reduce", "", "", "", false)
	f.Add("", "500s", "", "map", "", "", "", false)
	f.Add("x", "y", "map=,reduce", "", "", "", "", false)
	f.Add("", "500s", "", "map", "0.5", "40", "input=3Gi,reduce=10Mi", true)
	f.Add("", "", "", "", "0", "1e3", "reduce=1k", true)
	f.Add("", "", "", "", "1", "-1", "input=", true)
	f.Fuzz(func(t *testing.T, abs, rel, tasks, phase, phi, budget, sizes string, withBudget bool) {
		ann := map[string]string{}
		for k, v := range map[string]string{podjob.AnnotationDeadline: abs, podjob.AnnotationRelativeDeadline: rel, podjob.AnnotationTasks: tasks,
			podjob.AnnotationPhi: phi, podjob.AnnotationBudget: budget, podjob.AnnotationDataSizes: sizes} {
			if v != "" {
				ann[k] = v
			}
		}
		ann["schedkit.io/x"] = "managed"
		pods := []*v1.Pod{
			pod("p0", "j", 0, func(p *v1.Pod) { setLabel(p, podjob.LabelPhase, phase) }),
			pod("p1", "j", 1, succeeded(0, time.Second)),
		}
		snap := podjob.BuildWith(now, pods, lookup(job("j", ann)), nil, podjob.Options{Budget: withBudget})
		if len(snap.Jobs) == 1 {
			j := snap.Jobs[0]
			for p := range j.Phases() {
				if err := j.Progress(schedkit.Phase(p)).Validate(); err != nil {
					t.Fatalf("translated job has bad counters: %v", err)
				}
			}
			if j.Deadline().IsZero() && (!withBudget || j.Phi() > 0) {
				t.Fatal("translated job without deadline")
			}
			if withBudget {
				in, red := j.DataSizes()
				b := j.Budget()
				if (j.Phi() != 0 && j.Phi() != 0.5 && j.Phi() != 1) || math.IsNaN(b) || b < 0 || (j.Phi() < 1 && b <= 0) || in < 0 || red < 0 {
					t.Fatalf("translated job with φ %v, budget %v, sizes %d %d", j.Phi(), b, in, red)
				}
			}
			return
		}
		for _, p := range pods {
			if snap.PodError(p.UID) == nil {
				t.Fatalf("job left out without an error for pod %s", p.Name)
			}
		}
	})
}

package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
)

// The FineGrained scenario language: nodes (allocatable CPU and memory,
// optionally a measured usage sample), the pods running on them (ours,
// with predicted stages, or another scheduler's), pending pods of ours,
// and the finished pods' usage the History learns from — all at now.

const fgmGi = 1 << 30

type fgmNode struct {
	name     string
	cores    float64 // allocatable CPU
	memGi    float64 // allocatable memory
	cordoned bool
	sample   *[2]float64 // measured total usage (cores, GiB); nil: not measured
}

type fgmPod struct {
	name     string
	logic    string            // schedkit.io/logic; "" none
	size     int64             // schedkit.io/data-size in bytes; 0 none
	hash     string            // pod-template-hash label (a Deployment's pod); "" none
	bad      map[string]string // annotations set verbatim (bad input)
	cpuMilli int64             // request
	memMi    int64             // request
	// Running pods only.
	node    string
	ago     time.Duration // started at now − ago
	used    [2]float64    // measured usage (cores, GiB), in the node's sample
	foreign bool          // another scheduler's pod
}

func (p fgmPod) uid() types.UID { return types.UID("pod-" + p.name) }

type fgmScenario struct {
	name     string
	history  finegrained.Recording // finished pods (Nodes filled by the test)
	nodes    []fgmNode
	running  []fgmPod
	pending  []fgmPod
	want     map[string]string // hand cases: pod → node ("" unbound), as worked out by hand
	strictly bool              // hand cases: want lists every pending pod
}

const fgmScheduler = "schedkit-fgm"

func fgmCPUQ(cores float64) resource.Quantity {
	return *resource.NewMilliQuantity(int64(cores*1000+0.5), resource.DecimalSI)
}

func fgmMemQ(g float64) resource.Quantity {
	return *resource.NewQuantity(int64(g*fgmGi), resource.BinarySI)
}

// recording returns the scenario's feed: its history and a sample of
// every measured node (its total, and each running pod's usage).
func (sc *fgmScenario) recording() finegrained.Recording {
	r := sc.history
	r.Nodes = nil
	for _, n := range sc.nodes {
		if n.sample == nil {
			continue
		}
		rn := finegrained.RecordedNode{Node: n.name, At: metav1.NewTime(now),
			Used: v1.ResourceList{v1.ResourceCPU: fgmCPUQ(n.sample[0]), v1.ResourceMemory: fgmMemQ(n.sample[1])},
			Pods: map[string]v1.ResourceList{}}
		for _, p := range sc.running {
			if p.node == n.name {
				rn.Pods[string(p.uid())] = v1.ResourceList{v1.ResourceCPU: fgmCPUQ(p.used[0]), v1.ResourceMemory: fgmMemQ(p.used[1])}
			}
		}
		r.Nodes = append(r.Nodes, rn)
	}
	return r
}

func (sc *fgmScenario) objects() (objs []runtime.Object) {
	for _, n := range sc.nodes {
		node := kubetest.Node(n.name, 0, 0, func(nd *v1.Node) {
			nd.Status.Allocatable[v1.ResourceCPU] = fgmCPUQ(n.cores)
			nd.Status.Allocatable[v1.ResourceMemory] = fgmMemQ(n.memGi)
		})
		node.Spec.Unschedulable = n.cordoned
		objs = append(objs, node)
	}
	mk := func(i int, p fgmPod, running bool) *v1.Pod {
		ann := map[string]string{}
		if p.logic != "" {
			ann["schedkit.io/logic"] = p.logic
		}
		if p.size != 0 {
			ann["schedkit.io/data-size"] = fmt.Sprint(p.size)
		}
		for k, v := range p.bad {
			ann[k] = v
		}
		var labels map[string]string
		if p.hash != "" {
			labels = map[string]string{"pod-template-hash": p.hash}
		}
		sched := fgmScheduler
		if p.foreign {
			sched = v1.DefaultSchedulerName
		}
		pod := kubetest.Pod(ns, p.name, now.Add(-time.Hour+time.Duration(i)*time.Millisecond), kubetest.Scheduler(sched), func(q *v1.Pod) {
			q.UID, q.Annotations, q.Labels = p.uid(), ann, labels
			q.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(p.cpuMilli, resource.DecimalSI),
				v1.ResourceMemory: *resource.NewQuantity(p.memMi<<20, resource.BinarySI)}
		})
		if running {
			kubetest.Running(p.node, now.Add(-p.ago))(pod)
		}
		return pod
	}
	for i, p := range sc.running {
		// Above every pending pod.
		pod := mk(i, p, true)
		prio := int32(2000)
		pod.Spec.Priority = &prio
		objs = append(objs, pod)
	}
	for i, p := range sc.pending {
		// Priorities fix the queue order: pending pods are tried in
		// the scenario's order. They never preempt (DefaultPreemption
		// stays in the profile): a refused pod retried after a later,
		// lower-priority one was bound must not evict it.
		pod := mk(len(sc.running)+i, p, false)
		prio := int32(1000 - i)
		never := v1.PreemptNever
		pod.Spec.Priority, pod.Spec.PreemptionPolicy = &prio, &never
		objs = append(objs, pod)
	}
	return objs
}

// fgmResult is what the real scheduler did.
type fgmResult struct {
	popped, reserved []string
	bindings         map[string]string // pod → node
	failed           map[string]string // pod → latest FailedScheduling note
}

// runFGM runs the real kube-scheduler in-process with the sample
// profile-fgm.yaml and the FineGrained plugin fed by the scenario's
// recording, until every pending pod has had a scheduling attempt and
// every reservation is bound.
func runFGM(t *testing.T, sc *fgmScenario) fgmResult {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	defer cancel()
	client := fake.NewClientset(sc.objects()...)
	res := fgmResult{bindings: map[string]string{}, failed: map[string]string{}}
	var mu sync.Mutex
	playKubelet(client, func(pod, node string) {
		mu.Lock()
		res.bindings[pod] = node
		mu.Unlock()
	})
	filterPods(client)

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	stopWatch, err := broadcaster.StartEventWatcher(func(obj runtime.Object) {
		if e, ok := obj.(*eventsv1.Event); ok && e.Reason == "FailedScheduling" {
			mu.Lock()
			res.failed[e.Regarding.Name] = e.Note
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stopWatch()

	feed, err := finegrained.NewRecordedFeed(sc.recording())
	if err != nil {
		t.Fatal(err)
	}
	rec := newRoundRecorder()
	startScheduler(ctx, t, client, broadcaster, schedulerSetup{profile: "profile-fgm.yaml", plugin: finegrained.Name,
		factory: finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now)), rec: rec})

	deadline := time.Now().Add(20 * time.Second)
	for {
		popped, reserved := rec.snapshot(0)
		mu.Lock()
		nb := len(res.bindings)
		mu.Unlock()
		if len(popped) >= len(sc.pending) && nb >= len(reserved) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("timed out: %d of %d pods tried, %d of %d reservations bound", len(popped), len(sc.pending), nb, len(reserved))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	mu.Lock()
	defer mu.Unlock()
	res.popped, res.reserved = rec.snapshot(0)
	return res
}

func fgmLoadHistory(t *testing.T, file string) finegrained.Recording {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var r finegrained.Recording
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFineGrainedDifferential(t *testing.T) {
	hist := fgmLoadHistory(t, "fgm-history.json")
	cases := fgmHandScenarios(hist)
	for seed := range uint64(8) {
		cases = append(cases, randomFGMScenario(t, seed))
	}
	st := fgmStats{reasons: map[string]int{}}
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			res := runFGM(t, sc)
			checkFGM(t, sc, res, &st)
		})
	}
	t.Logf("over all cases: %+v", st)
	if st.bound < 15 || st.refused < 10 || st.narrowed < 3 || st.compressed < 1 || len(st.reasons) < len(fgmReasons) {
		t.Errorf("weak test: %+v", st)
	}
}

// fgmStats counts what the cases exercised.
type fgmStats struct {
	bound, refused, invalid int
	narrowed                int // pods whose best-scored nodes were fewer than the nodes they fit
	compressed              int // placements fgm made by compressing CPU
	// reasons counts the refusals FineGrained reported on some node, by
	// fgm test (from the FailedScheduling notes).
	reasons map[string]int
}

// fgmReasons are the phrases of FineGrained's refusal messages, by fgm test.
var fgmReasons = map[string]string{
	"used-up":            "is used up",
	"stage-match":        "needs",
	"requested-quantity": "unpredictable pod requests",
	"measured-idle":      "measures",
}

// checkFGM replays the scheduler's attempts, in the order it made them,
// against fgm's own decisions (the oracle) and requires: a pod is bound
// iff fgm.Scheduler.Schedule allocates it on some node, to a node among
// those with the best score; a pod refused everywhere has a
// FailedScheduling note from FineGrained; a pod with bad annotations is
// refused, naming the annotation; the reservation order is the attempt
// order of the bound pods; nothing else is bound.
func checkFGM(t *testing.T, sc *fgmScenario, res fgmResult, st *fgmStats) {
	t.Helper()
	o := newFGMOracle(t, sc)
	pending := map[string]fgmPod{}
	for _, p := range sc.pending {
		pending[p.name] = p
	}
	if len(res.popped) != len(sc.pending) {
		t.Errorf("attempted %v, want every pending pod once", res.popped)
	}
	var wantReserved []string
	for _, name := range res.popped {
		p, ok := pending[name]
		if !ok {
			t.Errorf("attempted %s, not a pending pod", name)
			continue
		}
		got := res.bindings[name]
		if p.bad != nil {
			st.invalid++
			if got != "" {
				t.Errorf("%s has bad annotations and was bound to %s", name, got)
			}
			key := ""
			for k := range p.bad {
				key = k
			}
			if note := res.failed[name]; !strings.Contains(note, key) || !strings.Contains(note, "FineGrained") {
				t.Errorf("%s: FailedScheduling %q does not name %s", name, note, key)
			}
			continue
		}
		fits, scores, compressed := o.decide(p)
		best := int64(-1)
		for _, n := range fits {
			best = max(best, scores[n])
		}
		var top []string
		for _, n := range fits {
			if scores[n] == best {
				top = append(top, n)
			}
		}
		switch {
		case len(fits) == 0:
			st.refused++
			if got != "" {
				t.Errorf("%s: bound to %s; fgm allocates it nowhere", name, got)
			}
			note := res.failed[name]
			t.Logf("%s refused: %s", name, note)
			if !strings.Contains(note, "FineGrained: ") {
				t.Errorf("%s: FailedScheduling %q does not come from FineGrained", name, note)
			}
			for test, phrase := range fgmReasons {
				if strings.Contains(note, phrase) {
					st.reasons[test]++
				}
			}
		case !slices.Contains(top, got):
			t.Errorf("%s: bound to %q; fgm allocates it on %v, best score %d on %v (scores %v)", name, got, fits, best, top, scores)
		default:
			st.bound++
			if len(top) < len(fits) {
				st.narrowed++
			}
			if compressed[got] {
				st.compressed++
			}
			wantReserved = append(wantReserved, name)
			o.bind(p, got)
		}
		if sc.want != nil {
			if w, ok := sc.want[name]; ok && w != got {
				t.Errorf("%s: bound to %q, worked out by hand: %q", name, got, w)
			} else if !ok && sc.strictly {
				t.Errorf("%s: not in the hand-worked outcome", name)
			}
		}
	}
	if !slices.Equal(res.reserved, wantReserved) {
		t.Errorf("reserve order %v, want the attempt order of the pods fgm places %v", res.reserved, wantReserved)
	}
	if len(res.bindings) != len(wantReserved) {
		t.Errorf("bindings %v, want exactly %v", res.bindings, wantReserved)
	}
	o.checkRequests(res.bindings)
}

package finegrained_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
)

// The plugin with a feed that misbehaves.

// scriptedFeed returns what the test sets.
type scriptedFeed struct {
	mu    sync.Mutex
	nodes []finegrained.NodeUsage
	err   error
}

func (f *scriptedFeed) Finished(dst []finegrained.TaskUsage) ([]finegrained.TaskUsage, error) {
	return dst, nil
}

func (f *scriptedFeed) Nodes(dst []finegrained.NodeUsage) ([]finegrained.NodeUsage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(dst, f.nodes...), f.err
}

func (f *scriptedFeed) set(nodes []finegrained.NodeUsage, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes, f.err = nodes, err
}

// logs returns a context whose logger keeps what is logged, and a
// function returning it.
func logs(t *testing.T) (context.Context, func() string) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	t.Cleanup(cancel)
	return ctx, func() string { return logger.GetSink().(ktesting.Underlier).GetBuffer().String() }
}

// A node sample does not live for ever. Node n1 (8 cores) runs
// 7 cores of foreign load, so a pod of 2 cores is refused while the
// sample is in force; it is not once the sample expires — when
// metrics-server fails, when the node drops out of its list, when the
// sample was stamped in the future — nor when the node was re-created
// after it. The outages are logged.
func TestStaleSamplesExpire(t *testing.T) {
	heavy := func(at time.Time) []finegrained.NodeUsage {
		return []finegrained.NodeUsage{{Node: "n1", At: at, Used: resource2(7, 1<<30)}}
	}
	later := now.Add(2 * time.Minute) // past the default metricsStaleAfter (1m)
	for _, tc := range []struct {
		name  string
		first []finegrained.NodeUsage // at now
		then  func(*scriptedFeed)     // until later
		log   string
	}{
		{"metrics-server fails", heavy(now), func(f *scriptedFeed) { f.set(nil, errors.New("metrics-server is unavailable")) },
			"Node usage sample expired"},
		{"node dropped from the list", heavy(now), func(f *scriptedFeed) { f.set(nil, nil) }, "Node missing from the usage feed"},
		{"sample from the future", heavy(now.Add(time.Hour)), func(*scriptedFeed) {}, "Node usage sample expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, logged := logs(t)
			clk := clocktesting.NewFakePassiveClock(now)
			feed := &scriptedFeed{nodes: tc.first}
			p, err := finegrained.NewWithFeed(feed, clk)(ctx, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			pl := p.(*finegrained.Plugin)
			u := mkPod("u", "", list("2", "1Gi"))
			if _, st, _ := cycle(t, pl, u, nodeInfo()); st == nil {
				t.Fatal("fits beside 7 cores of foreign load")
			}
			tc.then(feed)
			for at := now; !at.After(later); at = at.Add(10 * time.Second) {
				clk.SetTime(at)
				pl.Poll(ctx)
			}
			if _, st, _ := cycle(t, pl, u, nodeInfo()); st != nil {
				t.Errorf("the sample outlived its staleness: %v", st.Message())
			}
			if !strings.Contains(logged(), tc.log) {
				t.Errorf("no %q in the log:\n%s", tc.log, logged())
			}
		})
	}
	t.Run("node re-created", func(t *testing.T) {
		clk := clocktesting.NewFakePassiveClock(now)
		p, err := finegrained.NewWithFeed(&scriptedFeed{nodes: heavy(now)}, clk)(context.Background(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		clk.SetTime(now.Add(2 * time.Second))
		ni := nodeInfo()
		n := ni.Node().DeepCopy()
		n.CreationTimestamp = metav1.NewTime(now.Add(time.Second))
		ni.SetNode(n)
		if _, st, _ := cycle(t, p.(*finegrained.Plugin), mkPod("u", "", list("2", "1Gi")), ni); st != nil {
			t.Errorf("the new node inherited its predecessor's load: %v", st.Message())
		}
	})
}

// One glitched sample (64 Ti of memory) makes a key's
// prediction larger than any node; its pods are matched by their
// requests (and their completions teach the History) instead of being
// refused everywhere for good. Logged once per key.
func TestGlitchedPrediction(t *testing.T) {
	ctx, logged := logs(t)
	sample := finegrained.RecordedSample{Duration: metav1.Duration{Duration: 30 * time.Second}, Used: list("1", "64Ti")}
	glitch := finegrained.RecordedTask{Pod: "g", Logic: "etl", Succeeded: true, Samples: []finegrained.RecordedSample{sample, sample}}
	feed, err := finegrained.NewRecordedFeed(finegrained.Recording{Finished: []finegrained.RecordedTask{glitch}})
	if err != nil {
		t.Fatal(err)
	}
	obj := &runtime.Unknown{ContentType: runtime.ContentTypeJSON, Raw: []byte(`{"minObservations":1}`)}
	p, err := finegrained.NewWithFeed(feed, clocktesting.NewFakePassiveClock(now))(ctx, obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*finegrained.Plugin)
	for _, name := range []string{"etl-0", "etl-1"} {
		state := framework.NewCycleState()
		pod := mkPod(name, "etl", list("1", "1Gi"))
		ni := nodeInfo()
		if _, st := pl.PreFilter(ctx, state, pod, []fwk.NodeInfo{ni, nodeInfoOf("4", "64Gi")}); !st.IsSuccess() {
			t.Fatal(st)
		}
		if st := pl.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			t.Errorf("%s refused: %v", name, st.Message())
		}
	}
	if n := strings.Count(logged(), "Prediction fits no node"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logged())
	}
}

// A running pod whose start time is in the future (a node's
// clock ahead, seen after a restart: no plan yet) holds its stages from
// now: a second train pod (4 cores) does not fit beside it on 6 cores.
func TestFutureStartHeldNow(t *testing.T) {
	pl := newPlugin(t, trainHistory(), "")
	a := running(mkPod("a", "train", list("100m", "128Mi")), "n1", -time.Hour)
	_, st, _ := cycle(t, pl, mkPod("b", "train", list("100m", "128Mi")), nodeInfoOf("6", "32Gi", a))
	if st == nil || st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "needs cpu 4 cores, node n1 has 2 cores free") {
		t.Errorf("b beside a: %v", st)
	}
}

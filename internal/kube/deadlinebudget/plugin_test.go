package deadlinebudget

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
)

var now = kubetest.Now

// fixture is a plugin over in-memory listers (no informers running).
type fixture struct {
	pl    *Plugin
	clk   *clocktesting.FakePassiveClock
	cache *kubetest.Cache
}

func newFixture(t testing.TB, raw string) *fixture {
	t.Helper()
	args, err := decodeArgs(&runtime.Unknown{Raw: []byte(raw)})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakePassiveClock(now)
	pl, err := newPlugin(clk, args)
	if err != nil {
		t.Fatal(err)
	}
	c := kubetest.NewCache()
	pl.host = testHost(c)
	return &fixture{pl: pl, clk: clk, cache: c}
}

// testHost is the plugin's host over c's listers.
func testHost(c *kubetest.Cache) *queuesort.Host {
	return &queuesort.Host{Name: Name, Profile: kubetest.DefaultScheduler, Options: podjob.Options{Budget: true}, Lis: c.Listers()}
}

// add adds objects, as an informer event that changes the order.
func (fx *fixture) add(t testing.TB, objs ...runtime.Object) {
	t.Helper()
	fx.cache.Add(t, objs...)
	fx.pl.host.Changed()
}

// kjob is Job ns/name submitted now.
func kjob(name string, ann ...string) *batchv1.Job { return kubetest.Job("ns", name, now, ann...) }

// pod is pod ns/name of Job ns/jobName (none: "") created i ms after now.
func pod(name, jobName string, i int, mutate ...func(*v1.Pod)) *v1.Pod {
	if jobName != "" {
		mutate = append([]func(*v1.Pod){kubetest.Of(kjob(jobName))}, mutate...)
	}
	return kubetest.Pod("ns", name, now.Add(time.Duration(i)*time.Millisecond), mutate...)
}

func runningSince(start time.Time) func(*v1.Pod) { return kubetest.Running("n1", start) }

func node(name string, maps, reduces int64) *v1.Node { return kubetest.Node(name, maps, reduces) }

func queued(t *testing.T, p *v1.Pod) fwk.QueuedEntityInfo { return kubetest.Queued(t, p, now) }

func TestDecodeArgs(t *testing.T) {
	a, err := decodeArgs(nil)
	if err != nil || a.TickInterval.Duration != 500*time.Millisecond || a.WriteQueueAnnotation || len(a.Queues) != 0 {
		t.Errorf("defaults: %+v, %v", a, err)
	}
	a, err = decodeArgs(&runtime.Unknown{Raw: []byte(`{"tickInterval":"2s","transferRate":1e6,"defaultTaskTime":"30s","writeQueueAnnotation":true,
		"queues":[{"share":0.1,"price":0.01},{"share":0.3,"price":0.02},{"share":0.6,"price":0.04}]}`)})
	if err != nil || a.TickInterval.Duration != 2*time.Second || a.TransferRate != 1e6 || a.DefaultTaskTime.Duration != 30*time.Second ||
		!a.WriteQueueAnnotation || a.Queues[2] != (QueueArgs{Share: 0.6, Price: 0.04}) {
		t.Errorf("given: %+v, %v", a, err)
	}
	if _, err := newPlugin(nil, a); err != nil {
		t.Errorf("valid queues refused: %v", err)
	}
	for _, bad := range []struct {
		raw, want string
	}{
		{`{"tickInterval":"-1s"}`, "tickInterval -1s is negative"},
		{`{"defaultTaskTime":"-1s"}`, "defaultTaskTime -1s is negative"},
		{`{"transferRate":-5}`, "transferRate -5 is not"},
		{`{"queues":[{"share":0.5,"price":1}]}`, "queues has 1 entries"},
		{`{"writeQueueAnnotation":"yes"}`, "decoding args"},
	} {
		if _, err := decodeArgs(&runtime.Unknown{Raw: []byte(bad.raw)}); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), Name+": ") {
			t.Errorf("args %s: error %v, want %q", bad.raw, err, bad.want)
		}
	}
	// Shares and prices are dbs's to check; the reason comes with one prefix.
	for _, bad := range []struct {
		raw, want string
	}{
		{`{"queues":[{"share":0.5,"price":0.01},{"share":0.5,"price":0.02},{"share":0.5,"price":0.03}]}`, "DeadlineBudget: shares add up to 1.5, more than 1"},
		{`{"queues":[{"share":0.1,"price":0.05},{"share":0.1,"price":0.02},{"share":0.1,"price":0.03}]}`, "DeadlineBudget: prices must not decrease"},
		{`{"queues":[{"share":0.1,"price":0},{"share":0.1,"price":0.02},{"share":0.1,"price":0.03}]}`, "DeadlineBudget: queue low: price 0 not finite and positive"},
	} {
		a, err := decodeArgs(&runtime.Unknown{Raw: []byte(bad.raw)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newPlugin(nil, a); err == nil || !strings.HasPrefix(err.Error(), bad.want) || strings.Count(err.Error(), ":") != strings.Count(bad.want, ":") { // one prefix
			t.Errorf("args %s: error %v, want %q", bad.raw, err, bad.want)
		}
	}
}

// TestCost charges runs at a price history: a pod that ran 0–100 s at
// 0.03, then 0.05 from 60 s: 60·0.03 + 40·0.05 = 3.8; a running pod
// from 50 s to now = 120 s, with the move at 60 s and another at 90 s
// to 0.02: 10·0.03 + 30·0.05 + 30·0.02 = 2.4.
func TestCost(t *testing.T) {
	prices := []pricePoint{{price: 0.03}, {from: now.Add(60 * time.Second), price: 0.05}, {from: now.Add(90 * time.Second), price: 0.02}}
	runs := []podjob.Run{{Start: now, End: now.Add(100 * time.Second)}}
	if got := cost(runs, prices[:2], now.Add(200*time.Second)); math.Abs(got-3.8) > 1e-12 {
		t.Errorf("finished run: %v, want 3.8", got)
	}
	runs = []podjob.Run{{Start: now.Add(50 * time.Second)}}
	if got := cost(runs, prices, now.Add(120*time.Second)); math.Abs(got-2.4) > 1e-12 {
		t.Errorf("running: %v, want 2.4", got)
	}
	if got := cost(runs, prices, now); got != 0 {
		t.Errorf("before the run: %v", got)
	}
}

// exampleCluster loads dbs's package Example: 10 map and 5 reduce
// slots, 30 s tasks assumed, urgent (φ 1, High), both (φ 0.5, Mid) and
// thrifty (φ 0, Low), 20 map pods each and 2 reduces declared.
func exampleCluster(t *testing.T, fx *fixture) map[string][]*v1.Pod {
	fx.add(t, node("n1", 4, 2), node("n2", 6, 3))
	pods := map[string][]*v1.Pod{}
	for _, j := range []*batchv1.Job{
		kjob("urgent", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "200s", podjob.AnnotationTasks, "map=20,reduce=2"),
		kjob("both", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "40", podjob.AnnotationRelativeDeadline, "400s", podjob.AnnotationTasks, "map=20,reduce=2"),
		kjob("thrifty", podjob.AnnotationPhi, "0", podjob.AnnotationBudget, "25", podjob.AnnotationRelativeDeadline, "900s", podjob.AnnotationTasks, "map=20,reduce=2"),
	} {
		fx.add(t, j)
		for i := range 20 {
			p := pod(fmt.Sprintf("%s-m%02d", j.Name, i), j.Name, i)
			pods[j.Name] = append(pods[j.Name], p)
			fx.add(t, p)
		}
	}
	return pods
}

// direct is dbs alone over the plugin's translation of the cluster: a
// ledger of the same args whose jobs are submitted at one instant and
// ticked straight through dbs.Scheduler — no listing, views, Less or
// events — the reference the plugin's order and moves are compared with,
// so the tests follow whatever dbs decides.
type direct struct {
	l    *ledger
	snap *podjob.Snapshot
}

func newDirect(t *testing.T, fx *fixture, at time.Time) *direct {
	t.Helper()
	o := fx.pl.host.List(context.Background(), at)
	l, err := newLedger(fx.pl.args)
	if err != nil {
		t.Fatal(err)
	}
	l.cluster.c, l.costNow = o.Snap.Cluster, at
	for _, pj := range o.Snap.Jobs {
		j := &job{l: l, cur: pj}
		q, _ := dbs.QueueFor(pj.Phi())
		j.setQueue(at, q)
		if err := l.sched.Submit(at, j); err != nil {
			t.Fatal(err)
		}
		l.byID[pj.ID()] = j
	}
	return &direct{l: l, snap: o.Snap}
}

// tick is dbs's Tick at at, the moves' prices recorded.
func (d *direct) tick(t *testing.T, at time.Time) []dbs.Decision {
	t.Helper()
	d.l.costNow = at
	ds, err := d.l.sched.Tick(at, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, dd := range ds {
		d.l.byID[dd.Job].setQueue(at, dd.To)
	}
	return ds
}

// order is dbs.Queue at at as pod names: each pick takes its job's next
// ready pods in rank order.
func (d *direct) order(t *testing.T, at time.Time) []string {
	t.Helper()
	picks, err := d.l.sched.Queue(at, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	next := map[string]int{}
	for _, pk := range picks {
		ready := d.snap.Job(pk.Job).Ready(pk.Phase)
		key := fmt.Sprint(pk.Job, pk.Phase)
		for range pk.Count {
			out = append(out, ready[next[key]].Name)
			next[key]++
		}
	}
	return out
}

// TestLess sorts dbs's package Example with the plugin's Less: the ready
// pods in dbs.Queue's order (each job's pods in rank order), then the
// unmanaged pod. The queues are priorities, so the first eleven map slots
// go to urgent (High: its minimum of 4, then its other maps; dbs's
// TestQueueWorked), and after all of High's come Mid's and Low's.
func TestLess(t *testing.T) {
	fx := newFixture(t, `{"defaultTaskTime":"30s"}`)
	pods := exampleCluster(t, fx)
	plain := pod("plain", "", 0)
	fx.add(t, plain)
	want := newDirect(t, fx, now)
	want.tick(t, now)
	var q []fwk.QueuedEntityInfo
	q = append(q, queued(t, plain))
	for _, name := range []string{"thrifty", "both", "urgent"} {
		for _, p := range pods[name] {
			q = append(q, queued(t, p))
		}
	}
	got := kubetest.SortedNames(q, fx.pl.Less)
	if w := want.order(t, now); !slices.Equal(got[:len(got)-1], w) {
		t.Errorf("queue order\n got %v\nwant %v (dbs.Queue)", got, w)
	}
	first := []string{"urgent-m00", "urgent-m01", "urgent-m02", "urgent-m03", "urgent-m04", "urgent-m05", "urgent-m06", "urgent-m07", "urgent-m08", "urgent-m09", "urgent-m10"}
	if !slices.Equal(got[:len(first)], first) {
		t.Errorf("first %d\n got %v\nwant %v", len(first), got[:len(first)], first)
	}
	if a, b := got[20], got[40]; a != "both-m00" || b != "thrifty-m00" {
		t.Errorf("Mid's first pod at 20 is %s, Low's at 40 %s; want both-m00, thrifty-m00", a, b)
	}
	if last := got[len(got)-1]; last != "plain" {
		t.Errorf("last %s, want the unmanaged pod", last)
	}
}

// TestPreEnqueue checks the status for each kind of pod.
func TestPreEnqueue(t *testing.T) {
	fx := newFixture(t, `{}`)
	fx.add(t, node("n1", 2, 1),
		kjob("ok", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s"),
		kjob("nophi", podjob.AnnotationRelativeDeadline, "600s"),
		kjob("badphi", podjob.AnnotationPhi, "0.25", podjob.AnnotationBudget, "3"),
		kjob("nobudget", podjob.AnnotationPhi, "0.5", podjob.AnnotationRelativeDeadline, "600s"),
		kjob("badsizes", podjob.AnnotationPhi, "1", podjob.AnnotationRelativeDeadline, "600s", podjob.AnnotationDataSizes, "input=lots"),
		kjob("backwards", podjob.AnnotationPhi, "1", podjob.AnnotationDeadline, now.Add(-time.Hour).Format(time.RFC3339)),
		kjob("ordinary"),
	)
	for _, tc := range []struct {
		pod  *v1.Pod
		code fwk.Code
		want string
	}{
		{pod("ok-0", "ok", 0), fwk.Success, ""},
		{pod("plain", "", 0), fwk.Success, ""},
		{pod("ordinary-0", "ordinary", 0), fwk.Success, ""},
		{pod("nophi-0", "nophi", 0), fwk.UnschedulableAndUnresolvable, "DeadlineBudget: podjob: Job ns/nophi: schedkit.io/phi: missing"},
		{pod("badphi-0", "badphi", 0), fwk.UnschedulableAndUnresolvable, `schedkit.io/phi: "0.25": want 1`},
		{pod("nobudget-0", "nobudget", 0), fwk.UnschedulableAndUnresolvable, "schedkit.io/budget: missing or zero"},
		{pod("badsizes-0", "badsizes", 0), fwk.UnschedulableAndUnresolvable, "schedkit.io/data-sizes"},
		{pod("backwards-0", "backwards", 0), fwk.UnschedulableAndUnresolvable, "before submission"},
		{pod("ghost-0", "ghost", 0), fwk.Unschedulable, "Job ns/ghost: not in the scheduler's cache"},
		{pod("ok-r", "ok", 1, func(p *v1.Pod) { p.Labels = map[string]string{podjob.LabelPhase: "reduce"} }), fwk.Unschedulable,
			"DeadlineBudget: job Job/ns/ok: dbs gives it reduce slots only once its maps have finished (1 unfinished)"},
	} {
		fx.add(t, tc.pod)
		st := fx.pl.PreEnqueue(context.Background(), tc.pod)
		if st.Code() != tc.code || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("pod %s: status %v %q; want %v containing %q", tc.pod.Name, st.Code(), st.Message(), tc.code, tc.want)
		}
	}
	if st := fx.pl.PreEnqueue(context.Background(), nil); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("nil pod: %v", st)
	}
}

// TestTickPromotes is dbs's weight-update Example through the plugin:
// "both" (Mid, minimum 2 maps) runs one map pod; two weight updates 500
// ms apart (dbs's Example promotes it to High at the second) make the
// moves dbs makes on its own, with the same figures; its running pod is
// charged each queue's price while it is in it; gone jobs leave dbs.
func TestTickPromotes(t *testing.T) {
	fx := newFixture(t, `{"defaultTaskTime":"30s"}`)
	fx.add(t, node("n1", 4, 2), node("n2", 6, 3),
		kjob("both", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "40", podjob.AnnotationRelativeDeadline, "400s", podjob.AnnotationTasks, "map=20,reduce=2"),
		pod("both-m00", "both", 0, runningSince(now)))
	for i := 1; i < 20; i++ {
		fx.add(t, pod(fmt.Sprintf("both-m%02d", i), "both", i))
	}
	want := newDirect(t, fx, now)
	for _, at := range []time.Time{now, now.Add(500 * time.Millisecond)} {
		fx.clk.SetTime(at)
		moves := fx.pl.Tick(context.Background())
		if got, w := decisions(moves), render(want.tick(t, at)); got != w {
			t.Fatalf("at %v: moves %s\nwant %s (dbs's Tick)", at.Sub(now), got, w)
		}
		if at.Equal(now) {
			if len(moves) != 0 {
				t.Fatalf("first update moved %v", moves)
			}
			continue
		}
		// dbs's Example: the second update promotes both to High.
		if len(moves) != 1 || moves[0].Decision.Action != dbs.Promote || moves[0].Decision.To != dbs.High || moves[0].Job.Name != "both" {
			t.Fatalf("second update: %v", moves)
		}
		note := "promote Job/ns/both mid→high (held 1 needed 2, W 0.54 avg 0.36); price 0.05 per slot-second from now"
		if got := MoveNote(moves[0].Decision); got != note {
			t.Errorf("note %q\nwant %q", got, note)
		}
	}
	st, err := fx.pl.Status("Job/ns/both")
	if w, _ := want.l.sched.Status("Job/ns/both"); err != nil || st.Queue != w.Queue || st.Queue != dbs.High {
		t.Errorf("status %+v, %v; dbs's %+v", st, err, w)
	}
	later := now.Add(1500 * time.Millisecond)
	fx.clk.SetTime(later)
	fx.pl.mu.Lock()
	fx.pl.led.costNow = later
	got := fx.pl.led.byID["Job/ns/both"].CostSoFar()
	fx.pl.mu.Unlock()
	want.l.costNow = later
	if w := want.l.byID["Job/ns/both"].CostSoFar(); math.Abs(got-w) > 1e-12 || math.Abs(got-(0.5*0.03+1*0.05)) > 1e-12 {
		t.Errorf("cost %v, want %v (dbs's) and %v (half a second at Mid's price, one at High's)", got, w, 0.5*0.03+1*0.05)
	}
	// The Job goes: dbs forgets it.
	fx.cache.Delete(t, kjob("both"))
	fx.pl.host.Changed()
	fx.pl.Tick(context.Background())
	if _, err := fx.pl.Status("Job/ns/both"); err == nil {
		t.Error("a job whose Job is gone is still in dbs")
	}
}

// TestNoMoveWithoutTaskTime is the answer to "a minute without a queue
// move": TestTickPromotes's job, short of its minimum, with no pod
// finished and no defaultTaskTime has no task time, so dbs gives it W₁ =
// 0 and a placeholder minimum and neither marks nor moves it, however
// long it waits (dbs's model 3, not a wiring gap). With defaultTaskTime
// (the shipped profile's is 0: none) the same job is promoted at the
// second update.
func TestNoMoveWithoutTaskTime(t *testing.T) {
	for _, tc := range []struct {
		args  string
		moved bool
	}{{`{}`, false}, {`{"defaultTaskTime":"30s"}`, true}} {
		fx := newFixture(t, tc.args)
		fx.add(t, node("n1", 4, 2), node("n2", 6, 3),
			kjob("both", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "40", podjob.AnnotationRelativeDeadline, "400s", podjob.AnnotationTasks, "map=20,reduce=2"),
			pod("both-m00", "both", 0, runningSince(now)))
		for i := 1; i < 20; i++ {
			fx.add(t, pod(fmt.Sprintf("both-m%02d", i), "both", i))
		}
		var moves []Move
		for i := range 121 { // a minute of ticks, 500 ms apart
			fx.clk.SetTime(now.Add(time.Duration(i) * 500 * time.Millisecond))
			moves = append(moves, fx.pl.Tick(context.Background())...)
		}
		if got := len(moves) > 0; got != tc.moved {
			t.Errorf("args %s: moves %v, want moved %v", tc.args, moves, tc.moved)
		}
	}
}

// TestCostBeforeFirstSeen: a job's pods that ran before the plugin first
// saw it are charged at its φ's queue's price (20 s finished + 10 s
// running so far, Mid at 0.03: 0.9).
func TestCostBeforeFirstSeen(t *testing.T) {
	fx := newFixture(t, `{}`)
	fx.add(t, node("n1", 2, 1),
		kjob("j", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "10", podjob.AnnotationRelativeDeadline, "600s"),
		pod("j-0", "j", 0, func(p *v1.Pod) {
			runningSince(now)(p)
			p.Status.Phase = v1.PodSucceeded
			p.Status.ContainerStatuses = []v1.ContainerStatus{{State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
				FinishedAt: metav1.NewTime(now.Add(20 * time.Second))}}}}
		}),
		pod("j-1", "j", 1, runningSince(now.Add(20*time.Second))))
	fx.clk.SetTime(now.Add(30 * time.Second))
	fx.pl.Tick(context.Background())
	fx.pl.mu.Lock()
	got := fx.pl.led.byID["Job/ns/j"].CostSoFar()
	fx.pl.mu.Unlock()
	if want := 30 * 0.03; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost %v, want %v", got, want)
	}
}

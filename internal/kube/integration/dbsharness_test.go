package integration_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
)

// The DeadlineBudget harness: the same scenario language and fake
// clientset as LeastSpareTime's run, with the sample profile-dbs.yaml,
// the plugin on a fake clock without its ticker (the test calls Tick),
// the scheduling queue on a fake clock of its own (a pod's backoff ends
// when the test moves it), and a recorder that knows rounds: the test can
// let the scheduler settle, move the clock and tick, and then release a
// second round of scheduling by adding a node.

// dbsSchedulerName is profile-dbs.yaml's schedulerName.
const dbsSchedulerName = "schedkit-dbs"

// dbsBackoff is the scheduler's pod backoff in this harness (initial and
// maximum).
const dbsBackoff = time.Second

// dbsArgs are the plugin args the differential tests use (the oracle's
// dbs.Config mirrors them): a 20 s task time before any pod finished,
// so fresh jobs have weights, and a transfer rate, so data sizes count.
const dbsArgs = `{"tickInterval":"500ms","defaultTaskTime":"20s","transferRate":1000000}`

// roundRecorder records first scheduling attempts (PreFilter) and
// reservations per round.
type roundRecorder struct {
	mu       sync.Mutex
	round    int
	popped   [2][]string
	reserved [2][]string
	seen     [2]map[string]bool
	all      [2][]string // every attempt
}

func newRoundRecorder() *roundRecorder {
	return &roundRecorder{seen: [2]map[string]bool{{}, {}}}
}

func (r *roundRecorder) Name() string { return "Recorder" }

func (r *roundRecorder) PreFilter(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all[r.round] = append(r.all[r.round], p.Name)
	if !r.seen[r.round][p.Name] {
		r.seen[r.round][p.Name] = true
		r.popped[r.round] = append(r.popped[r.round], p.Name)
	}
	return nil, nil
}

func (r *roundRecorder) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func (r *roundRecorder) Reserve(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) *fwk.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved[r.round] = append(r.reserved[r.round], p.Name)
	return nil
}

func (r *roundRecorder) Unreserve(context.Context, fwk.CycleState, *v1.Pod, string) {}

// reset forgets every attempt and reservation.
func (r *roundRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.popped, r.reserved, r.all = [2][]string{}, [2][]string{}, [2][]string{}
	r.seen = [2]map[string]bool{{}, {}}
}

func (r *roundRecorder) snapshot(round int) (popped, reserved []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.popped[round]), slices.Clone(r.reserved[round])
}

// dbsRun is a running scheduler on a scenario.
type dbsRun struct {
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc
	client *fake.Clientset
	clk    *clocktesting.FakePassiveClock // the plugin's
	qclk   *clocktesting.FakeClock        // the scheduling queue's
	sched  *scheduler.Scheduler
	rec    *roundRecorder
	pl     *deadlinebudget.Plugin

	// The scheduler's: its stop, and what start needs.
	stop        context.CancelFunc
	broadcaster events.EventBroadcaster
	args        string

	mu       sync.Mutex
	bindings map[string]string // pod → node
	moves    map[string]string // Job or pod name → event reason and note
}

// startDBS loads the scenario (pods with spec.schedulerName
// schedkit-dbs) and starts the real kube-scheduler with the sample
// profile-dbs.yaml and the plugin args args (JSON).
func startDBS(t *testing.T, sc *scenario, args string) *dbsRun {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.TODO()))
	nodes, jobs, pods := sc.objects()
	var objs []runtime.Object
	for _, o := range nodes {
		objs = append(objs, o)
	}
	for _, o := range jobs {
		objs = append(objs, o)
	}
	for _, o := range pods {
		o.Spec.SchedulerName = dbsSchedulerName
		objs = append(objs, o)
	}
	r := &dbsRun{t: t, ctx: ctx, cancel: cancel, client: fake.NewClientset(objs...), clk: clocktesting.NewFakePassiveClock(now),
		qclk: clocktesting.NewFakeClock(now),
		rec:  newRoundRecorder(), bindings: map[string]string{}, moves: map[string]string{}}
	client := r.client
	playKubelet(client, func(pod, node string) {
		r.mu.Lock()
		r.bindings[pod] = node
		r.mu.Unlock()
	})
	filterPods(client)

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	stopWatch, err := broadcaster.StartEventWatcher(func(obj runtime.Object) {
		e, ok := obj.(*eventsv1.Event)
		if !ok || (e.Reason != deadlinebudget.EventReasonPromoted && e.Reason != deadlinebudget.EventReasonDemoted) {
			return
		}
		r.mu.Lock()
		r.moves[e.Regarding.Name] = e.Reason + ": " + e.Note
		r.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		stopWatch()
		broadcaster.Shutdown()
	})

	r.broadcaster, r.args = broadcaster, args
	r.start()
	return r
}

// start starts a scheduler (with a new plugin) on the run's client,
// until restart or the run's end.
func (r *dbsRun) start() {
	t := r.t
	ctx, cancel := context.WithCancel(r.ctx)
	r.stop = cancel
	factoryFn := deadlinebudget.Factory(r.clk, false)
	backoff := int64(dbsBackoff / time.Second)
	r.sched = startScheduler(ctx, t, r.client, r.broadcaster, schedulerSetup{profile: "profile-dbs.yaml", plugin: deadlinebudget.Name, args: r.args, rec: r.rec,
		opts: []scheduler.Option{scheduler.WithPodInitialBackoffSeconds(backoff), scheduler.WithPodMaxBackoffSeconds(backoff), scheduler.WithClock(r.qclk)},
		factory: func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			if h.ProfileName() != dbsSchedulerName {
				t.Errorf("profile-dbs.yaml's scheduler is %q", h.ProfileName())
			}
			p, err := factoryFn(ctx, obj, h)
			if err == nil {
				r.pl = p.(*deadlinebudget.Plugin)
			}
			return p, err
		}})
}

// restart stops the scheduler (its plugin and everything it kept in
// memory gone) and starts a new one on the same cluster and clock.
func (r *dbsRun) restart() {
	r.stop()
	r.start()
}

// waitFor polls cond (every 10 ms, at most 20 s), then waits settle
// longer to catch anything unexpected.
func (r *dbsRun) waitFor(what string, cond func() bool, settle time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Errorf("timed out waiting for %s", what)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(settle)
}

func (r *dbsRun) bound() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.bindings))
	for k, v := range r.bindings {
		out[k] = v
	}
	return out
}

func (r *dbsRun) moveEvents() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.moves))
	for k, v := range r.moves {
		out[k] = v
	}
	return out
}

// nextRound adds a node, which sends the pods the scheduler could not
// place back to its active queue all at once, and makes the recorder
// count attempts as round 2. It first waits until waiting (names) are
// exactly the pods in the scheduling queue's unschedulable pool (none in
// flight, in the active or the backoff queue: each pod is in one place),
// then moves the queue's clock past their backoff. kube-scheduler rounds
// a backoff's end down to a whole second (its backoff queue's ordering
// window) and keeps the pod backing off through that second, so a pod
// refused at T is past it from T + backoff + 1 s; on the real clock, the
// pods refused before a second's turn and those after it would come back
// apart (the first to the active queue, the rest to the backoff queue,
// which kube-scheduler pops from once the active queue is empty) and be
// attempted in two runs of the order.
func (r *dbsRun) nextRound(n nodeSpec, waiting []string) {
	r.t.Helper()
	want := slices.Sorted(slices.Values(waiting))
	var got []string
	r.waitFor("the unplaced pods in the unschedulable pool", func() bool {
		got = got[:0]
		for _, p := range r.sched.SchedulingQueue.UnschedulablePods() {
			got = append(got, p.Name)
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	}, 0)
	if !slices.Equal(got, want) {
		r.t.Fatalf("unschedulable pool %v, want %v (in flight %d, active %d, backing off %d)", got, want, len(r.sched.SchedulingQueue.InFlightPods()),
			len(r.sched.SchedulingQueue.PodsInActiveQ()), len(r.sched.SchedulingQueue.PodsInBackoffQ()))
	}
	r.qclk.Step(dbsBackoff + time.Second)
	r.rec.mu.Lock()
	r.rec.round = 1
	r.rec.mu.Unlock()
	nodes, _, _ := (&scenario{nodes: []nodeSpec{n}}).objects()
	if _, err := r.client.CoreV1().Nodes().Create(r.ctx, nodes[0], metav1.CreateOptions{}); err != nil {
		r.t.Fatalf("adding node %s: %v", n.name, err)
	}
}

// String names the run for failure messages.
func (r *dbsRun) String() string { return fmt.Sprintf("bindings %v", r.bound()) }

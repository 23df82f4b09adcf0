package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// dbsScenarios are the hand-made DeadlineBudget cases. Slots are handed
// out as dbs's Heartbeat does: each slot to the highest queue with a
// ready task (dbs.DefaultQueues: no floors), in it to the first job
// below its model-2 minimum, else by weight.
func dbsScenarios() []*dbsScenario {
	return []*dbsScenario{
		{
			// One job per queue, plus a second High job. tail's maps are
			// done: its ready reduce is listed (reduce pass); early's
			// maps are not: its ready reduce is held back (PreEnqueue)
			// and never attempted. thrifty (φ 0) has no deadline; tail
			// has data sizes (model 2's shuffle term).
			name:  "queues by priority, reduces after maps",
			nodes: []nodeSpec{{name: "n1", maps: 3, reduces: 1}, {name: "n2", maps: 2, reduces: 1}},
			jobs: []dbsJob{
				{jobSpec: jobSpec{name: "urgent", submitted: 30 * sec, deadline: 200 * sec, maps: 4}, phi: 1},
				{jobSpec: jobSpec{name: "both", submitted: 20 * sec, deadline: 400 * sec, maps: 3,
					done: []taskSpec{{dur: 15 * sec}, {dur: 15 * sec}}}, phi: 0.5, budget: 40},
				{jobSpec: jobSpec{name: "thrifty", submitted: 10 * sec, maps: 3}, phi: 0, budget: 25, noDeadline: true},
				{jobSpec: jobSpec{name: "tail", submitted: 120 * sec, deadline: 300 * sec, reduces: 1, declared: &[2]int{2, 1},
					done: []taskSpec{{dur: 20 * sec}, {dur: 20 * sec}}}, phi: 0.5, budget: 30,
					sizes: "input=100Mi,reduce=20Mi", input: 100 << 20, red: 20 << 20},
				{jobSpec: jobSpec{name: "early", submitted: 40 * sec, deadline: 500 * sec, maps: 1, reduces: 1,
					done: []taskSpec{{dur: 10 * sec}}}, phi: 1,
					wantMsg: "dbs gives it reduce slots only once its maps have finished (1 unfinished)"},
			},
			plain: 2,
		},
		{
			// Four jobs in High and one in Mid; a holds a running map and
			// has a tight deadline (minimum above what it holds), c holds
			// one of n2's slots; b is a pod group. Below-minimum jobs
			// first, then by weight.
			name:  "minimums first, weights, pod group, held slots",
			nodes: []nodeSpec{{name: "n1", maps: 2, reduces: 1}, {name: "n2", maps: 3, reduces: 0}},
			jobs: []dbsJob{
				{jobSpec: jobSpec{name: "a", submitted: 60 * sec, deadline: 150 * sec, maps: 4,
					done: []taskSpec{{dur: 10 * sec}, {dur: 10 * sec}, {start: 40 * sec, node: "n1"}}}, phi: 1},
				{jobSpec: jobSpec{name: "b", group: true, submitted: 50 * sec, deadline: 600 * sec, maps: 3}, phi: 1},
				{jobSpec: jobSpec{name: "c", submitted: 10 * sec, deadline: 900 * sec, maps: 2,
					done: []taskSpec{{start: 5 * sec, node: "n2"}}}, phi: 1},
				{jobSpec: jobSpec{name: "d", submitted: 30 * sec, deadline: 800 * sec, maps: 3,
					done: []taskSpec{{dur: 30 * sec}}}, phi: 0.5, budget: 5},
				{jobSpec: jobSpec{name: "e", submitted: 5 * sec, deadline: 100 * sec, maps: 2}, phi: 1, budget: 3},
			},
			plain: 1,
		},
		{
			// Bad input is held back with a clear status; the good job
			// gets the slots, the cordoned node none.
			name:  "bad annotations",
			nodes: []nodeSpec{{name: "n1", maps: 4, reduces: 1}, {name: "n0", maps: 8, reduces: 8, cordoned: true}},
			jobs: []dbsJob{
				{jobSpec: jobSpec{name: "good", submitted: 10 * sec, deadline: 100 * sec, maps: 2}, phi: 1},
				{jobSpec: jobSpec{name: "nophi", submitted: 10 * sec, deadline: 100 * sec, maps: 1}, phi: 1,
					bad: map[string]string{podjob.AnnotationPhi: ""}, wantMsg: "schedkit.io/phi: missing"},
				{jobSpec: jobSpec{name: "badphi", submitted: 10 * sec, deadline: 100 * sec, maps: 1}, budget: 3,
					bad: map[string]string{podjob.AnnotationPhi: "0.7"}, wantMsg: `schedkit.io/phi: "0.7": want 1`},
				{jobSpec: jobSpec{name: "nobudget", submitted: 10 * sec, deadline: 100 * sec, maps: 1}, phi: 0.5,
					bad: map[string]string{}, wantMsg: "schedkit.io/budget: missing or zero"},
				{jobSpec: jobSpec{name: "nodeadline", submitted: 10 * sec, maps: 1}, phi: 1, noDeadline: true,
					bad: map[string]string{}, wantMsg: "schedkit.io/deadline: missing"},
				{jobSpec: jobSpec{name: "badsizes", submitted: 10 * sec, deadline: 100 * sec, maps: 1}, phi: 1,
					bad: map[string]string{podjob.AnnotationDataSizes: "input=lots"}, wantMsg: `schedkit.io/data-sizes: "input=lots"`},
				{jobSpec: jobSpec{name: "badbudget", submitted: 10 * sec, deadline: 100 * sec, maps: 1}, phi: 0,
					bad: map[string]string{podjob.AnnotationBudget: "NaN"}, wantMsg: `schedkit.io/budget: "NaN"`},
				{jobSpec: jobSpec{name: "backwards", submitted: 10 * sec, deadline: -5 * sec, abs: true, maps: 1}, phi: 1,
					refused: true, wantMsg: "before submission"},
			},
		},
	}
}

// randomDBSScenario is randomScenario (a consistent random cluster
// state) with random φ, budgets (some too small to meet) and data sizes.
func randomDBSScenario(seed uint64) *dbsScenario {
	sc := randomScenario(seed)
	rng := rand.New(rand.NewPCG(seed, 29))
	ds := &dbsScenario{name: "dbs " + sc.name, nodes: sc.nodes, plain: sc.plain}
	for _, js := range sc.jobs {
		dj := dbsJob{jobSpec: js, phi: []float64{0, 0.5, 1}[rng.IntN(3)]}
		if dj.phi < 1 || rng.IntN(2) == 0 {
			dj.budget = float64(1+rng.IntN(200)) / 4
		}
		if dj.phi == 0 && rng.IntN(2) == 0 {
			dj.noDeadline = true
		}
		if rng.IntN(3) == 0 {
			dj.input, dj.red = int64(1+rng.IntN(1000))<<20, int64(rng.IntN(100))<<20
			dj.sizes = fmt.Sprintf("input=%d,reduce=%d", dj.input, dj.red)
		}
		ds.jobs = append(ds.jobs, dj)
	}
	return ds
}

// TestDeadlineBudgetDifferential runs each scenario through the real
// kube-scheduler with the DeadlineBudget plugin and checks that the
// order in which it first attempts pods is dbs.Queue's, and that the
// pods it reserves (in order) and binds are exactly those dbs's
// heartbeats assign, for the same state; malformed and refused jobs are
// held back with a clear status, no node is over its slots, and no
// weight update moves anything at a single instant.
func TestDeadlineBudgetDifferential(t *testing.T) {
	all := dbsScenarios()
	for seed := range uint64(8) {
		all = append(all, randomDBSScenario(seed))
	}
	for _, ds := range all {
		t.Run(strings.ReplaceAll(ds.name, " ", "_"), func(t *testing.T) {
			exp := dbsOracle(t, ds, []time.Time{now}, nil)
			sc := ds.scenario()
			_, _, pods := sc.objects() // fills sc.ready
			wantQueue := podNames(sc, exp.queue)
			want := podNames(sc, append(slices.Clone(exp.assigned[0]), exp.assigned[1]...))
			var wantPlain []string
			for k := range sc.plain {
				wantPlain = append(wantPlain, fmt.Sprintf("plain-%02d", k))
			}
			for _, dj := range ds.jobs {
				if dj.refused != slices.Contains(exp.refused, dj.name) {
					t.Fatalf("job %s: scenario says refused %v, dbs refused %v", dj.name, dj.refused, exp.refused)
				}
			}

			r := startDBS(t, sc, dbsArgs)
			r.waitFor("the bindings and attempts", func() bool {
				p, _ := r.rec.snapshot(0)
				return len(r.bound()) >= len(want)+len(wantPlain) && len(p) >= len(wantQueue)+len(wantPlain)
			}, 300*time.Millisecond)
			popped, reserved := r.rec.snapshot(0)
			t.Logf("dbs queue %v; reserved %v", wantQueue, reserved)
			if len(popped) < len(wantQueue) || !slices.Equal(popped[:len(wantQueue)], wantQueue) {
				t.Errorf("queue order (first attempts):\n got %v\nwant %v (then plain %v)", popped, wantQueue, wantPlain)
			} else if rest := slices.Sorted(slices.Values(popped[len(wantQueue):])); !slices.Equal(rest, wantPlain) {
				t.Errorf("after the dbs pods, attempted %v; want the plain pods %v", rest, wantPlain)
			}
			if len(reserved) < len(want) || !slices.Equal(reserved[:len(want)], want) {
				t.Fatalf("reserve order:\n got %v\nwant %v (then plain %v)\ndbs: %+v", reserved, want, wantPlain, exp)
			}
			if rest := slices.Sorted(slices.Values(reserved[len(want):])); !slices.Equal(rest, wantPlain) {
				t.Errorf("after the dbs pods, reserved %v; want the plain pods %v", rest, wantPlain)
			}
			bound := r.bound()
			if len(bound) != len(reserved) {
				t.Errorf("%d bindings for %d reserved pods: %v", len(bound), len(reserved), bound)
			}
			for _, name := range reserved {
				if _, ok := bound[name]; !ok {
					t.Errorf("pod %s reserved but not bound", name)
				}
			}
			checkSlots(t, sc, result{bindings: bound})
			checkHeldBack(t, r, ds, pods)
			if ev := r.moveEvents(); len(ev) != 0 || len(exp.moves) != 0 {
				t.Errorf("queue moves at one instant: events %v, dbs %v", ev, exp.moves)
			}
		})
	}
}

// checkHeldBack asks the plugin's PreEnqueue about the pending pods of
// every job with wantMsg.
func checkHeldBack(t *testing.T, r *dbsRun, ds *dbsScenario, pods []*v1.Pod) {
	t.Helper()
	for _, dj := range ds.jobs {
		if dj.wantMsg == "" {
			continue
		}
		n := 0
		for _, p := range pods {
			if !strings.HasPrefix(p.Name, dj.name+"-") || p.Status.Phase != v1.PodPending {
				continue
			}
			st := r.pl.PreEnqueue(context.Background(), p)
			if dj.bad == nil && !dj.refused && p.Labels[podjob.LabelPhase] != "reduce" {
				if !st.IsSuccess() {
					t.Errorf("pod %s: %v", p.Name, st)
				}
				continue
			}
			n++
			code := fwk.UnschedulableAndUnresolvable
			if dj.bad == nil && !dj.refused {
				code = fwk.Unschedulable // an early reduce: retried
			}
			if st.Code() != code || !strings.Contains(st.Message(), dj.wantMsg) || !strings.HasPrefix(st.Message(), deadlinebudget.Name+": ") {
				t.Errorf("pod %s: PreEnqueue %v %q; want %v containing %q", p.Name, st.Code(), st.Message(), code, dj.wantMsg)
			}
		}
		if n == 0 {
			t.Errorf("job %s: no pod held back", dj.name)
		}
	}
}

// tickScenario: one node, its four map slots held by hog (High, far
// deadline: a surplus over its minimum of one, two maps still ready),
// mid (Mid) and low (Low) waiting with maps ready, short of their
// minimums. Each is alone in its queue, so at its queue's average: the
// first weight update (at now) marks them, the next (500 ms later)
// demotes hog to Mid (its surplus; its one needed slot fits beside
// the minimums there) and promotes mid to High and low to Mid (each
// short of its minimum, which fits in the queue above; the budgets
// cover the higher prices). Before: hog's ready maps (High) ahead of
// Mid's and Low's; after: mid's maps (High) ahead of Mid's, where hog
// and low share by weight, with hog's four slots counted in Mid.
func tickScenario() *dbsScenario {
	return &dbsScenario{
		name:  "tick moves",
		nodes: []nodeSpec{{name: "n1", maps: 4, reduces: 1}},
		jobs: []dbsJob{
			{jobSpec: jobSpec{name: "hog", submitted: 100 * sec, deadline: 3000 * sec, declared: &[2]int{8, 0}, maps: 2,
				done: []taskSpec{{dur: 20 * sec}, {dur: 20 * sec},
					{start: 50 * sec, node: "n1"}, {start: 50 * sec, node: "n1"}, {start: 50 * sec, node: "n1"}, {start: 50 * sec, node: "n1"}}}, phi: 1},
			{jobSpec: jobSpec{name: "mid", submitted: 80 * sec, deadline: 1000 * sec, maps: 5,
				done: []taskSpec{{dur: 20 * sec}, {dur: 20 * sec}}}, phi: 0.5, budget: 100},
			{jobSpec: jobSpec{name: "low", submitted: 60 * sec, maps: 3}, phi: 0, budget: 50, noDeadline: true},
		},
	}
}

// TestDeadlineBudgetTick: the real scheduler first attempts the pods in
// the order after one weight update (nothing fits: the node is full);
// then the clock moves 500 ms and the plugin's Tick makes dbs's moves,
// each a Normal event on its Job and (writeQueueAnnotation) the Job's
// schedkit.io/queue; then a node with three free map slots
// arrives and the scheduler attempts the pods again, now in dbs's order
// after the moves, and binds what dbs's heartbeat of that node assigns.
func TestDeadlineBudgetTick(t *testing.T) {
	ds := tickScenario()
	extra := nodeSpec{name: "n2", maps: 3, reduces: 1}
	tick2 := now.Add(500 * time.Millisecond)
	exp := dbsOracle(t, ds, []time.Time{now, tick2}, &extra)
	sc := ds.scenario()
	sc.objects()
	wantFirst, wantQueue := podNames(sc, exp.first), podNames(sc, exp.queue)
	want := podNames(sc, append(slices.Clone(exp.assigned[0]), exp.assigned[1]...))
	if slices.Equal(wantFirst, wantQueue) {
		t.Fatalf("the moves do not change dbs's order %v: the case shows nothing", wantQueue)
	}
	wantMoves := map[string]string{}
	for name, d := range exp.moves {
		reason := deadlinebudget.EventReasonPromoted
		if d.Action == dbs.Demote {
			reason = deadlinebudget.EventReasonDemoted
		}
		wantMoves[name] = fmt.Sprintf("%s %s→%s", reason, d.From, d.To)
	}
	if len(wantMoves) != 3 || wantMoves["hog"] == "" || wantMoves["low"] == "" || wantMoves["mid"] == "" {
		t.Fatalf("dbs moves %v; the case expects hog, mid and low to move", exp.moves)
	}

	// With writeQueueAnnotation, each moved Job gets schedkit.io/queue.
	r := startDBS(t, sc, strings.Replace(dbsArgs, "{", `{"writeQueueAnnotation":true,`, 1))
	r.waitFor("the first attempts", func() bool { p, _ := r.rec.snapshot(0); return len(p) >= len(wantFirst) }, 300*time.Millisecond)
	popped, reserved := r.rec.snapshot(0)
	if !slices.Equal(popped, wantFirst) || len(reserved) != 0 {
		t.Fatalf("round 1 (node full): attempted %v, reserved %v; want attempts %v, no reservation", popped, reserved, wantFirst)
	}

	// The weight update runs in the first evaluation at the new time:
	// this Tick, or a queue operation that comes first; either way each
	// move becomes an event.
	r.clk.SetTime(tick2)
	for _, m := range r.pl.Tick(r.ctx) {
		if d := m.Decision; d.Figures != exp.moves[m.Job.Name].Figures {
			t.Errorf("move of %s: figures %+v, dbs %+v", m.Job.Name, d.Figures, exp.moves[m.Job.Name].Figures)
		}
	}
	r.waitFor("the move events", func() bool { return len(r.moveEvents()) >= len(wantMoves) }, 0)
	for name, ev := range r.moveEvents() {
		w := wantMoves[name]
		reason, fromTo, _ := strings.Cut(w, " ")
		if !strings.HasPrefix(ev, reason+": ") || !strings.Contains(ev, fromTo) || !strings.Contains(ev, "per slot-second from now") {
			t.Errorf("event on %s: %q; want %s", name, ev, w)
		}
	}
	t.Logf("move events %v", r.moveEvents())
	if len(r.moveEvents()) != len(wantMoves) {
		t.Errorf("events %v; want %v", r.moveEvents(), wantMoves)
	}

	queueOf := func(name string) string {
		j, err := r.client.BatchV1().Jobs(ns).Get(r.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		return j.Annotations[podjob.AnnotationQueue]
	}
	r.waitFor("the queue annotations", func() bool {
		for name, d := range exp.moves {
			if queueOf(name) != d.To.String() {
				return false
			}
		}
		return true
	}, 0)
	for name, d := range exp.moves {
		if got := queueOf(name); got != d.To.String() {
			t.Errorf("Job %s: %s %q, want %q", name, podjob.AnnotationQueue, got, d.To)
		}
	}

	// Once every pod waits in the unschedulable pool, past its backoff, a
	// node arrives: every waiting pod goes back to the active queue at
	// once and is attempted in the new order.
	r.nextRound(extra, wantFirst)
	r.waitFor("the round-2 bindings and attempts", func() bool {
		p, _ := r.rec.snapshot(1)
		return len(r.bound()) >= len(want) && len(p) >= len(wantQueue)
	}, 300*time.Millisecond)
	popped, reserved = r.rec.snapshot(1)
	t.Logf("before the moves %v; after %v; reserved %v; all attempts %v", wantFirst, wantQueue, reserved, r.rec.all)
	if !slices.Equal(popped, wantQueue) {
		t.Errorf("round 2 attempts:\n got %v\nwant %v (dbs.Queue after the moves)", popped, wantQueue)
	}
	if !slices.Equal(reserved, want) {
		t.Errorf("round 2 reservations %v; dbs's heartbeat of %s assigns %v", reserved, extra.name, want)
	}
	for _, name := range want {
		if r.bound()[name] != extra.name {
			t.Errorf("pod %s bound to %q, want %s", name, r.bound()[name], extra.name)
		}
	}
	// A job's queue: its φ's, or where dbs moved it.
	wantIn := map[string]dbs.Queue{"hog": dbs.High, "mid": dbs.Mid, "low": dbs.Low}
	for name, d := range exp.moves {
		wantIn[name] = d.To
	}
	for _, name := range []string{"Job/batch/mid", "Job/batch/low", "Job/batch/hog"} {
		st, err := r.pl.Status(schedkit.JobID(name))
		if err != nil || st.Queue != wantIn[strings.TrimPrefix(name, "Job/batch/")] {
			t.Errorf("plugin's dbs status of %s: %+v, %v", name, st, err)
		}
	}
}

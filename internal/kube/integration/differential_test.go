package integration_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

const sec = time.Second

// scenarios are the hand-made differential cases; each comment gives the
// figures lss works with.
func scenarios() []*scenario {
	return []*scenario{
		{
			// Two nodes of 2 map + 1 reduce slots. c has Tavg 20s:
			// remaining (⌈4/4⌉+⌈1/2⌉)·20s = 40s, spare 200−60−40 = 100s;
			// b and a are fresh, spare 295s and 590s (formula (5)).
			// Queue: pass 1 b, a; pass 2 c×4, b×2, a×3; pass 3 c×1. Four
			// map slots: b-m00, a-m00, c-m02, c-m03; reduce: c-r06; then
			// the plain pods.
			name:  "pass 1 then least spare time",
			nodes: []nodeSpec{{name: "n1", maps: 2, reduces: 1}, {name: "n2", maps: 2, reduces: 1}},
			jobs: []jobSpec{
				{name: "a", submitted: 10 * sec, deadline: 600 * sec, maps: 4},
				{name: "b", submitted: 5 * sec, deadline: 300 * sec, maps: 3},
				{name: "c", submitted: 60 * sec, deadline: 200 * sec, maps: 4, reduces: 1,
					done: []taskSpec{{start: 0, dur: 20 * sec}, {start: 0, dur: 20 * sec}}},
			},
			plain: 2,
		},
		{
			// One node of 3 map + 1 reduce slots. late's deadline passed
			// (DeadlinePassed); doomed has Tavg 50s, remaining ⌈6/3⌉·50s =
			// 100s, spare 140−100−100 = −60s, −60s+50s < 0
			// (SpareExhausted); both are killed, reported and deleted.
			// grp (a pod group, spare 480s) and ok (spare 990s) get pass
			// 1, then grp's second map takes the last slot.
			name:  "kill rules, delete on",
			nodes: []nodeSpec{{name: "n1", maps: 3, reduces: 1}},
			jobs: []jobSpec{
				{name: "late", submitted: 400 * sec, deadline: 300 * sec, abs: true, maps: 2},
				{name: "doomed", submitted: 100 * sec, deadline: 140 * sec, maps: 6,
					done: []taskSpec{{start: 0, dur: 50 * sec}, {start: 0, dur: 50 * sec}}},
				{name: "ok", submitted: 10 * sec, deadline: 1000 * sec, maps: 2},
				{name: "grp", group: true, submitted: 20 * sec, deadline: 500 * sec, maps: 2},
			},
			deleteHopeless: true,
		},
		{
			// Two nodes of 2 map + 1 reduce slots; x runs 2 maps on n1,
			// y one on n2, so one map slot is free. x declares 6 maps and
			// 2 reduces (2 map pods not created yet, one reduce gated):
			// Tavg 30s, remaining 30+30−2·60/4 = 30s, spare 250−100−30 =
			// 120s. y: Tavg 10s, remaining 10+10−30/4 = 12.5s, spare
			// 200−80−12.5 = 107.5s. z is fresh (spare 150s), its reduce
			// gated (slow-start). Queue: pass 1 z; pass 2 y×3, z×3;
			// pass 3 y×1, x×1. Map slot: z-m00; reduce slots: y, x.
			name:  "running credit, reduce pass, gates, declared tasks",
			nodes: []nodeSpec{{name: "n1", maps: 2, reduces: 1}, {name: "n2", maps: 2, reduces: 1}},
			jobs: []jobSpec{
				{name: "x", submitted: 100 * sec, deadline: 250 * sec, reduces: 2, gated: 1, declared: &[2]int{6, 2},
					done: []taskSpec{{dur: 30 * sec}, {dur: 30 * sec}, {start: 40 * sec, node: "n1"}, {start: 40 * sec, node: "n1"}}},
				{name: "y", submitted: 80 * sec, deadline: 200 * sec, maps: 3, reduces: 1,
					done: []taskSpec{{dur: 10 * sec}, {start: 50 * sec, node: "n2"}}},
				{name: "z", submitted: 0, deadline: 150 * sec, maps: 4, reduces: 1, gated: 1},
			},
		},
		{
			// Bad input is held back with a clear status; the good job
			// gets every slot it asks for and a cordoned node none.
			name:  "bad annotations",
			nodes: []nodeSpec{{name: "n1", maps: 8, reduces: 1}, {name: "n0", maps: 8, reduces: 8, cordoned: true}},
			jobs: []jobSpec{
				{name: "good", submitted: 10 * sec, deadline: 100 * sec, maps: 2},
				{name: "garbled", submitted: 10 * sec, deadline: 100 * sec, maps: 1,
					bad: map[string]string{"schedkit.io/relative-deadline": "tomorrow"}},
				{name: "nodeadline", submitted: 10 * sec, deadline: 100 * sec, maps: 1,
					bad: map[string]string{"schedkit.io/relative-deadline": "", "schedkit.io/tasks": "map=1"}},
				{name: "twodeadlines", submitted: 10 * sec, deadline: 100 * sec, maps: 1,
					bad: map[string]string{"schedkit.io/deadline": "2026-11-23T03:00:00Z"}},
				{name: "badtasks", submitted: 10 * sec, deadline: 100 * sec, maps: 1,
					bad: map[string]string{"schedkit.io/tasks": "map=x"}},
				{name: "fewtasks", submitted: 10 * sec, deadline: 100 * sec, maps: 3,
					bad: map[string]string{"schedkit.io/tasks": "map=2"}},
				{name: "nolabel", submitted: 10 * sec, deadline: 100 * sec, maps: 1,
					bad: map[string]string{"schedkit.io/relative-deadline": ""}},
			},
		},
	}
}

// randomScenario makes a consistent random cluster state: running tasks
// only where their node has a free slot, no ready reduce in a job that
// has not run anything (slow-start), some jobs hopeless.
func randomScenario(seed uint64) *scenario {
	rng := rand.New(rand.NewPCG(seed, 13))
	sc := &scenario{name: fmt.Sprintf("random seed %d", seed), deleteHopeless: rng.IntN(2) == 0, plain: rng.IntN(3)}
	free := map[string]*[2]int{}
	for i := range 1 + rng.IntN(3) {
		n := nodeSpec{name: fmt.Sprintf("n%d", i), maps: 1 + rng.IntN(3), reduces: rng.IntN(3)}
		sc.nodes = append(sc.nodes, n)
		free[n.name] = &[2]int{n.maps, n.reduces}
	}
	for i := range 1 + rng.IntN(6) {
		js := jobSpec{
			name:      fmt.Sprintf("j%d", i),
			group:     rng.IntN(4) == 0,
			submitted: time.Duration(rng.IntN(300)) * sec,
			maps:      rng.IntN(5),
			reduces:   rng.IntN(3),
		}
		js.deadline = js.submitted + time.Duration(rng.IntN(400)-60)*sec
		if js.deadline <= 0 {
			js.deadline = sec
		}
		for range rng.IntN(4) {
			reduce := rng.IntN(4) == 0
			start := time.Duration(rng.Int64N(int64(js.submitted) + 1))
			if rng.IntN(2) == 0 {
				js.done = append(js.done, taskSpec{reduce: reduce, start: start, dur: time.Duration(1+rng.IntN(60)) * sec})
				continue
			}
			placed := false
			for _, n := range sc.nodes {
				if f := free[n.name]; f[b2i(reduce)] > 0 {
					f[b2i(reduce)]--
					js.done = append(js.done, taskSpec{reduce: reduce, start: start, node: n.name})
					placed = true
					break
				}
			}
			if !placed {
				js.done = append(js.done, taskSpec{reduce: reduce, start: start, dur: sec})
			}
		}
		if len(js.done) == 0 {
			js.gated = js.reduces
		}
		if js.maps+js.reduces+len(js.done) == 0 {
			js.maps = 1
		}
		sc.jobs = append(sc.jobs, js)
	}
	return sc
}

// TestDifferential runs each scenario through the real kube-scheduler
// with the LeastSpareTime plugin and checks that the pods it reserves,
// in the order it reserves them, the nodes' slots, and the hopeless jobs
// it reports (and deletes) are exactly what lss decides for the same
// state.
func TestDifferential(t *testing.T) {
	all := scenarios()
	for seed := range uint64(8) {
		all = append(all, randomScenario(seed))
	}
	for _, sc := range all {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			exp := oracle(t, sc)
			sc.objects() // fills sc.ready and sc.firstPod for want
			var want []string
			next := map[string]*[2]int{}
			for kind := range 2 {
				for _, a := range exp.assigned[kind] {
					at := next[a.job]
					if at == nil {
						at = new([2]int)
						next[a.job] = at
					}
					want = append(want, sc.ready[a.job][a.phase][at[a.phase]])
					at[a.phase]++
				}
			}
			var wantQueue []string
			next = map[string]*[2]int{}
			for _, a := range exp.queue {
				at := next[a.job]
				if at == nil {
					at = new([2]int)
					next[a.job] = at
				}
				wantQueue = append(wantQueue, sc.ready[a.job][a.phase][at[a.phase]])
				at[a.phase]++
			}
			var wantPlain []string
			for k := range sc.plain {
				wantPlain = append(wantPlain, fmt.Sprintf("plain-%02d", k))
			}
			wantHopeless := map[string]bool{}
			for _, name := range exp.killed {
				target := name
				for _, js := range sc.jobs {
					if js.name == name && js.group {
						target = sc.firstPod[name]
					}
				}
				wantHopeless[target] = true
			}

			res := run(t, sc, len(want)+len(wantPlain), len(wantHopeless))

			// The queue: every ready deadline pod, first attempted in lss's
			// hand-out order, then the plain pods.
			popped := res.popped
			t.Logf("lss queue %v; reserved %v", wantQueue, res.reserved)
			if len(popped) < len(wantQueue) || !slices.Equal(popped[:len(wantQueue)], wantQueue) {
				t.Errorf("queue order (first attempts):\n got %v\nwant %v (then plain %v)", popped, wantQueue, wantPlain)
			} else if rest := slices.Sorted(slices.Values(popped[len(wantQueue):])); !slices.Equal(rest, wantPlain) {
				t.Errorf("after the deadline pods, attempted %v; want the plain pods %v", rest, wantPlain)
			}

			got := res.reserved
			if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
				t.Fatalf("reserve order:\n got %v\nwant %v (then plain %v)\nlss: %+v", got, want, wantPlain, exp)
			}
			rest := slices.Clone(got[len(want):])
			slices.Sort(rest)
			if !slices.Equal(rest, wantPlain) {
				t.Errorf("after the deadline pods, reserved %v; want the plain pods %v", rest, wantPlain)
			}
			if len(res.bindings) != len(got) {
				t.Errorf("%d bindings for %d reserved pods: %v", len(res.bindings), len(got), res.bindings)
			}
			for _, name := range got {
				if _, ok := res.bindings[name]; !ok {
					t.Errorf("pod %s reserved but not bound", name)
				}
			}
			checkSlots(t, sc, res)
			gotHopeless := map[string]bool{}
			for name, note := range res.hopeless {
				gotHopeless[name] = true
				if !strings.Contains(note, "cannot meet its deadline") {
					t.Errorf("event on %s: note %q", name, note)
				}
			}
			if fmt.Sprint(gotHopeless) != fmt.Sprint(wantHopeless) {
				t.Errorf("hopeless reported on %v; lss kills %v", gotHopeless, exp.killed)
			}
			checkDeleted(t, sc, exp, res)
		})
	}
}

// checkSlots checks that no node runs more tasks of a kind than it has
// slots: bound pods plus the scenario's running ones.
func checkSlots(t *testing.T, sc *scenario, res result) {
	t.Helper()
	used := map[string]*[2]int{}
	for _, n := range sc.nodes {
		used[n.name] = &[2]int{}
	}
	for _, js := range sc.jobs {
		for _, d := range js.done {
			if d.dur == 0 {
				used[d.node][b2i(d.reduce)]++
			}
		}
	}
	for pod, node := range res.bindings {
		if strings.HasPrefix(pod, "plain-") {
			continue
		}
		// Pod names are <job>-<m|r><index>.
		i := strings.LastIndexByte(pod, '-')
		used[node][b2i(pod[i+1] == 'r')]++
	}
	for _, n := range sc.nodes {
		u := used[n.name]
		if u[0] > n.maps || u[1] > n.reduces || (n.cordoned && u[0]+u[1] > 0) {
			t.Errorf("node %s runs %d maps and %d reduces on %d+%d slots (cordoned %v)", n.name, u[0], u[1], n.maps, n.reduces, n.cordoned)
		}
	}
}

// checkDeleted checks that exactly the hopeless jobs were deleted, and
// only with deleteHopelessJobs.
func checkDeleted(t *testing.T, sc *scenario, exp expectation, res result) {
	t.Helper()
	want := map[string]bool{}
	if sc.deleteHopeless {
		for _, name := range exp.killed {
			for _, js := range sc.jobs {
				if js.name != name {
					continue
				}
				if !js.group {
					want["jobs/"+name] = true
					continue
				}
				for _, p := range groupPods(sc, js) {
					want["pods/"+p] = true
				}
			}
		}
	}
	if fmt.Sprint(res.deleted) != fmt.Sprint(want) {
		t.Errorf("deleted %v, want %v", res.deleted, want)
	}
}

// groupPods lists a pod group's unfinished pods.
func groupPods(sc *scenario, js jobSpec) []string {
	_, _, pods := sc.objects()
	var out []string
	for _, p := range pods {
		if strings.HasPrefix(p.Name, js.name+"-") && p.Status.Phase != "Succeeded" {
			out = append(out, p.Name)
		}
	}
	return out
}

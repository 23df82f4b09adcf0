package fgm_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// TestSampleCursorMatchesLookup is the property test of the sampling
// cursor (SampleTask and SampleNode try the task or server sampled after
// the previous one last time before looking the ID up): on random
// scenarios it plays every call on a scheduler with the cursor and on
// one that looks every ID up (SampleTaskLookup, SampleNodeLookup), and requires the same
// decisions and errors from both at every call, and the same History
// (keys, observations, predicted profiles) and free timelines at the
// end. The host samples its running tasks round after round in an order
// that mostly holds but is perturbed: tasks start and end (a failed one
// is submitted again under its ID, so a runState is reused for the same
// ID), two swap places, some are skipped or sampled twice, pending and
// unknown IDs are sampled, nodes are sampled out of order, go down and
// come back. MaxSamples is small, so buffers merge; on half the seeds
// the Space has no compressible kind.
//
// The cursors must have found tasks and servers (fgm.SkipCounts > 0).
func TestSampleCursorMatchesLookup(t *testing.T) {
	clear(cursorTotals)
	for seed := range uint64(40) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			sampleCursorScenario(t, seed)
		})
	}
	for _, k := range []string{"taskCursor", "nodeCursor", "clockRepeats"} {
		if cursorTotals[k] == 0 {
			t.Errorf("cursor %s never hit", k)
		}
	}
}

// cursorTotals sums fgm.SkipCounts of the cursor sides of the scenarios.
var cursorTotals = map[string]uint64{}

type cursorSide struct {
	s      *fgm.Scheduler
	h      *estimate.History
	c      *schedkittest.Cluster
	lookup bool // the reference: every task and server found by ID
}

func (x cursorSide) sampleTask(now time.Time, id schedkit.TaskID, used resource.Vector) error {
	if x.lookup {
		return fgm.SampleTaskLookup(x.s, now, id, used)
	}
	return x.s.SampleTask(now, id, used)
}

func (x cursorSide) sampleNode(now time.Time, id schedkit.NodeID, used resource.Vector) error {
	if x.lookup {
		return fgm.SampleNodeLookup(x.s, now, id, used)
	}
	return x.s.SampleNode(now, id, used)
}

// sameHistories requires a's and b's Histories to predict keys alike
// (sides named na and nb) and returns a's observations of them.
func sameHistories(t *testing.T, a, b cursorSide, keys []schedkit.SimilarityKey, na, nb string) int {
	t.Helper()
	learned := 0
	for _, k := range keys {
		pa, oka := a.h.Predict(k)
		pb, okb := b.h.Predict(k)
		if sa, sb := fmt.Sprint(oka, pa), fmt.Sprint(okb, pb); sa != sb {
			t.Fatalf("History %v: %s %s, %s %s", k, na, sa, nb, sb)
		}
		learned += a.h.Observations(k)
	}
	return learned
}

// newCursorSide returns a scheduler of nodes servers of capacity over
// space that learns in a small History (few keys, few bins) from few
// buffered samples per task (MaxSamples from the seed), so that
// evictions and merges happen.
func newCursorSide(t *testing.T, space *resource.Space, nodes int, capacity resource.Vector, seed uint64, lookup bool) cursorSide {
	c := newCluster(space, nodes, capacity)
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MaxKeys: 3, MinObservations: 1, MinSamples: 1, Bins: 8})
	if err != nil {
		t.Fatal(err)
	}
	s, err := fgm.New(fgm.Config{Cluster: c, History: h, MaxSamples: 2 + int(seed%5)})
	if err != nil {
		t.Fatal(err)
	}
	return cursorSide{s, h, c, lookup}
}

func sampleCursorScenario(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 91))
	space := testSpace(t)
	capacity := resource.Vector{8, 16, 100}
	slots := seed%2 == 1
	if slots {
		var err error
		if space, err = resource.NewSpace(resource.MapSlot, resource.ReduceSlot); err != nil {
			t.Fatal(err)
		}
		capacity = resource.Vector{2, 2}
	}
	const nodes = 4
	a, b := newCursorSide(t, space, nodes, capacity, seed, false), newCursorSide(t, space, nodes, capacity, seed, true)
	keys := []schedkit.SimilarityKey{{Logic: "m", DataSize: 1}, {Logic: "m", DataSize: 2}, {Logic: "r", DataSize: 1}, {Logic: "x", DataSize: 3}}
	reqs := []resource.Vector{{1, 2, 0}, {2, 4, 0}, {3, 1, 0}}
	if slots {
		reqs = []resource.Vector{{1, 0}, {0, 1}}
	}
	now := time.Duration(0)
	both := func(op string, f func(x cursorSide) ([]fgm.Decision, error)) []fgm.Decision {
		da, ea := f(a)
		db, eb := f(b)
		if sa, sb := showDecisions(da, ea), showDecisions(db, eb); sa != sb {
			t.Fatalf("%s at %v: cursor %q, lookup %q", op, now, sa, sb)
		}
		return da
	}
	tasks := map[schedkit.TaskID]*fgmtest.Task{}
	var order []schedkit.TaskID // the host's running tasks, in its sampling order
	var pending []schedkit.TaskID
	where := map[schedkit.TaskID]int{} // node of each running task
	up := make([]bool, nodes)
	for i := range up {
		up[i] = true
	}
	submit := func(tk *fgmtest.Task) {
		both("Submit", func(x cursorSide) ([]fgm.Decision, error) { return nil, x.s.Submit(t0.Add(now), tk) })
		pending = append(pending, tk.Key)
	}
	drop := func(id schedkit.TaskID) {
		order = slices.DeleteFunc(order, func(x schedkit.TaskID) bool { return x == id })
	}
	level := func() float64 { return float64(rng.IntN(4)) / 2 }
	for step := 0; step < 600; step++ {
		switch r := rng.IntN(20); {
		case r < 4:
			for range 1 + rng.IntN(4) {
				tk := randomTask(rng, len(tasks), keys, reqs)
				tasks[tk.Key] = tk
				submit(tk)
			}
		case r < 8:
			n := rng.IntN(nodes)
			if !up[n] {
				continue
			}
			ds := both("Schedule", func(x cursorSide) ([]fgm.Decision, error) { return x.s.Schedule(t0.Add(now), x.c.NodeList[n], nil) })
			for _, d := range ds {
				pending = slices.DeleteFunc(pending, func(x schedkit.TaskID) bool { return x == d.Task })
				// A new task joins the sampling order at its node's
				// place or at the end.
				at := len(order)
				if len(order) > 0 && rng.IntN(2) == 0 {
					at = rng.IntN(len(order))
				}
				order = slices.Insert(order, at, d.Task)
				where[d.Task] = n
			}
		case r < 14: // a sampling round
			now += time.Duration(1+rng.IntN(3)) * time.Second
			round := slices.Clone(order)
			if len(round) > 1 && rng.IntN(3) == 0 {
				i, j := rng.IntN(len(round)), rng.IntN(len(round))
				round[i], round[j] = round[j], round[i]
			}
			for _, id := range round {
				ids := []schedkit.TaskID{id}
				switch rng.IntN(12) {
				case 0:
					ids = nil // skipped
				case 1:
					ids = append(ids, id) // twice
				case 2:
					ids = append(ids, "nope")
				case 3:
					if len(pending) > 0 {
						ids = append(ids, pending[rng.IntN(len(pending))])
					}
				}
				for _, id := range ids {
					used := space.Zero()
					for k := range used {
						used[k] = level() * capacity[k] / 4
					}
					both("SampleTask", func(x cursorSide) ([]fgm.Decision, error) { return nil, x.sampleTask(t0.Add(now), id, used) })
				}
			}
			ns := rng.Perm(nodes)
			if rng.IntN(3) > 0 {
				slices.Sort(ns)
			}
			for _, n := range ns {
				used := space.Zero()
				for k := range used {
					used[k] = level() * capacity[k] / 2
				}
				both("SampleNode", func(x cursorSide) ([]fgm.Decision, error) {
					return nil, x.sampleNode(t0.Add(now), x.c.NodeList[n].Key, used)
				})
			}
		case r < 17: // a running task ends
			if len(order) == 0 {
				continue
			}
			id := order[rng.IntN(len(order))]
			now += time.Duration(rng.IntN(2)) * time.Second
			ok := rng.IntN(3) > 0
			both("Release", func(x cursorSide) ([]fgm.Decision, error) { return nil, x.s.Release(t0.Add(now), id, ok) })
			drop(id)
			if !ok {
				submit(tasks[id]) // again, under its ID
			}
		case r < 18:
			ds := both("Tick", func(x cursorSide) ([]fgm.Decision, error) { return x.s.Tick(t0.Add(now), nil) })
			for _, d := range ds {
				if d.Action == fgm.Reclaim {
					drop(d.Task)
					submit(tasks[d.Task])
				}
			}
		case r < 19: // a node goes down (its tasks are lost) or comes back
			n := rng.IntN(nodes)
			if up[n] {
				both("RemoveNode", func(x cursorSide) ([]fgm.Decision, error) { return nil, x.s.RemoveNode(x.c.NodeList[n].Key) })
				up[n] = false
				for _, id := range slices.Clone(order) {
					if where[id] == n {
						drop(id)
						submit(tasks[id])
					}
				}
			} else {
				both("AddNode", func(x cursorSide) ([]fgm.Decision, error) { return nil, x.s.AddNode(x.c.NodeList[n]) })
				up[n] = true
			}
		default:
			now += time.Duration(rng.IntN(3)) * time.Second
		}
	}
	if a.h.Len() != b.h.Len() || a.s.Running() != b.s.Running() || a.s.Pending() != b.s.Pending() {
		t.Fatalf("History keys %d/%d, running %d/%d, pending %d/%d", a.h.Len(), b.h.Len(), a.s.Running(), b.s.Running(), a.s.Pending(), b.s.Pending())
	}
	learned := sameHistories(t, a, b, keys, "cursor", "lookup")
	for n := range nodes {
		if !up[n] {
			continue
		}
		fa, fb := space.Zero(), space.Zero()
		both("Free", func(x cursorSide) ([]fgm.Decision, error) {
			dst := fa
			if x.s == b.s {
				dst = fb
			}
			return nil, x.s.Free(t0.Add(now), x.c.NodeList[n].Key, dst)
		})
		if fmt.Sprint(fa) != fmt.Sprint(fb) {
			t.Fatalf("Free %s: cursor %v, lookup %v", a.c.NodeList[n].Key, fa, fb)
		}
	}
	if learned == 0 {
		t.Fatalf("nothing learned: the scenario does not exercise the sample buffers")
	}
	for k, n := range fgm.SkipCounts(a.s) {
		cursorTotals[k] += n
	}
}

// BenchmarkSampleTask times the usage-sample path of a trace day: every
// running task of a slot cluster (two map slots per server, both busy)
// sampled every 3 s in the host's fixed order, then every server, with a
// History (so each sample is buffered) and tasks released and replaced
// as their buffers fill (outside the timer). Reported per task sample;
// "batch" reports each node's tasks in one call (SampleTasks); "lookup"
// is the reference path (SampleTaskLookup, SampleNodeLookup:
// every task and server looked up by ID).
func BenchmarkSampleTask(b *testing.B) {
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		b.Fatal(err)
	}
	for _, running := range []int{256, 4096} {
		for _, path := range []string{"cursor", "batch", "lookup"} {
			b.Run(fmt.Sprintf("running=%d/%s", running, path), func(b *testing.B) {
				c := newCluster(space, running/2, resource.Vector{2, 2})
				h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space})
				if err != nil {
					b.Fatal(err)
				}
				s, err := fgm.New(fgm.Config{Cluster: c, History: h, MaxSamples: 64})
				if err != nil {
					b.Fatal(err)
				}
				lookup := path == "lookup"
				now := t0
				var order []schedkit.TaskID
				next := 0
				fill := func(n *schedkittest.Node) {
					for range 2 {
						tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("t%08d", next)), JobKey: "j", Similar: schedkit.SimilarityKey{Logic: "m", DataSize: 1}, Request: resource.Vector{1, 0}}}
						next++
						if err := s.Submit(now, tk); err != nil {
							b.Fatal(err)
						}
					}
					ds, err := s.Schedule(now, n, nil)
					if err != nil || len(ds) != 2 {
						b.Fatalf("%s: placed %v, %v (pending %d)", n.Key, ds, err, s.Pending())
					}
					for _, d := range ds {
						order = append(order, d.Task)
					}
				}
				for _, n := range c.NodeList {
					fill(n)
				}
				used, nodeUsed := resource.Vector{1, 0}, resource.Vector{2, 0}
				rounds := 0
				var round []fgm.TaskUsage
				b.ReportAllocs()
				for b.Loop() {
					now = now.Add(3 * time.Second)
					switch path {
					case "batch":
						// Each node's two tasks (order is node by node) in
						// one call, then the node.
						for i, n := range c.NodeList {
							round = append(round[:0], fgm.TaskUsage{Task: order[2*i], Used: used}, fgm.TaskUsage{Task: order[2*i+1], Used: used})
							if err := s.SampleTasks(now, n.Key, round); err != nil {
								b.Fatal(err)
							}
							if err := s.SampleNode(now, n.Key, nodeUsed); err != nil {
								b.Fatal(err)
							}
						}
					default:
						for _, id := range order {
							var err error
							if lookup {
								err = fgm.SampleTaskLookup(s, now, id, used)
							} else {
								err = s.SampleTask(now, id, used)
							}
							if err != nil {
								b.Fatal(err)
							}
						}
						for _, n := range c.NodeList {
							var err error
							if lookup {
								err = fgm.SampleNodeLookup(s, now, n.Key, nodeUsed)
							} else {
								err = s.SampleNode(now, n.Key, nodeUsed)
							}
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					if rounds++; rounds%100 == 0 {
						// Every task has run 300 s: end them all, learn, refill.
						b.StopTimer()
						for _, id := range order {
							if err := s.Release(now, id, true); err != nil {
								b.Fatal(err)
							}
						}
						order = order[:0]
						for _, n := range c.NodeList {
							// Measured idle again, the node takes two tasks.
							if err := s.SampleNode(now, n.Key, resource.Vector{0, 0}); err != nil {
								b.Fatal(err)
							}
							fill(n)
						}
						b.StartTimer()
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds*running), "ns/sample")
			})
		}
	}
}

// TestSampleTasksMatchesSampleTask is the property test of SampleTasks:
// on random scenarios (tasks placed, ended, failed and submitted again,
// Ticks), a scheduler sampled a node's tasks in one call per round
// decides, learns and keeps its servers' free timelines exactly as one
// sampled task by task (SampleTask, in the same order), and a round
// with a bad sample (an amount above capacity, an unknown task, a task
// of another node) is refused whole, naming it, and changes nothing.
func TestSampleTasksMatchesSampleTask(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { sampleTasksScenario(t, seed) })
	}
}

func sampleTasksScenario(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 92))
	space := testSpace(t)
	capacity := resource.Vector{8, 16, 100}
	const nodes = 3
	// a: SampleTasks; b: SampleTask
	a, b := newCursorSide(t, space, nodes, capacity, seed, false), newCursorSide(t, space, nodes, capacity, seed, false)
	keys := []schedkit.SimilarityKey{{Logic: "m", DataSize: 1}, {Logic: "r", DataSize: 1}, {Logic: "x", DataSize: 3}}
	reqs := []resource.Vector{{1, 2, 0}, {2, 4, 0}, {3, 1, 0}}
	now := time.Duration(0)
	same := func(op string, da []fgm.Decision, ea error, db []fgm.Decision, eb error) {
		if sa, sb := fmt.Sprint(da, ea), fmt.Sprint(db, eb); sa != sb {
			t.Fatalf("%s at %v: batched %s, one by one %s", op, now, sa, sb)
		}
	}
	tasks := map[schedkit.TaskID]*fgmtest.Task{}
	on := make([][]schedkit.TaskID, nodes) // running tasks by node, in sampling order
	submit := func(tk *fgmtest.Task) {
		same("Submit", nil, a.s.Submit(t0.Add(now), tk), nil, b.s.Submit(t0.Add(now), tk))
	}
	for step := 0; step < 500; step++ {
		switch r := rng.IntN(20); {
		case r < 5:
			tk := randomTask(rng, len(tasks), keys, reqs)
			tasks[tk.Key] = tk
			submit(tk)
		case r < 9:
			n := rng.IntN(nodes)
			da, ea := a.s.Schedule(t0.Add(now), a.c.NodeList[n], nil)
			db, eb := b.s.Schedule(t0.Add(now), b.c.NodeList[n], nil)
			same("Schedule", da, ea, db, eb)
			for _, d := range da {
				on[n] = append(on[n], d.Task)
			}
		case r < 15: // a sampling round, node by node
			now += time.Duration(1+rng.IntN(3)) * time.Second
			for n := range nodes {
				var round []fgm.TaskUsage
				for _, id := range on[n] {
					used := space.Zero()
					for k := range used {
						used[k] = float64(rng.IntN(5)) * capacity[k] / 8
					}
					round = append(round, fgm.TaskUsage{Task: id, Used: used})
				}
				bad := ""
				if len(round) > 0 && rng.IntN(10) == 0 {
					i := rng.IntN(len(round))
					switch rng.IntN(3) {
					case 0:
						round[i].Used = resource.Vector{99, 0, 0}
						bad = "above the node's capacity"
					case 1:
						round[i].Task = "nope"
						bad = "not running on the node"
					default:
						if m := (n + 1) % nodes; len(on[m]) > 0 {
							round[i].Task = on[m][0]
							bad = "not running on the node"
						} else {
							round[i].Task = "nope"
							bad = "not running on the node"
						}
					}
				}
				err := a.s.SampleTasks(t0.Add(now), a.c.NodeList[n].Key, round)
				if bad != "" {
					if err == nil || !strings.Contains(err.Error(), bad) {
						t.Fatalf("bad round: %v, want an error saying %q", err, bad)
					}
				} else {
					for _, u := range round {
						if eb := b.s.SampleTask(t0.Add(now), u.Task, u.Used); eb != nil || err != nil {
							t.Fatalf("SampleTask %s: %v; SampleTasks: %v", u.Task, eb, err)
						}
					}
				}
				used := space.Zero()
				for k := range used {
					used[k] = float64(rng.IntN(5)) * capacity[k] / 4
				}
				same("SampleNode", nil, a.s.SampleNode(t0.Add(now), a.c.NodeList[n].Key, used), nil, b.s.SampleNode(t0.Add(now), b.c.NodeList[n].Key, used))
			}
		case r < 18: // a running task ends
			n := rng.IntN(nodes)
			if len(on[n]) == 0 {
				continue
			}
			i := rng.IntN(len(on[n]))
			id := on[n][i]
			now += time.Duration(rng.IntN(2)) * time.Second
			ok := rng.IntN(3) > 0
			same("Release", nil, a.s.Release(t0.Add(now), id, ok), nil, b.s.Release(t0.Add(now), id, ok))
			on[n] = slices.Delete(on[n], i, i+1)
			if !ok {
				submit(tasks[id])
			}
		case r < 19:
			da, ea := a.s.Tick(t0.Add(now), nil)
			db, eb := b.s.Tick(t0.Add(now), nil)
			same("Tick", da, ea, db, eb)
			for _, d := range da {
				for n := range on {
					on[n] = slices.DeleteFunc(on[n], func(x schedkit.TaskID) bool { return x == d.Task })
				}
				submit(tasks[d.Task])
			}
		default:
			now += time.Duration(rng.IntN(3)) * time.Second
		}
	}
	if learned := sameHistories(t, a, b, keys, "batched", "one by one"); learned == 0 {
		t.Fatal("nothing learned: the scenario does not exercise the sample buffers")
	}
	for n := range nodes {
		fa, fb := space.Zero(), space.Zero()
		same("Free", nil, a.s.Free(t0.Add(now), a.c.NodeList[n].Key, fa), nil, b.s.Free(t0.Add(now), b.c.NodeList[n].Key, fb))
		if fmt.Sprint(fa) != fmt.Sprint(fb) {
			t.Fatalf("Free %d: batched %v, one by one %v", n, fa, fb)
		}
	}
}

// randomTask returns the sampling scenarios' task number i, of one of
// three jobs, with a key and a request drawn from keys and reqs.
func randomTask(rng *rand.Rand, i int, keys []schedkit.SimilarityKey, reqs []resource.Vector) *fgmtest.Task {
	return &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("t", i)), JobKey: schedkit.JobID(fmt.Sprint("j", rng.IntN(3))),
		Similar: keys[rng.IntN(len(keys))], Request: reqs[rng.IntN(len(reqs))]}}
}

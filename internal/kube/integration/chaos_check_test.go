package integration_test

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/lss"
)

// TestChaos runs each queue-sort profile through chaos (several seeds;
// one with -short) and then checks it: still scheduling (a probe node's
// slot is taken), the order (a final node's slots go to the pods the
// algorithm starts), every good pod bound and no other, and a footprint
// back to nothing once the cluster is emptied.
func TestChaos(t *testing.T) {
	seeds, steps := 3, 150
	if testing.Short() {
		seeds, steps = 1, 60
	}
	for _, cp := range chaosPlugins {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", cp.name, seed), func(t *testing.T) {
				c := newChaos(t, cp, uint64(seed))
				for range steps {
					c.step()
					time.Sleep(time.Duration(c.rng.IntN(3)) * time.Millisecond) // the scheduler acts between changes
				}
				c.checkAlive()
				c.checkOrder()
				c.checkAllGood()
				c.empty()
				if f := c.waitFootprint(); f.total() != 0 {
					t.Errorf("the plugin keeps %s of an empty cluster", f)
				}
				c.stop()
			})
		}
	}
}

// TestChaosSoak churns for -kube.soak (or $SCHEDKIT_SOAK: a Go duration)
// on a LeastSpareTime and a DeadlineBudget scheduler side by side: good
// Jobs come, run, finish and go, hostile objects come and go, the clock
// moves; the cluster stays the same size. It logs the heap after a
// collection at ten checkpoints and requires the last to be within 1.25
// times the middle one's plus 8 MiB — kube-scheduler's event recorder
// keeps each event for 6 to 12 minutes, so the first half of a soak of
// half an hour or more takes it to its level — and the plugins'
// footprint back to nothing once the cluster is emptied.
//
//	SCHEDKIT_SOAK=30m go test ./integration -run TestChaosSoak -v -timeout 90m
func TestChaosSoak(t *testing.T) {
	d := *soakFor
	if s := os.Getenv("SCHEDKIT_SOAK"); s != "" && d == 0 {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatalf("SCHEDKIT_SOAK=%q: %v", s, err)
		}
	}
	if d == 0 {
		t.Skip("set -kube.soak or SCHEDKIT_SOAK to a duration")
	}
	for _, cp := range chaosPlugins {
		t.Run(cp.name, func(t *testing.T) {
			t.Parallel()
			c := newChaos(t, cp, 1)
			round := func() {
				for range 100 {
					c.step()
				}
				c.trim()
				time.Sleep(100 * time.Millisecond)
			}
			for range 5 {
				round()
			}
			heap := []uint64{heapAfterGC()}
			t.Logf("warm: heap %.1f MiB after a collection, %d objects created, footprint %s", mib(heap[0]), c.created, c.footprint())
			start := time.Now()
			for k := 1; k <= 10; k++ {
				for time.Since(start) < time.Duration(k)*d/10 {
					round()
				}
				heap = append(heap, heapAfterGC())
				t.Logf("%v: heap %.1f MiB, %d objects created, footprint %s", time.Duration(k)*d/10, mib(heap[k]), c.created, c.footprint())
			}
			if path := os.Getenv("SCHEDKIT_SOAK_HEAPPROFILE"); path != "" {
				writeHeapProfile(t, fmt.Sprintf("%s.%s", path, cp.name))
			}
			if mid, end := heap[5], heap[10]; float64(end) > 1.25*float64(mid)+8<<20 {
				t.Errorf("heap grew from %.1f MiB half way to %.1f MiB at the end", mib(mid), mib(end))
			}
			c.checkAlive()
			c.empty()
			if f := c.waitFootprint(); f.total() != 0 {
				t.Errorf("the plugin keeps %s of an empty cluster", f)
			}
			c.stop()
		})
	}
}

var soakFor = flag.Duration("kube.soak", 0, "TestChaosSoak: how long to churn (0: skip unless $SCHEDKIT_SOAK is set)")

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// writeHeapProfile writes the heap profile (go tool pprof) to path.
func writeHeapProfile(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// trim keeps the soak's cluster the same size: it deletes Jobs (and
// their pods) and pods without a Job beyond the newest 40 objects of
// each kind, oldest first, and the absurd nodes. It also forgets what
// the test's own instruments keep: the fake API's log of every action
// and the recorder's attempts (not the scheduler's memory).
func (c *chaos) trim() {
	c.client.ClearActions()
	c.rec.reset()
	jobs, err := c.client.BatchV1().Jobs(chaosNS).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	items := jobs.Items
	slices.SortFunc(items, func(a, b batchv1.Job) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	keep := map[string]bool{}
	for i, j := range items {
		if i < len(items)-40 {
			c.deleteJob(j.Name)
		} else {
			keep[j.Name] = true
		}
	}
	for _, p := range c.pods() {
		if ref := metav1.GetControllerOf(p); ref == nil || !keep[ref.Name] {
			c.deletePod(p.Name)
		}
	}
	for _, n := range c.absurd {
		if err := c.client.CoreV1().Nodes().Delete(c.ctx, n, metav1.DeleteOptions{}); err != nil {
			c.t.Fatal(err)
		}
	}
	c.absurd = nil
	c.foreign = slices.DeleteFunc(c.foreign, func(name string) bool { return !keep[name] })
}

// checkAlive: the running scheduler still binds a pod of the profile on
// a probe node with one map slot (then cordoned), and deleted no other
// scheduler's Job.
func (c *chaos) checkAlive() {
	c.t.Helper()
	for _, name := range c.foreign {
		if _, err := c.client.BatchV1().Jobs(chaosNS).Get(c.ctx, name, metav1.GetOptions{}); err != nil {
			c.t.Errorf("another scheduler's Job %s: %v", name, err)
		}
	}
	before := c.boundCount()
	name := c.name("probe")
	c.job(name, c.clk.Now(), c.ann(), 1, 0, c.cp.sched)
	c.addNode(c.name("probe-node"), 1, 0)
	if !waitUntil(20*time.Second, func() bool { return c.boundCount() > before }) {
		c.t.Fatalf("the scheduler bound nothing on a free slot after the chaos")
	}
	c.cordon(c.nodes[len(c.nodes)-1])
}

func (c *chaos) boundCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bound)
}

func (c *chaos) boundSet() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.bound)
}

func (c *chaos) cordon(name string) {
	n, err := c.client.CoreV1().Nodes().Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	n.Spec.Unschedulable = true
	if _, err := c.client.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

func waitUntil(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// checkOrder stops the chaos at T, two hours on (past any skew), cordons
// every node and lets the scheduler settle, then adds a node of three
// map slots and one reduce slot: the pods bound there must be those the
// algorithm's heartbeat of that node assigns on the cluster as it is,
// of each kind (they start together: the order among them is not the
// algorithm's question). For DeadlineBudget the node comes before a
// restart of the scheduler: dbs's weights are state, so its decision is
// a fresh replica's, which the oracle is.
func (c *chaos) checkOrder() {
	c.t.Helper()
	T := now.Add(2 * time.Hour)
	c.clk.SetTime(T)
	for _, n := range c.nodes {
		c.cordon(n)
	}
	time.Sleep(2500 * time.Millisecond) // every pending pod tried, past its backoff
	before := c.boundSet()
	final := kubetest.Node(c.name("final"), 3, 1)
	want := c.oracle(T, final)
	if c.cp.restart {
		c.stop()
		c.create(final)
		c.start()
	} else {
		c.rec.mu.Lock()
		c.rec.round = 1
		c.rec.mu.Unlock()
		c.create(final)
	}
	c.nodes = append(c.nodes, final.Name)
	n := len(want.assigned[0]) + len(want.assigned[1])
	ok := waitUntil(20*time.Second, func() bool { return c.boundCount()-len(before) >= n })
	time.Sleep(500 * time.Millisecond)
	got := map[string]bool{}
	for p := range c.boundSet() {
		if _, was := before[p]; !was {
			got[p] = true
		}
	}
	var kinds [2][]string
	for p := range got {
		kinds[b2i(want.reduce[p])] = append(kinds[b2i(want.reduce[p])], p)
	}
	for k := range kinds {
		slices.Sort(kinds[k])
	}
	if !ok || len(got) != n || !slices.Equal(kinds[0], slices.Sorted(slices.Values(want.assigned[0]))) ||
		!slices.Equal(kinds[1], slices.Sorted(slices.Values(want.assigned[1]))) {
		c.t.Errorf("the final node's slots went to maps %v, reduces %v; the heartbeat assigns %v", kinds[0], kinds[1], want.assigned)
	}
	c.cordon(final.Name)
}

// checkAllGood adds a node with room for every pending good pod (the
// ready pods of the jobs the algorithm takes and does not kill): every
// one is bound, and no other pod.
func (c *chaos) checkAllGood() {
	c.t.Helper()
	big := kubetest.Node(c.name("big"), 0, 0)
	want := c.oracle(c.clk.Now(), big)
	maps, reduces := 0, 0
	for _, r := range want.good {
		if r {
			reduces++
		} else {
			maps++
		}
	}
	before := c.boundSet()
	c.addNode(big.Name, int64(maps+2), int64(reduces+2))
	ok := waitUntil(20*time.Second, func() bool { return c.boundCount()-len(before) >= len(want.good) })
	time.Sleep(500 * time.Millisecond)
	var missing, extra []string
	after := c.boundSet()
	for p := range want.good {
		if _, b := after[p]; !b {
			missing = append(missing, p)
		}
	}
	for p := range after {
		if _, was := before[p]; !was {
			if _, g := want.good[p]; !g {
				extra = append(extra, p)
			}
		}
	}
	if !ok || len(missing)+len(extra) > 0 {
		c.t.Errorf("good pods not bound %v; other pods bound %v", missing, extra)
	}
}

// chaosWant is what the algorithm decides on the cluster as it is with
// node n added: a heartbeat of n (its assignments per kind, pod names in
// order), and the good pods (ready pods of the jobs it takes and does not
// kill; true for reduces).
type chaosWant struct {
	assigned [2][]string
	reduce   map[string]bool
	good     map[string]bool
}

// oracle lists the cluster from the fake API, translates it with podjob
// as the plugin does (its profile's pods; cordoned and refused nodes
// left out) with n added, and asks the algorithm alone: lss, every job
// submitted at its submission, Heartbeat of n; dbs, a fresh scheduler of
// the plugin's args, every job submitted at at and charged its runs at
// its φ's price, a Tick, Heartbeat of n.
func (c *chaos) oracle(at time.Time, n *v1.Node) chaosWant {
	c.t.Helper()
	jobs, err := c.client.BatchV1().Jobs(chaosNS).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	nodes, err := c.client.CoreV1().Nodes().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	var ns []*v1.Node
	for i := range nodes.Items {
		ns = append(ns, &nodes.Items[i])
	}
	lookup := func(_, name string) (*batchv1.Job, error) {
		for i := range jobs.Items {
			if jobs.Items[i].Name == name {
				return &jobs.Items[i], nil
			}
		}
		return nil, fmt.Errorf("no Job %s", name)
	}
	snap := podjob.BuildWith(at, c.pods(), lookup, append(ns, n), podjob.Options{SchedulerName: c.cp.sched, Budget: c.cp.budget})
	var node schedkit.Node
	for i := range snap.Cluster.Nodes() {
		if string(snap.Cluster.Node(i).ID()) == n.Name {
			node = snap.Cluster.Node(i)
		}
	}
	w := chaosWant{reduce: map[string]bool{}, good: map[string]bool{}}
	h := &heartbeat{snap: snap, w: &w, next: map[string]int{}, out: map[schedkit.JobID]bool{}}
	if c.cp.budget {
		c.dbsHeartbeat(h, at, node)
	} else {
		c.lssHeartbeat(h, at, node)
	}
	for _, j := range snap.Jobs {
		if h.out[j.ID()] {
			continue
		}
		for ph := range 2 {
			for _, p := range j.Ready(schedkit.Phase(ph)) {
				w.good[p.Name] = ph == 1
			}
		}
	}
	return w
}

// heartbeat collects an algorithm's decisions for the oracle: the pods
// it assigns (each job's ready pods in rank order) and the jobs it
// leaves out (refused or killed).
type heartbeat struct {
	snap *podjob.Snapshot
	w    *chaosWant
	next map[string]int
	out  map[schedkit.JobID]bool
}

func (h *heartbeat) assign(job schedkit.JobID, phase schedkit.Phase, n int) {
	key := fmt.Sprint(job, phase)
	for range n {
		p := h.snap.Job(job).Ready(phase)[h.next[key]]
		h.next[key]++
		h.w.assigned[phase] = append(h.w.assigned[phase], p.Name)
		h.w.reduce[p.Name] = phase == schedkit.PhaseReduce
	}
}

// lssHeartbeat: lss alone, every job submitted at its submission (in
// that order), a heartbeat of node at at.
func (c *chaos) lssHeartbeat(h *heartbeat, at time.Time, node schedkit.Node) {
	sched, err := lss.New(lss.Config{Cluster: h.snap.Cluster})
	if err != nil {
		c.t.Fatal(err)
	}
	jobs := slices.Clone(h.snap.Jobs)
	slices.SortStableFunc(jobs, func(a, b *podjob.Job) int { return a.Submitted().Compare(b.Submitted()) })
	for _, j := range jobs {
		if err := sched.Submit(j.Submitted(), j); err != nil {
			h.out[j.ID()] = true
		}
	}
	decs, err := sched.Heartbeat(at, node, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, d := range decs {
		switch d.Action {
		case lss.Kill:
			h.out[d.Job] = true
		case lss.Assign:
			h.assign(d.Job, d.Phase, d.Count)
		}
	}
}

// chaosDBSJob is a podjob job for dbs, charged its runs up to at at its
// φ's queue's price.
type chaosDBSJob struct {
	*podjob.Job
	price float64
	at    time.Time
}

func (j chaosDBSJob) CostSoFar() float64 {
	total := 0.0
	for _, r := range j.Runs() {
		end := r.End
		if end.IsZero() || end.After(j.at) {
			end = j.at
		}
		if end.After(r.Start) {
			total += end.Sub(r.Start).Seconds() * j.price
		}
	}
	return total
}

// dbsHeartbeat: a fresh dbs of the plugin's args (dbsArgs), every job
// submitted at at (by ID), a Tick, a heartbeat of node.
func (c *chaos) dbsHeartbeat(h *heartbeat, at time.Time, node schedkit.Node) {
	sched, err := dbs.New(dbs.Config{Cluster: h.snap.Cluster, Interval: 500 * time.Millisecond, DefaultTaskTime: 20 * time.Second, TransferRate: 1e6})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, j := range h.snap.Jobs {
		q, _ := dbs.QueueFor(j.Phi())
		if err := sched.Submit(at, chaosDBSJob{Job: j, price: dbs.DefaultQueues[q].Price, at: at}); err != nil {
			h.out[j.ID()] = true
		}
	}
	if _, err := sched.Tick(at, nil); err != nil {
		c.t.Fatal(err)
	}
	decs, err := sched.Heartbeat(at, node, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, d := range decs {
		h.assign(d.Job, d.Phase, d.Count)
	}
}

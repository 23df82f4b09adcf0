package dbs_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
)

// slotKey is one slot handed out: a job's task of a phase.
type slotKey struct {
	Job   schedkit.JobID
	Phase schedkit.Phase
}

// expandPicks lists picks of kind k slot by slot.
func expandPicks(picks []dbs.Pick, k int) []slotKey {
	var out []slotKey
	for _, p := range picks {
		if int(p.Phase) == k {
			for range p.Count {
				out = append(out, slotKey{p.Job, p.Phase})
			}
		}
	}
	return out
}

// expandAssigns lists Assign decisions of kind k slot by slot.
func expandAssigns(ds []dbs.Decision, k int) []slotKey {
	var out []slotKey
	for _, d := range ds {
		if d.Action == dbs.Assign && int(d.Phase) == k {
			for range d.Count {
				out = append(out, slotKey{d.Job, d.Phase})
			}
		}
	}
	return out
}

// naiveQueue is the reference for Queue: it hands out slots one at a
// time with unlimited free slots, reading every job's figures through
// Status and the host's counters — per slot, the queue least used
// against its share (ties to the higher queue), then in it the job below
// its minimum, else the first by weight, submission, ID. Paper defaults
// only (no options).
func naiveQueue(t testing.TB, s *dbs.Scheduler, jobs []*hJob) []dbs.Pick {
	type cand struct {
		j     *hJob
		st    dbs.JobStatus
		avail [2]int
	}
	var cs []*cand
	var used [3][2]int
	for _, j := range jobs {
		st, err := s.Status(j.id)
		if err != nil {
			t.Fatal(err)
		}
		c := &cand{j: j, st: st}
		for p := range j.nph {
			c.avail[p] = j.ph[p].Ready
		}
		if j.ph[0].Finished < j.ph[0].Total {
			c.avail[1] = 0
		}
		used[st.Queue][0] += st.Held[0]
		used[st.Queue][1] += st.Held[1]
		cs = append(cs, c)
	}
	share := func(q int) float64 { return s.Queues()[q].Share }
	minOf := func(c *cand, k int) int {
		if k == 0 {
			return c.st.Min.Map
		}
		return c.st.Min.Reduce
	}
	var out []dbs.Pick
	for k := range 2 {
		start := len(out)
		for {
			best := -1
			for q := 2; q >= 0; q-- {
				has := false
				for _, c := range cs {
					has = has || (int(c.st.Queue) == q && c.avail[k] > 0)
				}
				if has && (best < 0 || float64(used[q][k])/share(q) < float64(used[best][k])/share(best)) {
					best = q
				}
			}
			if best < 0 {
				break
			}
			var pick *cand
			for _, c := range cs {
				if int(c.st.Queue) != best || c.avail[k] == 0 {
					continue
				}
				if pick == nil {
					pick = c
					continue
				}
				cb, pb := c.st.Held[k] < minOf(c, k), pick.st.Held[k] < minOf(pick, k)
				switch {
				case cb != pb:
					if cb {
						pick = c
					}
				case c.st.Weight != pick.st.Weight:
					if c.st.Weight > pick.st.Weight {
						pick = c
					}
				case !c.j.sub.Equal(pick.j.sub):
					if c.j.sub.Before(pick.j.sub) {
						pick = c
					}
				case c.j.id < pick.j.id:
					pick = c
				}
			}
			below := pick.st.Held[k] < minOf(pick, k)
			pick.avail[k]--
			pick.st.Held[k]++
			used[best][k]++
			if n := len(out); n > start && out[n-1].Job == pick.j.id && out[n-1].BelowMinimum == below {
				out[n-1].Count++
				continue
			}
			out = append(out, dbs.Pick{Job: pick.j.id, Phase: schedkit.Phase(k), Count: 1, Queue: pick.st.Queue, BelowMinimum: below})
		}
	}
	return out
}

// exampleJobs are the package Example's three jobs: 20 maps and 2
// reduces each, one per queue, 30 s tasks (Config.DefaultTaskTime), on 10
// map and 5 reduce slots.
func exampleJobs() (*hCluster, []*hJob) {
	return newCluster(5, 2, 1), []*hJob{
		mrJob("urgent", 1, 20, 2, 200*sec, 0),
		mrJob("both", 0.5, 20, 2, 400*sec, 40),
		mrJob("thrifty", 0, 20, 2, 900*sec, 25),
	}
}

// TestQueueWorked checks Queue on the package Example's jobs: urgent
// (High, minimum 4 maps), both (Mid, 2) and thrifty (Low, 1), shares
// 50/30/20%, nothing held. Slot by slot, the queue using the least of its
// share gets the next map slot (used/share; ties to the higher queue):
//
//	slot  H    M     L    → queue  job (below minimum?)
//	 1    0    0     0    → high   urgent (0<4)
//	 2    2    0     0    → mid    both (0<2)
//	 3    2    3.33  0    → low    thrifty (0<1)
//	 4    2    3.33  5    → high   urgent (1<4)
//	 5    4    3.33  5    → mid    both (1<2)
//	 6    4    6.67  5    → high   urgent (2<4)
//	 7    6    6.67  5    → low    thrifty (1=1: no)
//	 8    6    6.67  10   → high   urgent (3<4)
//	 9    8    6.67  10   → mid    both (2=2: no)
//	10    8    10    10   → high   urgent (4=4: no)
//	11    10   10    10   → high   urgent (tie: the higher queue)
//
// Slots 10 and 11 merge into one pick of 2. Every job's 20 maps are
// listed; no reduce (none is ready).
func TestQueueWorked(t *testing.T) {
	c, jobs := exampleJobs()
	s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 30 * sec})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := s.Submit(t0, j); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Queue(t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, b, th := schedkit.JobID("urgent"), schedkit.JobID("both"), schedkit.JobID("thrifty")
	want := []dbs.Pick{
		{Job: u, Count: 1, Queue: dbs.High, BelowMinimum: true},
		{Job: b, Count: 1, Queue: dbs.Mid, BelowMinimum: true},
		{Job: th, Count: 1, Queue: dbs.Low, BelowMinimum: true},
		{Job: u, Count: 1, Queue: dbs.High, BelowMinimum: true},
		{Job: b, Count: 1, Queue: dbs.Mid, BelowMinimum: true},
		{Job: u, Count: 1, Queue: dbs.High, BelowMinimum: true},
		{Job: th, Count: 1, Queue: dbs.Low},
		{Job: u, Count: 1, Queue: dbs.High, BelowMinimum: true},
		{Job: b, Count: 1, Queue: dbs.Mid},
		{Job: u, Count: 2, Queue: dbs.High},
	}
	if len(got) < len(want) {
		t.Fatalf("Queue = %v, want at least %d picks", got, len(want))
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("Queue's first picks (-want +got):\n%s", diff)
	}
	total := map[schedkit.JobID]int{}
	for _, p := range got {
		if p.Phase != schedkit.PhaseMap {
			t.Errorf("reduce pick %v with no reduce ready", p)
		}
		total[p.Job] += p.Count
	}
	if diff := cmp.Diff(map[schedkit.JobID]int{u: 20, b: 20, th: 20}, total); diff != "" {
		t.Errorf("slots per job (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(naiveQueue(t, s, jobs), got); diff != "" {
		t.Errorf("Queue differs from the naive reference (-naive +Queue):\n%s", diff)
	}
	// Queue changed nothing: a heartbeat with 4 free map slots gives the
	// first four slots (the package Example's output).
	n := &hNode{id: "n", capv: resource.Vector{4, 1}, free: resource.Vector{4, 1}}
	c.nodes = append(c.nodes, n)
	ds, err := s.Heartbeat(t0, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expandPicks(got, 0)[:4], expandAssigns(ds, 0)); diff != "" {
		t.Errorf("heartbeat after Queue (-Queue +heartbeat):\n%s", diff)
	}
	// After the heartbeat, Queue lists the rest.
	rest, err := s.Queue(t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expandPicks(got, 0)[4:], expandPicks(rest, 0)); diff != "" {
		t.Errorf("Queue after the heartbeat is not the rest (-rest of first +second):\n%s", diff)
	}
}

func TestQueueErrors(t *testing.T) {
	c, jobs := exampleJobs()
	s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 30 * sec})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Queue(t0, nil); err != nil || len(got) != 0 {
		t.Fatalf("empty scheduler: %v, %v", got, err)
	}
	if err := s.Submit(t0.Add(sec), jobs[0]); err != nil {
		t.Fatal(err)
	}
	dst := []dbs.Pick{{Job: "keep", Count: 1}}
	var de *dbs.Error
	got, err := s.Queue(t0.Add(-1<<60-sec), dst)
	if !errors.Is(err, dbs.ErrTimeRange) || !errors.As(err, &de) || de.Op != "Queue" || len(got) != 1 {
		t.Errorf("time out of range: %v, %v", got, err)
	}
	// A read-only call: a now before an earlier one is answered.
	if _, err := s.Queue(t0, nil); err != nil {
		t.Errorf("Queue before the latest now: %v", err)
	}
	// Queue does not advance the clock: a Submit at an earlier now than
	// Queue's still works.
	if _, err := s.Queue(t0.Add(10*sec), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(t0.Add(2*sec), jobs[1]); err != nil {
		t.Errorf("Submit after a later Queue: %v", err)
	}
	c.capv[0] = math.NaN()
	got, err = s.Queue(t0.Add(10*sec), dst)
	if !errors.Is(err, dbs.ErrInvalidNode) || !errors.As(err, &de) || de.Op != "Queue" || len(got) != 1 {
		t.Errorf("NaN capacity: %v, %v", got, err)
	}
	c.capv[0] = 10
	if _, err := s.Queue(t0.Add(10*sec), nil); err != nil {
		t.Errorf("after the capacity is repaired: %v", err)
	}
}

// queueConfigs are the configurations the property test runs: the paper's
// and every option that changes how slots are handed out.
var queueConfigs = map[string]dbs.Config{
	"paper":     {},
	"no-min":    {Ablations: dbs.Ablations{NoMinimumSlots: true}},
	"min-first": {MinimumFirst: true},
	"early":     {Ablations: dbs.Ablations{EarlyReduces: true}},
	"priority":  {QueuePriority: true},
	"prio+min":  {QueuePriority: true, MinimumFirst: true, Ablations: dbs.Ablations{EarlyReduces: true}},
	"prior+net": {DefaultTaskTime: 5 * time.Second, TransferRate: 1 << 18},
	"zero-low": {Queues: [3]dbs.QueueConfig{
		dbs.Low: {Share: 0, Price: 0.01}, dbs.Mid: {Share: 0.4, Price: 0.02}, dbs.High: {Share: 0.6, Price: 0.04}}},
	"zero-two": {MinimumFirst: true, Queues: [3]dbs.QueueConfig{
		dbs.Low: {Share: 0, Price: 0.01}, dbs.Mid: {Share: 0, Price: 0.02}, dbs.High: {Share: 0.7, Price: 0.04}}},
	"odd-shares": {Queues: [3]dbs.QueueConfig{
		dbs.Low: {Share: 0.13, Price: 0.01}, dbs.Mid: {Share: 0.29, Price: 0.02}, dbs.High: {Share: 0.41, Price: 0.04}}},
}

// TestQueueIsHeartbeatPrefix is the property Queue promises, on the
// random states of the property test's world (jobs arriving, running,
// ticking, moving between queues): at random instants, for each slot
// kind, the assignments of the heartbeats at that instant (on the
// world's nodes with their free slots, in random order, each applied
// and Updated as a host does) are a prefix of Queue's picks; Queue after
// them is the rest; and at the end one heartbeat with unlimited free
// slots assigns exactly Queue's picks.
func TestQueueIsHeartbeatPrefix(t *testing.T) {
	seeds := uint64(6)
	if raceEnabled {
		seeds = 2
	}
	checks := 0
	for name, cfg := range queueConfigs {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				w := newWorld(t, seed, cfg)
				for step := range 120 {
					if w.rng.IntN(3) == 0 {
						w.submit()
					}
					w.advance(time.Duration(100+w.rng.IntN(1500)) * time.Millisecond)
					w.tick()
					before, err := w.s.Queue(w.now, nil)
					if err != nil {
						t.Fatal(err)
					}
					var got [2][]slotKey
					for _, i := range w.rng.Perm(len(w.c.nodes)) {
						if w.rng.IntN(3) == 0 {
							continue
						}
						ds := w.heartbeat(w.c.nodes[i])
						for k := range 2 {
							got[k] = append(got[k], expandAssigns(ds, k)...)
						}
					}
					after, err := w.s.Queue(w.now, nil)
					if err != nil {
						t.Fatal(err)
					}
					for k := range 2 {
						want := expandPicks(before, k)
						if len(got[k]) > len(want) || !slices.Equal(got[k], want[:len(got[k])]) {
							t.Fatalf("step %d kind %d: heartbeats assigned %v, not a prefix of Queue %v", step, k, got[k], want)
						}
						if rest := expandPicks(after, k); !slices.Equal(rest, want[len(got[k]):]) {
							t.Fatalf("step %d kind %d: Queue after the heartbeats %v, not the rest of %v after %v", step, k, rest, want, got[k])
						}
					}
					checks++
				}
				picks, err := w.s.Queue(w.now, nil)
				if err != nil {
					t.Fatal(err)
				}
				big := &hNode{id: "unlimited", capv: resource.Vector{1e6, 1e6}, free: resource.Vector{1e6, 1e6}}
				w.c.nodes = append(w.c.nodes, big)
				ds, err := w.s.Heartbeat(w.now, big, nil)
				w.c.nodes = w.c.nodes[:len(w.c.nodes)-1]
				if err != nil {
					t.Fatal(err)
				}
				for k := range 2 {
					if want, got := expandPicks(picks, k), expandAssigns(ds, k); !slices.Equal(want, got) {
						t.Fatalf("kind %d: unlimited heartbeat %v, Queue %v", k, got, want)
					}
				}
				// Picks carry the assignments' queue and flag.
				var flat []dbs.Pick
				for _, d := range ds {
					flat = append(flat, dbs.Pick{Job: d.Job, Phase: d.Phase, Count: d.Count, Queue: d.To, BelowMinimum: d.BelowMinimum})
				}
				if diff := cmp.Diff(flat, picks); diff != "" {
					t.Fatalf("Queue and the unlimited heartbeat (-heartbeat +Queue):\n%s", diff)
				}
			})
		}
	}
	if checks == 0 {
		t.Fatal("no instant checked")
	}
}

// queueState returns a scheduler with n queued jobs in random states
// (ready maps, some running, reduces ready for some of those whose maps
// are done), after a weight update.
func queueState(tb testing.TB, n int, cfg dbs.Config) (*dbs.Scheduler, []*hJob, time.Time) {
	rng := rand.New(rand.NewPCG(uint64(n), 5))
	nodes := max(n/10, 1)
	c := newCluster(nodes, 2, 1)
	cfg.Cluster, cfg.DefaultTaskTime = c, 20*sec
	s, err := dbs.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	now := t0.Add(100 * sec)
	var jobs []*hJob
	for i := range n {
		phi := []float64{0, 0.5, 1}[rng.IntN(3)]
		maps := 1 + rng.IntN(4)
		j := mrJob(fmt.Sprintf("j%05d", i), phi, maps, 1, time.Duration(200+rng.IntN(2000))*sec, 1+rng.Float64()*20)
		j.sub = t0.Add(time.Duration(rng.IntN(100)) * sec)
		j.dl = j.sub.Add(time.Duration(200+rng.IntN(2000)) * sec)
		if r := rng.IntN(4); r == 0 { // maps done, reduce ready
			j.ph[0] = schedkit.PhaseProgress{Total: maps, Finished: maps, FinishedDurationSum: time.Duration(maps) * 20 * sec}
			j.ph[1].Ready = 1
		} else if r == 1 { // one map running
			j.ph[0].Ready--
			j.ph[0].Running = 1
		}
		jobs = append(jobs, j)
	}
	slices.SortStableFunc(jobs, func(a, b *hJob) int { return a.sub.Compare(b.sub) })
	for _, j := range jobs {
		if err := s.Submit(j.sub, j); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.Tick(now, nil); err != nil {
		tb.Fatal(err)
	}
	return s, jobs, now
}

// TestQueueAgainstNaive compares Queue with the slot-by-slot reference on
// a few hundred jobs in random states.
func TestQueueAgainstNaive(t *testing.T) {
	for _, n := range []int{1, 7, 300} {
		s, jobs, now := queueState(t, n, dbs.Config{})
		got, err := s.Queue(now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(naiveQueue(t, s, jobs), got); diff != "" {
			t.Errorf("jobs=%d: Queue differs from the naive reference (-naive +Queue):\n%s", n, diff)
		}
	}
}

func TestQueueZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s, _, now := queueState(t, 500, dbs.Config{})
	dst, err := s.Queue(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(20, func() { dst, _ = s.Queue(now, dst[:0]) }); allocs != 0 {
		t.Errorf("Queue allocates %v times per call in steady state", allocs)
	}
}

// BenchmarkQueue measures Queue against the naive slot-by-slot reference
// (per slot: a scan for the queue, a scan of its jobs).
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		s, jobs, now := queueState(b, n, dbs.Config{})
		dst, err := s.Queue(now, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = s.Queue(now, dst[:0])
			}
		})
		b.Run(fmt.Sprintf("naive/jobs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				naiveQueue(b, s, jobs)
			}
		})
	}
}

// The package Example's three jobs (one per queue, 20 maps each, nothing
// running): the order in which heartbeats at t0 would hand out their map
// slots, for a host that places one task at a time. Queues interleave by
// share, each job first up to its minimum (below minimum), then the rest.
func ExampleScheduler_Queue() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	sched, _ := dbs.New(dbs.Config{Cluster: &exCluster{space: space}, DefaultTaskTime: 30 * time.Second})
	t0 := time.Date(2014, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, j := range []*exJob{
		{id: "urgent", phi: 1, due: t0.Add(200 * time.Second)},
		{id: "both", phi: 0.5, due: t0.Add(400 * time.Second), budget: 40},
		{id: "thrifty", phi: 0, due: t0.Add(900 * time.Second), budget: 25},
	} {
		j.submit = t0
		j.maps, j.red = schedkit.PhaseProgress{Total: 20, Ready: 20}, schedkit.PhaseProgress{Total: 2}
		_ = sched.Submit(t0, j)
	}
	picks, _ := sched.Queue(t0, nil)
	for _, p := range picks[:8] {
		fmt.Printf("%s %s×%d (%s, below minimum %v)\n", p.Job, p.Phase, p.Count, p.Queue, p.BelowMinimum)
	}
	fmt.Println(len(picks), "picks")
	// Output:
	// urgent map×1 (high, below minimum true)
	// both map×1 (mid, below minimum true)
	// thrifty map×1 (low, below minimum true)
	// urgent map×1 (high, below minimum true)
	// both map×1 (mid, below minimum true)
	// urgent map×1 (high, below minimum true)
	// thrifty map×1 (low, below minimum false)
	// urgent map×1 (high, below minimum true)
	// 49 picks
}

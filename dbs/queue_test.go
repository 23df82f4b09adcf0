package dbs_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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
// Status and the host's counters. Per slot, the queue: with minFirst
// (Config.MinimumFirst) the highest queue with a job below its minimum,
// if any; then with PrioritySharing (capacity false) the highest below
// its floor, else the highest with a ready task; with CapacitySharing
// (capacity true) the queue least used against its share (ties to the
// higher queue). In the queue: a job below its minimum (one without a
// task time first), else any; then a job that can reach a minimum
// before one that cannot, then weight, submission, ID. No ablations.
func naiveQueue(t testing.TB, s *dbs.Scheduler, cl *hCluster, jobs []*hJob, capacity, minFirst bool) []dbs.Pick {
	type cand struct {
		j     *hJob
		st    dbs.JobStatus
		avail [2]int
	}
	var cs []*cand
	var used [3][2]int
	for _, j := range jobs {
		st, err := s.Status(j.Key)
		if err != nil {
			t.Fatal(err)
		}
		c := &cand{j: j, st: st}
		for p := range j.Phases() {
			c.avail[p] = j.Counters[p].Ready
		}
		if j.Counters[0].Finished < j.Counters[0].Total {
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
	below := func(c *cand, k int) bool { return c.st.Held[k] < minOf(c, k) }
	capk := cl.Cap
	var out []dbs.Pick
	for k := range 2 {
		start := len(out)
		for {
			best := -1
			has := func(q int, f func(*cand) bool) bool {
				for _, c := range cs {
					if int(c.st.Queue) == q && c.avail[k] > 0 && f(c) {
						return true
					}
				}
				return false
			}
			any := func(*cand) bool { return true }
			for q := 2; q >= 0 && best < 0 && minFirst; q-- {
				if has(q, func(c *cand) bool { return below(c, k) }) {
					best = q
				}
			}
			if capacity && best < 0 {
				for q := 2; q >= 0; q-- {
					if has(q, any) && (best < 0 || float64(used[q][k])/share(q) < float64(used[best][k])/share(best)) {
						best = q
					}
				}
			} else {
				for q := 2; q >= 0 && best < 0; q-- {
					if has(q, any) && float64(used[q][k]) < math.Round(share(q)*1e6)/1e6*capk[k] {
						best = q
					}
				}
				for q := 2; q >= 0 && best < 0; q-- {
					if has(q, any) {
						best = q
					}
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
				if oracleAhead(oracleCand{c.st, c.j.SubmittedAt, below(c, k)}, oracleCand{pick.st, pick.j.SubmittedAt, below(pick, k)}, true, true) {
					pick = c
				}
			}
			b := below(pick, k)
			pick.avail[k]--
			pick.st.Held[k]++
			used[best][k]++
			if n := len(out); n > start && out[n-1].Job == pick.j.Key && out[n-1].BelowMinimum == b {
				out[n-1].Count++
				continue
			}
			out = append(out, dbs.Pick{Job: pick.j.Key, Phase: schedkit.Phase(k), Count: 1, Queue: pick.st.Queue, BelowMinimum: b})
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
// (High, minimum 4 maps), both (Mid, 2) and thrifty (Low, 1), nothing
// held, 10 map slots. With PrioritySharing (no floors) the queues go in
// turn, each job's minimum first: urgent 4 then its other 16, both 2
// then 18, thrifty 1 then 19. With MinimumFirst the minimums go first,
// High to Low — urgent 4, both 2, thrifty 1 — then every remaining map
// by queue.
func TestQueueWorked(t *testing.T) {
	u, b, th := schedkit.JobID("urgent"), schedkit.JobID("both"), schedkit.JobID("thrifty")
	checkQueueWorked(t, dbs.Config{}, []dbs.Pick{
		{Job: u, Count: 4, Queue: dbs.High, BelowMinimum: true},
		{Job: u, Count: 16, Queue: dbs.High},
		{Job: b, Count: 2, Queue: dbs.Mid, BelowMinimum: true},
		{Job: b, Count: 18, Queue: dbs.Mid},
		{Job: th, Count: 1, Queue: dbs.Low, BelowMinimum: true},
		{Job: th, Count: 19, Queue: dbs.Low},
	})
	checkQueueWorked(t, dbs.Config{MinimumFirst: true}, []dbs.Pick{
		{Job: u, Count: 4, Queue: dbs.High, BelowMinimum: true},
		{Job: b, Count: 2, Queue: dbs.Mid, BelowMinimum: true},
		{Job: th, Count: 1, Queue: dbs.Low, BelowMinimum: true},
		{Job: u, Count: 16, Queue: dbs.High},
		{Job: b, Count: 18, Queue: dbs.Mid},
		{Job: th, Count: 19, Queue: dbs.Low},
	})
}

// TestQueueWorkedCapacity is TestQueueWorked with CapacitySharing, shares
// 50/30/20%. Slot by slot, the queue using the least of its share gets
// the next map slot (used/share; ties to the higher queue):
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
// Slots 10 and 11 merge into one pick of 2.
func TestQueueWorkedCapacity(t *testing.T) {
	u, b, th := schedkit.JobID("urgent"), schedkit.JobID("both"), schedkit.JobID("thrifty")
	checkQueueWorked(t, dbs.Config{Sharing: dbs.CapacitySharing}, []dbs.Pick{
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
	})
}

// checkQueueWorked submits the Example's jobs under cfg (30 s tasks:
// Config.DefaultTaskTime) and checks Queue's first picks against want,
// every job's 20 maps listed and no reduce (none is ready), the naive
// reference, and that Queue changed nothing: a heartbeat with 4 free map
// slots gives the first four slots, after which Queue lists the rest.
func checkQueueWorked(t *testing.T, cfg dbs.Config, want []dbs.Pick) {
	t.Helper()
	c, jobs := exampleJobs()
	cfg.Cluster, cfg.DefaultTaskTime = c, 30*sec
	s, err := dbs.New(cfg)
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
	if diff := cmp.Diff(map[schedkit.JobID]int{"urgent": 20, "both": 20, "thrifty": 20}, total); diff != "" {
		t.Errorf("slots per job (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(naiveQueue(t, s, c, jobs, cfg.Sharing == dbs.CapacitySharing, cfg.MinimumFirst), got); diff != "" {
		t.Errorf("Queue differs from the naive reference (-naive +Queue):\n%s", diff)
	}
	n := c.AddNode("n", "rack0", resource.Vector{4, 1})
	ds, err := s.Heartbeat(t0, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expandPicks(got, 0)[:4], expandAssigns(ds, 0)); diff != "" {
		t.Errorf("heartbeat after Queue (-Queue +heartbeat):\n%s", diff)
	}
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
	c.Cap[0] = math.NaN()
	got, err = s.Queue(t0.Add(10*sec), dst)
	if !errors.Is(err, dbs.ErrInvalidNode) || !errors.As(err, &de) || de.Op != "Queue" || len(got) != 1 {
		t.Errorf("NaN capacity: %v, %v", got, err)
	}
	c.Cap[0] = 10
	if _, err := s.Queue(t0.Add(10*sec), nil); err != nil {
		t.Errorf("after the capacity is repaired: %v", err)
	}
}

// queueVariants are the values the prefix property gives dbs.Config's
// fields that are not switches, in turn: queue shares (a zero share
// included), a default task time, a transfer rate, hold-downs, an
// interval. MapKind and ReduceKind name the test cluster's kinds: left
// at their defaults.
var queueVariants = struct {
	queues   [][3]dbs.QueueConfig
	prior    []time.Duration
	rate     []float64
	holdDown []time.Duration
	interval []time.Duration
}{
	queues: [][3]dbs.QueueConfig{
		{},
		{dbs.Low: {Share: 0, Price: 0.01}, dbs.Mid: {Share: 0.4, Price: 0.02}, dbs.High: {Share: 0.6, Price: 0.04}},
		{dbs.Low: {Share: 0, Price: 0.01}, dbs.Mid: {Share: 0, Price: 0.02}, dbs.High: {Share: 0.7, Price: 0.04}},
		{dbs.Low: {Share: 0.13, Price: 0.01}, dbs.Mid: {Share: 0.29, Price: 0.02}, dbs.High: {Share: 0.41, Price: 0.04}},
	},
	prior:    []time.Duration{0, 5 * time.Second},
	rate:     []float64{0, 1 << 18},
	holdDown: []time.Duration{0, -1, 2 * time.Second},
	interval: []time.Duration{0, 300 * time.Millisecond},
}

// orderSwitches are dbs.Config's switches that change how Queue and
// Heartbeat order slots: everyDBSOption runs every combination of them,
// with each Sharing.
var orderSwitches = []string{"MinimumFirst", "NoMinimumSlots", "EarlyReduces", "LostByWeight", "UnknownByWeight"}

// everyDBSOption returns every combination of the order switches
// (orderSwitches) with each Sharing, dbs.Config's other switches (its bool fields and Ablations',
// found by reflection, so a switch added later is enumerated too) drawn
// at random per combination, and the other fields taking
// queueVariants's values in turn. A field of any other kind must be
// handled here, or the test fails.
func everyDBSOption(t *testing.T) []dbs.Config {
	t.Helper()
	type flag struct {
		path  []int
		order bool
	}
	var flags []flag
	var walk func(typ reflect.Type, path []int)
	walk = func(typ reflect.Type, path []int) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			p := append(slices.Clone(path), i)
			switch {
			case f.Type.Kind() == reflect.Bool:
				flags = append(flags, flag{p, slices.Contains(orderSwitches, f.Name)})
			case f.Type == reflect.TypeFor[dbs.Ablations]():
				walk(f.Type, p)
			case slices.Contains([]string{"Cluster", "MapKind", "ReduceKind", "Queues", "DefaultTaskTime", "TransferRate", "HoldDown", "Interval", "Sharing"}, f.Name):
			default:
				t.Fatalf("dbs.Config field %s (%v): an option this test does not enumerate", f.Name, f.Type)
			}
		}
	}
	walk(reflect.TypeFor[dbs.Config](), nil)
	var order, other []flag
	for _, f := range flags {
		if f.order {
			order = append(order, f)
		} else {
			other = append(other, f)
		}
	}
	if len(order) != len(orderSwitches) {
		t.Fatalf("%d of the order switches %v found", len(order), orderSwitches)
	}
	v := queueVariants
	rng := rand.New(rand.NewPCG(1, 2))
	var out []dbs.Config
	for _, sharing := range []dbs.Sharing{dbs.PrioritySharing, dbs.CapacitySharing} {
		for mask := range 1 << len(order) {
			i := len(out)
			cfg := dbs.Config{
				Sharing:         sharing,
				Queues:          v.queues[i%len(v.queues)],
				DefaultTaskTime: v.prior[i%len(v.prior)],
				TransferRate:    v.rate[i/2%len(v.rate)],
				HoldDown:        v.holdDown[i%len(v.holdDown)],
				Interval:        v.interval[i/4%len(v.interval)],
			}
			rv := reflect.ValueOf(&cfg).Elem()
			for b, f := range order {
				rv.FieldByIndex(f.path).SetBool(mask&(1<<b) != 0)
			}
			for _, f := range other {
				rv.FieldByIndex(f.path).SetBool(rng.IntN(2) == 0)
			}
			out = append(out, cfg)
		}
	}
	return out
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
	seeds, steps := uint64(2), 120
	if testing.Short() || raceEnabled {
		seeds, steps = 1, 60
	}
	checks := 0
	for ci, cfg := range everyDBSOption(t) {
		for seed := range seeds {
			t.Run(fmt.Sprintf("config=%d/seed=%d", ci, seed), func(t *testing.T) {
				t.Logf("%+v", cfg)
				w := newWorld(t, seed+uint64(ci)<<8, cfg)
				for step := range steps {
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
					for _, i := range w.rng.Perm(len(w.c.NodeList)) {
						if w.rng.IntN(3) == 0 {
							continue
						}
						ds := w.heartbeat(w.c.NodeList[i])
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
				// A member with unlimited free slots; the cluster's
				// capacity stays the real nodes' (Queue read it).
				capv := w.c.Cap
				big := w.c.AddNode("unlimited", "rack0", resource.Vector{1e6, 1e6})
				w.c.Cap = capv
				ds, err := w.s.Heartbeat(w.now, big, nil)
				w.c.RemoveNode("unlimited")
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
func queueState(tb testing.TB, n int, cfg dbs.Config) (*dbs.Scheduler, *hCluster, []*hJob, time.Time) {
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
		j.SubmittedAt = t0.Add(time.Duration(rng.IntN(100)) * sec)
		j.DeadlineAt = j.SubmittedAt.Add(time.Duration(200+rng.IntN(2000)) * sec)
		if r := rng.IntN(4); r == 0 { // maps done, reduce ready
			j.Counters[0] = schedkit.PhaseProgress{Total: maps, Finished: maps, FinishedDurationSum: time.Duration(maps) * 20 * sec}
			j.Counters[1].Ready = 1
		} else if r == 1 { // one map running
			j.Counters[0].Ready--
			j.Counters[0].Running = 1
		}
		jobs = append(jobs, j)
	}
	slices.SortStableFunc(jobs, func(a, b *hJob) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	for _, j := range jobs {
		if err := s.Submit(j.SubmittedAt, j); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.Tick(now, nil); err != nil {
		tb.Fatal(err)
	}
	return s, c, jobs, now
}

// TestQueueAgainstNaive compares Queue with the slot-by-slot reference on
// a few hundred jobs in random states, with each sharing (floors given
// to PrioritySharing) and with and without MinimumFirst.
func TestQueueAgainstNaive(t *testing.T) {
	for _, capacity := range []bool{false, true} {
		for _, minFirst := range []bool{false, true} {
			cfg := dbs.Config{Queues: dbs.DefaultCapacityQueues, MinimumFirst: minFirst}
			if capacity {
				cfg.Sharing = dbs.CapacitySharing
			}
			for _, n := range []int{1, 7, 300} {
				s, c, jobs, now := queueState(t, n, cfg)
				got, err := s.Queue(now, nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(naiveQueue(t, s, c, jobs, capacity, minFirst), got); diff != "" {
					t.Errorf("%v, MinimumFirst %v, jobs=%d: Queue differs from the naive reference (-naive +Queue):\n%s", cfg.Sharing, minFirst, n, diff)
				}
			}
		}
	}
}

func TestQueueZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s, _, _, now := queueState(t, 500, dbs.Config{})
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
		s, c, jobs, now := queueState(b, n, dbs.Config{})
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
				naiveQueue(b, s, c, jobs, false, false)
			}
		})
	}
}

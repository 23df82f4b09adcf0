package deadlinebudget

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// recordFixture is TestTickPromotes's job after its promotion, with the
// record the plugin makes of it.
func recordFixture(t testing.TB) (*fixture, *job, string) {
	t.Helper()
	fx := newFixture(t, `{"defaultTaskTime":"30s","persistState":true}`)
	fx.add(t, node("n1", 4, 2), node("n2", 6, 3),
		kjob("both", podjob.AnnotationPhi, "0.5", podjob.AnnotationBudget, "40", podjob.AnnotationRelativeDeadline, "400s", podjob.AnnotationTasks, "map=20,reduce=2"),
		pod("both-m00", "both", 0, runningSince(now)))
	for i := 1; i < 20; i++ {
		fx.add(t, pod(fmt.Sprintf("both-m%02d", i), "both", i))
	}
	for _, at := range []time.Time{now, now.Add(500 * time.Millisecond)} {
		fx.clk.SetTime(at)
		fx.pl.Tick(context.Background())
	}
	j := fx.pl.led.byID["Job/ns/both"]
	st, _ := fx.pl.led.sched.Save("Job/ns/both")
	if st.Queue != dbs.High || len(j.prices) != 2 {
		t.Fatalf("saved %+v, prices %v: no promotion to record", st, j.prices)
	}
	v, err := recordOf(j, st, fx.pl.led.sched.LastUpdate()).encode()
	if err != nil {
		t.Fatal(err)
	}
	return fx, j, v
}

// TestRecordRoundTrip: a record decodes to the state it was made of; a
// record of another Job, other terms or phases, another version, or
// garbled is refused with its reason.
func TestRecordRoundTrip(t *testing.T) {
	fx, j, v := recordFixture(t)
	at := now.Add(time.Second)
	r, st, err := decodeRecord(v, j.cur, at)
	want, _ := fx.pl.led.sched.Save("Job/ns/both")
	if err != nil || st != want || len(r.Prices) != 2 || !r.LastUpdate.Equal(now.Add(500*time.Millisecond)) {
		t.Fatalf("decoded %+v, %+v, %v; want %+v", r, st, err, want)
	}
	other := *j.cur
	other.Object = j.cur.Object.DeepCopy()
	other.Object.UID = "another"
	for _, tc := range []struct {
		name, text string
		pj         *podjob.Job
		at         time.Time
		want       string
	}{
		{"garbled", v[:len(v)/2], j.cur, at, "unexpected end of JSON"},
		{"version", strings.Replace(v, `"version":1`, `"version":2`, 1), j.cur, at, "version 2"},
		{"uid", v, &other, at, "not the Job's"},
		{"phases", strings.Replace(v, `"phases":2`, `"phases":1`, 1), j.cur, at, "phases"},
		{"terms", strings.Replace(v, `"0.5"`, `"1"`, 1), j.cur, at, "terms"},
		{"queue", strings.Replace(v, `"queue":"high"`, `"queue":"top"`, 1), j.cur, at, `queue "top"`},
		{"future", v, j.cur, now, "after now"},
		{"prices", strings.Replace(v, `"price":0.05`, `"price":-1`, 1), j.cur, at, "price history"},
		{"foreign", `{"kind":"ConfigMap"}`, j.cur, at, "version 0"},
	} {
		if _, _, err := decodeRecord(tc.text, tc.pj, tc.at); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestRestartResumes: a plugin started on a cluster whose Job carries
// the record resumes the job as it was (queue, marks, last move, price
// history, so the same cost); one whose record is refused starts it
// afresh in its φ's queue and logs why.
func TestRestartResumes(t *testing.T) {
	fx, j, v := recordFixture(t)
	want, _ := fx.pl.led.sched.Save("Job/ns/both")
	later := now.Add(700 * time.Millisecond)
	fx.pl.led.costNow = later
	wantCost := j.CostSoFar()
	for _, tc := range []struct {
		record string
		queue  dbs.Queue
	}{{v, dbs.High}, {strings.Replace(v, `"version":1`, `"version":9`, 1), dbs.Mid}} {
		again := newFixture(t, `{"defaultTaskTime":"30s","persistState":true}`)
		again.cache = fx.cache
		again.pl.host.Lis = fx.pl.host.Lis
		obj := j.cur.Object.DeepCopy()
		obj.Annotations[podjob.AnnotationDBSState] = tc.record
		fx.cache.Update(t, obj)
		again.clk.SetTime(later)
		again.pl.Tick(context.Background())
		st, cost, err := again.pl.Saved("Job/ns/both")
		if err != nil || st.Queue != tc.queue {
			t.Errorf("record %.40s…: resumed %+v, %v; want queue %v", tc.record, st, err, tc.queue)
		}
		if tc.queue == dbs.High && (st != want || cost != wantCost) {
			t.Errorf("resumed %+v at cost %v; want %+v at %v", st, cost, want, wantCost)
		}
	}
}

// FuzzDecodeRecord: whatever a record's text, decoding refuses it or
// returns a state dbs accepts; never a panic.
func FuzzDecodeRecord(f *testing.F) {
	_, j, v := recordFixture(f)
	f.Add(v)
	f.Add(`{"version":1,"queue":"mid","prices":[{"price":0.03}]}`)
	f.Add(`{"version":1,"lastMove":"sideways"}`)
	f.Fuzz(func(t *testing.T, s string) {
		at := now.Add(time.Hour)
		_, st, err := decodeRecord(s, j.cur, at)
		if err != nil {
			return
		}
		s2, _ := dbs.New(dbs.Config{Cluster: &liveCluster{}})
		_ = s2.Resume(at, j, st) // a state decoded is one Resume checks, not a panic
	})
}

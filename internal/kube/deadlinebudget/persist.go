package deadlinebudget

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// What survives a restart (persistState): each job's record, the
// annotation podjob.AnnotationDBSState on its Job (on every unfinished
// pod of a pod group), written whenever what dbs keeps of the job and
// the cluster does not changes — its queue after model 3's moves, its
// marks, its last move (the hold-down) and its price history — and read
// back when a plugin first sees the job (dbs.Scheduler.Resume). The
// weight and minimum slots are not kept: the first weight update after
// a restart recomputes them. The time of the last weight update rides
// along, so the restarted plugin's updates keep their times
// (dbs.Scheduler.ResumeUpdates).

// recordVersion is the version of the record's format; a record of
// another version is refused.
const recordVersion = 1

// record is a job's persisted state (JSON).
type record struct {
	Version int `json:"version"`
	// UID, Phases and Terms identify what the record is of: a Job
	// re-created under its name, a job whose first reduce pod or terms
	// came while no plugin ran, starts afresh (as a running plugin
	// resubmits it).
	UID    types.UID `json:"uid,omitempty"`
	Phases int       `json:"phases"`
	Terms  []string  `json:"terms"`

	Queue         string    `json:"queue"`
	MarkedShort   bool      `json:"markedShort,omitempty"`
	MarkedSurplus bool      `json:"markedSurplus,omitempty"`
	LastMove      string    `json:"lastMove,omitempty"` // promote, demote
	MovedAt       time.Time `json:"movedAt,omitzero"`
	// LastUpdate is the scheduler's last weight update at the write.
	LastUpdate time.Time `json:"lastUpdate,omitzero"`
	// Prices is the price history: from (zero: since ever), price.
	Prices []recordPrice `json:"prices"`
}

type recordPrice struct {
	From  time.Time `json:"from,omitzero"`
	Price float64   `json:"price"`
}

// maxRecord bounds a record's size (bytes): a record that would be
// larger (a job moved some 5,000 times) is not written, and the last
// one written stays.
const maxRecord = 256 << 10 / 2

var moveNames = map[dbs.Action]string{dbs.Promote: "promote", dbs.Demote: "demote"}

// recordOf is the record of j with its dbs state st at the scheduler's
// last update last.
func recordOf(j *job, st dbs.Saved, last time.Time) record {
	r := record{Version: recordVersion, UID: j.cur.UID(), Phases: j.cur.Phases(), Terms: j.cur.Terms(),
		Queue: st.Queue.String(), MarkedShort: st.MarkedShort, MarkedSurplus: st.MarkedSurplus,
		LastMove: moveNames[st.LastMove], MovedAt: st.MovedAt, LastUpdate: last}
	r.Prices = make([]recordPrice, len(j.prices))
	for i, p := range j.prices {
		r.Prices[i] = recordPrice{From: p.from, Price: p.price}
	}
	return r
}

// encode returns r's annotation value.
func (r record) encode() (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	if len(b) > maxRecord {
		return "", fmt.Errorf("record of %d bytes, more than %d", len(b), maxRecord)
	}
	return string(b), nil
}

// decodeRecord reads a record and checks it is one this plugin wrote
// for pj at or before now; the error says why not.
func decodeRecord(s string, pj *podjob.Job, now time.Time) (record, dbs.Saved, error) {
	var r record
	if len(s) > maxRecord {
		return r, dbs.Saved{}, fmt.Errorf("%d bytes, more than %d", len(s), maxRecord)
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, dbs.Saved{}, err
	}
	var st dbs.Saved
	switch {
	case r.Version != recordVersion:
		return r, st, fmt.Errorf("version %d, not %d", r.Version, recordVersion)
	case r.UID != pj.UID():
		return r, st, fmt.Errorf("of UID %q, not the Job's %q", r.UID, pj.UID())
	case r.Phases != pj.Phases():
		return r, st, fmt.Errorf("of %d phases, the job has %d", r.Phases, pj.Phases())
	case !slices.Equal(r.Terms, pj.Terms()):
		return r, st, fmt.Errorf("of terms %q, the job's are %q", r.Terms, pj.Terms())
	case len(r.Prices) == 0 || !r.Prices[0].From.IsZero():
		return r, st, fmt.Errorf("price history does not start since ever")
	case r.LastUpdate.After(now):
		return r, st, fmt.Errorf("last update %v after now %v", r.LastUpdate, now)
	}
	q, ok := queueNamed(r.Queue)
	if !ok {
		return r, st, fmt.Errorf("queue %q", r.Queue)
	}
	st = dbs.Saved{Queue: q, MarkedShort: r.MarkedShort, MarkedSurplus: r.MarkedSurplus, MovedAt: r.MovedAt}
	switch r.LastMove {
	case "":
	case "promote":
		st.LastMove = dbs.Promote
	case "demote":
		st.LastMove = dbs.Demote
	default:
		return r, st, fmt.Errorf("last move %q", r.LastMove)
	}
	for i, p := range r.Prices {
		if !(p.Price > 0) || p.Price > 1e12 || (i > 0 && (!p.From.After(r.Prices[i-1].From) || p.From.After(now))) {
			return r, st, fmt.Errorf("price history: point %d (%v from %v) not a positive price after the one before and by now", i, p.Price, p.From)
		}
	}
	return r, st, nil
}

// queueNamed is the dbs.Queue named s.
func queueNamed(s string) (dbs.Queue, bool) {
	for q := range dbs.Queue(3) {
		if q.String() == s {
			return q, true
		}
	}
	return 0, false
}

// recordText returns pj's record annotation: the Job's, or the first
// found on a pod group's pods ("" if none).
func recordText(pj *podjob.Job) string {
	if pj.Object != nil {
		return pj.Object.Annotations[podjob.AnnotationDBSState]
	}
	for _, p := range pj.Pods {
		if s := p.Annotations[podjob.AnnotationDBSState]; s != "" {
			return s
		}
	}
	return ""
}

// StateWrite is a record to write on a job; Seq orders the records of
// all jobs as the ledger made them.
type StateWrite struct {
	Job   *podjob.Job
	Value string
	Seq   uint64
}

// writeStates writes records, never one older than a record already
// written of the same job (act runs in goroutines of its own).
func (pl *Plugin) writeStates(ctx context.Context, ws []StateWrite) {
	pl.wmu.Lock()
	defer pl.wmu.Unlock()
	if pl.written == nil {
		pl.written = map[schedkit.JobID]uint64{}
	}
	for _, w := range ws {
		id := w.Job.ID()
		if w.Seq <= pl.written[id] {
			continue
		}
		pl.written[id] = w.Seq
		pl.patch(ctx, w.Job, podjob.AnnotationDBSState, w.Value)
	}
}

// resume submits the new job j to dbs from its record, if it has a good
// one: in the record's queue, with its marks, last move and price
// history. It returns whether it did, and the record's last update; a
// record refused is noted (l.refused) and the job submitted afresh by
// the caller.
func (l *ledger) resume(j *job, now time.Time) (bool, time.Time) {
	text := recordText(j.cur)
	if text == "" {
		return false, time.Time{}
	}
	r, st, err := decodeRecord(text, j.cur, now)
	if err == nil {
		prices := make([]pricePoint, len(r.Prices))
		for i, p := range r.Prices {
			prices[i] = pricePoint{from: p.From, price: p.Price}
		}
		j.prices, j.queue = prices, st.Queue
		if err = l.sched.Resume(now, j, st); err == nil {
			j.saved, j.savedPrices, j.recorded = st, len(prices), true
			l.resumed = append(l.resumed, fmt.Sprintf("%s in the %s queue", j.cur.ID(), st.Queue))
			return true, r.LastUpdate
		}
		j.prices = nil
	}
	l.refused = append(l.refused, fmt.Sprintf("%s: %s record refused, starting afresh in its φ's queue: %v", j.cur.ID(), podjob.AnnotationDBSState, err))
	return false, time.Time{}
}

// persist queues a record for each job whose dbs state or price history
// changed since its last record: every job after a weight update (all),
// else the jobs submitted since the last call.
func (l *ledger) persist(all bool) {
	if !l.persistOn {
		return
	}
	check := l.fresh
	if all {
		check = check[:0]
		for _, j := range l.byID {
			check = append(check, j)
		}
	}
	last := l.sched.LastUpdate()
	for _, j := range check {
		if l.byID[j.cur.ID()] != j {
			continue // removed since
		}
		st, err := l.sched.Save(j.cur.ID())
		if err != nil || (j.recorded && st == j.saved && len(j.prices) == j.savedPrices) {
			continue
		}
		v, err := recordOf(j, st, last).encode()
		if err != nil {
			l.refused = append(l.refused, fmt.Sprintf("%s: record not written: %v", j.cur.ID(), err))
			continue
		}
		j.saved, j.savedPrices, j.recorded = st, len(j.prices), true
		l.seq++
		l.writes = append(l.writes, StateWrite{Job: j.cur, Value: v, Seq: l.seq})
	}
	l.fresh = l.fresh[:0]
}

// pruneWritten forgets the records written of jobs gone, once they are
// many. pl.mu must be held.
func (pl *Plugin) pruneWritten() {
	pl.wmu.Lock()
	defer pl.wmu.Unlock()
	if len(pl.written) <= 2*len(pl.led.byID)+64 {
		return
	}
	for id := range pl.written {
		if pl.led.byID[id] == nil {
			delete(pl.written, id)
		}
	}
}

// Saved returns what dbs keeps of job id that a restart would lose
// without its record (dbs.Scheduler.Save), and its cost so far at the
// last evaluation, for tests and diagnostics.
func (pl *Plugin) Saved(id schedkit.JobID) (dbs.Saved, float64, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	st, err := pl.led.sched.Save(id)
	if err != nil {
		return st, 0, err
	}
	return st, pl.led.byID[id].CostSoFar(), nil
}

package integration_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// TestDeadlineBudgetRestart (issue 35): the scheduler of tickScenario is
// killed after its fourth weight update — after hog's demotion and
// low's promotion, with marks set — and a new one started on the same
// cluster; with persistState, what dbs kept (each job's queue, marks,
// last move, price history) is read back from the Jobs' records, and
// every weight update after the restart leaves each job in the same
// state at the same cost as in a run without the restart, and a node
// added at the end gets the same pods. Without persistState the same
// restart changes them (the test can tell).
func TestDeadlineBudgetRestart(t *testing.T) {
	persist := strings.Replace(dbsArgs, "{", `{"persistState":true,`, 1)
	plain := playDBSRestart(t, persist, -1)
	restarted := playDBSRestart(t, persist, 3)
	for i := range plain.steps {
		if plain.steps[i] != restarted.steps[i] {
			t.Errorf("update %d:\n without restart %s\n with restart    %s", i, plain.steps[i], restarted.steps[i])
		}
	}
	if !maps.Equal(plain.bound, restarted.bound) {
		t.Errorf("bindings without restart %v, with %v", plain.bound, restarted.bound)
	}
	t.Logf("without restart: %s; bound %v", strings.Join(plain.steps, "\n"), plain.bound)
	lost := playDBSRestart(t, dbsArgs, 3)
	if slices.Equal(lost.steps, playDBSRestart(t, dbsArgs, -1).steps) {
		t.Error("without persistState the restart changes nothing: the scenario shows nothing")
	}
}

// dbsTrace is what a run decided: each job's dbs state and cost after
// each weight update, and the bindings on the node added at the end.
type dbsTrace struct {
	steps []string
	bound map[string]string
}

// playDBSRestart runs tickScenario with args for eleven weight updates
// 500 ms apart, restarting the scheduler after update restartAfter (-1:
// never), then adds a node of three map slots.
func playDBSRestart(t *testing.T, args string, restartAfter int) dbsTrace {
	t.Helper()
	jobs := []string{"hog", "mid", "low"}
	sc := tickScenario().scenario()
	r := startDBS(t, sc, args)
	r.waitFor("the first attempts", func() bool { p, _ := r.rec.snapshot(0); return len(p) > 0 }, 200*time.Millisecond)
	var tr dbsTrace
	for k := range 11 {
		r.clk.SetTime(now.Add(time.Duration(k) * 500 * time.Millisecond))
		r.pl.Tick(r.ctx)
		line := fmt.Sprintf("t+%v", time.Duration(k)*500*time.Millisecond)
		for _, name := range jobs {
			st, cost, err := r.pl.Saved(schedkit.JobID("Job/" + ns + "/" + name))
			line += fmt.Sprintf(" | %s %s%s cost %.9f", name, savedText(st), errText(err), cost)
		}
		tr.steps = append(tr.steps, line)
		if k == restartAfter {
			if strings.Contains(args, "persistState") {
				r.waitFor("the records", func() bool { return recordsWritten(r, jobs) }, 0)
			}
			r.restart()
		}
	}
	var waiting []string // every ready pod: nothing fits before n2
	for _, job := range jobs {
		for _, names := range sc.ready[job] {
			waiting = append(waiting, names...)
		}
	}
	r.nextRound(nodeSpec{name: "n2", maps: 3, reduces: 1}, waiting)
	r.waitFor("the bindings", func() bool { return len(r.bound()) >= 3 }, 300*time.Millisecond)
	tr.bound = r.bound()
	return tr
}

func savedText(st dbs.Saved) string {
	s := st.Queue.String()
	if st.MarkedShort {
		s += " marked short"
	}
	if st.MarkedSurplus {
		s += " marked surplus"
	}
	if st.LastMove != 0 {
		s += fmt.Sprintf(", %v at t+%v", st.LastMove, st.MovedAt.Sub(now))
	}
	return s
}

func errText(err error) string {
	if err != nil {
		return " (" + err.Error() + ")"
	}
	return ""
}

// recordsWritten reports whether each job's record on its Job says what
// the plugin's dbs has of it.
func recordsWritten(r *dbsRun, jobs []string) bool {
	for _, name := range jobs {
		j, err := r.client.BatchV1().Jobs(ns).Get(r.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		var rec struct {
			Queue                      string
			MarkedShort, MarkedSurplus bool
		}
		if json.Unmarshal([]byte(j.Annotations[podjob.AnnotationDBSState]), &rec) != nil {
			return false
		}
		st, _, err := r.pl.Saved(schedkit.JobID("Job/" + ns + "/" + name))
		if err != nil || rec.Queue != st.Queue.String() || rec.MarkedShort != st.MarkedShort || rec.MarkedSurplus != st.MarkedSurplus {
			return false
		}
	}
	return true
}

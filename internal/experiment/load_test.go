package experiment_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Worked example: two jobs of one 100 s map task (1 map slot each),
// submitted 100 s apart, on 2 map slots: 200 slot-seconds ÷ (2 × 100 s)
// = 100%; reduce slots are not asked for and not listed.
func TestOfferedLoad(t *testing.T) {
	space := workload.SlotSpace()
	req := space.Zero()
	mi, _ := space.Index(resource.MapSlot.Name)
	req[mi] = 1
	job := func(id string, at time.Duration) workload.JobSpec {
		return workload.JobSpec{ID: id, Submit: at, Phases: []workload.PhaseSpec{{Tasks: []workload.TaskSpec{{
			Requested: req, Profile: []workload.Stage{{Duration: 100 * time.Second, Demand: req}},
		}}}}}
	}
	w := &workload.Workload{Jobs: []workload.JobSpec{job("a", 0), job("b", 100*time.Second)}}
	capacity := space.Zero()
	capacity[mi] = 2
	loads, span := experiment.OfferedLoad(w, space, capacity)
	if span != 100*time.Second || len(loads) != 1 {
		t.Fatalf("span %v, loads %+v", span, loads)
	}
	if l := loads[0]; l.Kind != resource.MapSlot.Name || l.Demand != 200 || l.Capacity != 2 || math.Abs(l.Load-1) > 1e-12 {
		t.Errorf("load %+v, want map-slot 200 slot-s on 2 slots = 1", l)
	}
	w.Jobs[1].Submit = 0 // offline: no rate, no load
	if loads, span := experiment.OfferedLoad(w, space, capacity); span != 0 || loads[0].Load != 0 {
		t.Errorf("offline: span %v, loads %+v", span, loads)
	}
}

// A trace replay states its offered load, warns past 100%, and -load
// sizes the cluster for a target.
func TestTraceLoad(t *testing.T) {
	f := filepath.Join(t.TempDir(), "two.tsv")
	// Two jobs of 64 GiB input (1,024 maps), an hour apart.
	data := "a\t0\t0\t68719476736\t0\t0\nb\t3600\t3600\t68719476736\t0\t0\n"
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, _ := experiment.Lookup("trace")
	var progress strings.Builder
	res, err := tr.Run(experiment.Params{Trace: f, Nodes: 1, Policies: []string{"fifo"}, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Assumptions, "\n")
	if !strings.Contains(all, "offered load on 1 workers") || !strings.Contains(progress.String(), "trace: warning: offered load exceeds capacity") ||
		!strings.Contains(strings.Join(res.Tables[0].Notes, "\n"), "warning: offered load exceeds capacity") {
		t.Errorf("no load line or no warning:\n%s\n%s\n%v", all, progress.String(), res.Tables[0].Notes)
	}
	if res.FileName != "trace-two" {
		t.Errorf("FileName %q", res.FileName)
	}
	progress.Reset()
	res, err = tr.Run(experiment.Params{Trace: f, Load: 0.5, Policies: []string{"fifo"}, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	all = strings.Join(res.Assumptions, "\n")
	if !strings.Contains(all, "-load 0.5:") || progress.Len() != 0 {
		t.Errorf("-load 0.5:\n%s\n%s", all, progress.String())
	}
}

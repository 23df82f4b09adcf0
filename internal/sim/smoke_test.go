package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

func TestSmoke(t *testing.T) {
	w := &workload.Workload{Name: "smoke", Jobs: []workload.JobSpec{
		mrJob("a", 0, durs(5, 5, 5), durs(3)),
		mrJob("b", time.Second, durs(2), durs(1)),
	}}
	cfg := sim.DefaultConfig(slotSpace, slotNodes(2, 1, 1))
	cfg.AfterEvent = (*sim.Sim).CheckInvariants
	s, err := sim.New(cfg, w, &greedy{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range run.Jobs {
		t.Logf("%+v", j)
	}
	t.Logf("%+v", s.Stats())
}

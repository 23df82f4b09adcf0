package policy_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Run lss in the simulator on one worker × (2 map + 1 reduce): job B
// cannot make its deadline and is killed early, with the figures that
// decided it; A then gets every slot.
func ExampleNewLSS() {
	space := workload.SlotSpace()
	shaper, _ := workload.NewSlotShaper(space)
	job := func(id string, submit, deadline time.Duration, maps ...time.Duration) workload.JobSpec {
		var ph workload.PhaseSpec
		for _, d := range maps {
			req, prof, _ := workload.ShapeTask(shaper, workload.MapTask, d, 0)
			ph.Tasks = append(ph.Tasks, workload.TaskSpec{Requested: req, Profile: prof})
		}
		return workload.JobSpec{ID: id, Submit: submit, Deadline: deadline, Phases: []workload.PhaseSpec{ph}}
	}
	s10, s5 := 10*time.Second, 5*time.Second
	w := &workload.Workload{Name: "example", Jobs: []workload.JobSpec{
		job("A", time.Second, 200*time.Second, s10, s10, s10, s10, s10, s10),
		job("B", 2*time.Second, 20*time.Second, s5, s10, s10, s10, s10, s10),
	}}
	slots := space.Zero()
	mi, _ := space.Index(resource.MapSlot.Name)
	ri, _ := space.Index(resource.ReduceSlot.Name)
	slots[mi], slots[ri] = 2, 1
	cfg := sim.DefaultConfig(space, []sim.NodeSpec{{ID: "node0000", Rack: "rack00", Capacity: slots}})
	cfg.Seed = 1
	pol, err := policy.NewLSS(&cfg, policy.LSSOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := sim.New(cfg, w, pol)
	run, err := s.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	outcome := map[sim.Outcome]string{sim.Completed: "completed", sim.Killed: "killed"}
	for i, j := range run.Jobs {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s: %s at %v %s", j.ID, outcome[j.Outcome], j.Finish, s.KillReason(i))))
	}
	st := pol.Stats()
	fmt.Printf("assigned %d tasks, %d early kill(s)\n", st.Assigned, st.SpareExhausted)
	// Output:
	// A: completed at 36s
	// B: killed at 16s lss: kill B: spare+tavg<0 (spare -6.5s, tavg 5s); remaining 12.5s; deadline in 6s
	// assigned 8 tasks, 1 early kill(s)
}

package experiment

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// heldSteps are the window widths heldTable picks from: round durations.
var heldSteps = []time.Duration{
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// heldRows is the most rows heldTable prints.
const heldRows = 24

// heldTable is paper 000's fig. 2 as one table: the slots each workflow
// (job class) held over time under each policy, as means over round
// windows (the smallest giving at most heldRows rows). runs need task
// records (sim.Config.RecordTasks); columns are their policies.
func heldTable(title string, runs []sim.Run) metrics.Table {
	var end time.Duration
	var names, classes []string
	for i := range runs {
		end = max(end, runs[i].End)
		names = append(names, runs[i].Policy)
		for _, j := range runs[i].Jobs {
			if !slices.Contains(classes, j.Class) {
				classes = append(classes, j.Class)
			}
		}
	}
	slices.Sort(classes)
	step := heldSteps[len(heldSteps)-1]
	for _, s := range heldSteps {
		if int(end/s)+1 <= heldRows {
			step = s
			break
		}
	}
	return metrics.HeldTable(title, names, runs, classes, step, nil)
}

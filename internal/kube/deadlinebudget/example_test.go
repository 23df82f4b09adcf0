package deadlinebudget_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
)

// The note of the Normal event the plugin records when dbs promotes a
// job (reason QueuePromoted): dbs's decision with its figures, and the
// price the job is charged from then on.
func ExampleMoveNote() {
	d := dbs.Decision{Action: dbs.Promote, Job: "Job/batch/mid", From: dbs.Mid, To: dbs.High, Price: 0.05,
		Figures: dbs.Figures{Now: time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC), Held: 0, Needed: 1, Weight: 0.139, QueueAverage: 0.0696}}
	fmt.Println(deadlinebudget.EventReasonPromoted+":", deadlinebudget.MoveNote(d))
	// Output:
	// QueuePromoted: promote Job/batch/mid mid→high (held 0 needed 1, W 0.139 avg 0.0696); price 0.05 per slot-second from now
}

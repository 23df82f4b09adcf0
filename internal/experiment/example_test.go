package experiment_test

import (
	"fmt"

	"github.com/schedkit/schedkit/internal/experiment"
)

// Run paper 000's heavy-load experiment with two policies and print two
// rows of its table.
func Example() {
	e, err := experiment.Lookup("paper000-heavy")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := experiment.Defaults()
	p.Policies = []string{"fifo", "edf"}
	res, err := e.Run(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	t := res.Tables[0]
	fmt.Println(t.Columns)
	for _, r := range t.Rows {
		if r.Name == "jobs" || r.Name == "deadline success" {
			fmt.Println(r.Name, r.Cells)
		}
	}
	// Output:
	// [FIFO EDF]
	// jobs [76 76]
	// deadline success [0.842 (64/76) 0.934 (71/76)]
}

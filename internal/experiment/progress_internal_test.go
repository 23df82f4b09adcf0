package experiment

import (
	"strings"
	"testing"
)

// Progress lines follow the wall clock, not a step count: with a zero
// period a run far shorter than 65,536 steps still reports, at most once
// per progressCheck steps.
func TestProgressOnWallClock(t *testing.T) {
	saved := progressEvery
	defer func() { progressEvery = saved }()
	progressEvery = 0
	var out strings.Builder
	p := Defaults()
	p.Scale = 0.1
	p.Policies = []string{"fifo"}
	p.Progress = &out
	res, err := paper000Light.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if res.Runs[0].Events >= 1<<16 || len(lines) < 2 || !strings.HasPrefix(lines[0], "schedsim: paper000-light/fifo: ") {
		t.Fatalf("%d events, progress:\n%s", res.Runs[0].Events, out.String())
	}
	if max := res.Runs[0].Events/progressCheck + 1; len(lines) > max {
		t.Errorf("%d progress lines for %d events, want at most %d", len(lines), res.Runs[0].Events, max)
	}
}

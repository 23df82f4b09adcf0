package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A replay of a user's trace runs every policy schedsim knows unless
// -policies names some.
func TestTraceReplayRunsEveryPolicy(t *testing.T) {
	lines := bytes.SplitAfter(fbTrace, []byte("\n"))
	f := filepath.Join(t.TempDir(), "day.tsv")
	if err := os.WriteFile(f, bytes.Join(lines[:40], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := traceReplay.Run(Params{Scale: 1, Seed: 1, Trace: f, Nodes: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != len(policies) {
		t.Fatalf("%d runs for %d policies", len(res.Runs), len(policies))
	}
	for i, run := range res.Runs {
		if err := run.Validate(); err != nil {
			t.Errorf("%s: %v", policies[i].Name, err)
		}
	}
	res, err = traceReplay.Run(Params{Scale: 1, Seed: 1, Trace: f, Nodes: 20, Policies: []string{"fifo", "fgm"}})
	if err != nil || len(res.Runs) != 2 {
		t.Fatalf("-policies fifo,fgm: %d runs, %v", len(res.Runs), err)
	}
}

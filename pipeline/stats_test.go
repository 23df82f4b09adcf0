package pipeline_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit/pipeline"
)

func TestBottleneck(t *testing.T) {
	sec := time.Second
	for _, c := range []struct {
		name string
		st   pipeline.Stats
		want pipeline.Stage
	}{
		// utilisations read 0.2, process 0.9 (2 workers: 1.8 s / 2 s), write 0.3
		{"process", pipeline.Stats{Elapsed: sec,
			Read:    pipeline.StageStats{Workers: 1, Busy: sec / 5},
			Process: pipeline.StageStats{Workers: 2, Busy: 18 * sec / 10},
			Write:   pipeline.StageStats{Workers: 1, Busy: 3 * sec / 10}}, pipeline.StageProcess},
		// read 0.5, process 0.25 (4 workers × 1 s busy of 4 s), write 0.6
		{"write", pipeline.Stats{Elapsed: sec,
			Read:    pipeline.StageStats{Workers: 1, Busy: sec / 2},
			Process: pipeline.StageStats{Workers: 4, Busy: sec},
			Write:   pipeline.StageStats{Workers: 1, Busy: 6 * sec / 10}}, pipeline.StageWrite},
		{"tie goes to read", pipeline.Stats{Elapsed: sec,
			Read:  pipeline.StageStats{Workers: 1, Busy: sec / 2},
			Write: pipeline.StageStats{Workers: 1, Busy: sec / 2}}, pipeline.StageRead},
		{"empty", pipeline.Stats{}, pipeline.StageRead},
	} {
		if got := c.st.Bottleneck(); got != c.want {
			t.Errorf("%s: Bottleneck = %v, want %v", c.name, got, c.want)
		}
	}
	if u := (pipeline.StageStats{Workers: 2, Busy: sec}).Utilisation(sec); u != 0.5 {
		t.Errorf("Utilisation(1 s busy, 2 workers, 1 s) = %v, want 0.5", u)
	}
	if u := (pipeline.StageStats{Busy: sec}).Utilisation(sec); u != 0 {
		t.Errorf("Utilisation with no workers = %v, want 0", u)
	}
}

func TestStageAndErrors(t *testing.T) {
	for s, want := range map[pipeline.Stage]string{
		pipeline.StageRead: "read", pipeline.StageProcess: "process", pipeline.StageWrite: "write", 7: "Stage(7)",
	} {
		if s.String() != want {
			t.Errorf("Stage(%d).String() = %q, want %q", s, s.String(), want)
		}
	}
	host := errors.New("connection reset")
	err := error(&pipeline.StageError{Stage: pipeline.StageWrite, Err: host})
	if err.Error() != "pipeline: write stage failed: connection reset" ||
		!errors.Is(err, pipeline.ErrStageFailed) || !errors.Is(err, host) {
		t.Errorf("StageError %q does not read or unwrap as documented", err)
	}
	ce := error(&pipeline.Error{Op: "Run", Field: "Streams", Reason: "must be at least 1, got 0", Err: pipeline.ErrConfig})
	if ce.Error() != "pipeline: Run: invalid config: Streams: must be at least 1, got 0" || !errors.Is(ce, pipeline.ErrConfig) {
		t.Errorf("Error %q does not read or unwrap as documented", ce)
	}
	// A panic with an error value unwraps to it through both wrappers.
	pe := error(&pipeline.StageError{Stage: pipeline.StageProcess, Err: &pipeline.PanicError{Value: host}})
	var pv *pipeline.PanicError
	if pe.Error() != "pipeline: process stage failed: panic: connection reset" || !errors.Is(pe, host) || !errors.As(pe, &pv) {
		t.Errorf("PanicError %q does not read or unwrap as documented", pe)
	}
}

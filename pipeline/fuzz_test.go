package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
	"github.com/schedkit/schedkit/pipeline/pipelinetest"
)

// FuzzRun drives Run with fuzzed configuration fields (any int8, so
// invalid ones too) and a fuzzed item sequence: each byte of seq is one
// item, its low bits choosing the requester and its high bits a
// processing failure, an undeliverable result and a slow item. flags
// choose ordering, ProcessBatch, and a fatal read or write or a
// cancellation at a position taken from at. An invalid configuration
// must be rejected with an *Error before anything runs; a valid one
// must satisfy every invariant the property test checks.
func FuzzRun(f *testing.F) {
	f.Add(int8(4), int8(4), int8(0), int8(1), uint8(1), uint8(0), int8(0), uint8(0), []byte("hello, accelerator"))
	f.Add(int8(1), int8(1), int8(3), int8(2), uint8(2), uint8(1), int8(5), uint8(7), []byte{0, 1, 2, 3, 0x10, 0x21, 0x42, 0x83, 4, 5})
	f.Add(int8(2), int8(3), int8(2), int8(3), uint8(3), uint8(0x13), int8(0), uint8(3), []byte("ordered with failures"))
	f.Add(int8(0), int8(4), int8(0), int8(1), uint8(1), uint8(0), int8(0), uint8(0), []byte("x"))
	f.Add(int8(3), int8(-1), int8(-2), int8(0), uint8(0), uint8(0), int8(-3), uint8(0), []byte{})
	f.Add(int8(5), int8(2), int8(4), int8(1), uint8(2), uint8(0x21), int8(0), uint8(9), []byte("write cancels mid-stream"))
	f.Fuzz(fuzzRun)
}

func fuzzRun(t *testing.T, pq, wq, batch, streams int8, nacc, flags uint8, maxInFlight int8, at uint8, seq []byte) {
	if len(seq) > 256 {
		seq = seq[:256]
	}
	s := &pipelinetest.Scenario{N: len(seq), WriteFatalAt: -1, ReadFatalAt: -1, CancelRead: -1, CancelWrite: -1}
	s.Config = pipeline.Config{
		Streams:      int(streams),
		ProcessQueue: int(pq),
		WriteQueue:   int(wq),
		Batch:        int(batch),
		MaxInFlight:  int(maxInFlight),
		Ordered:      flags&1 != 0,
	}
	for i := range int(nacc % 5) {
		s.Config.Accelerators = append(s.Config.Accelerators, &pipelinetest.FlakyAccelerator{ID: schedkit.AcceleratorID(fmt.Sprint("d", i)), Serial: i%2 == 1, S: s})
	}
	s.UseBatchFn = flags&2 != 0
	for _, b := range seq {
		s.Requester = append(s.Requester, schedkit.NodeID(fmt.Sprint("n", b&3)))
		s.ProcFail = append(s.ProcFail, b&0x10 != 0)
		s.DevFail = append(s.DevFail, b&0x4c == 0x4c)
		s.Undeliver = append(s.Undeliver, b&0x20 != 0)
		s.ProcDelay = append(s.ProcDelay, int(b>>7))
		s.WriteDelay = append(s.WriteDelay, int(b>>7))
	}
	if s.N > 0 {
		k := int(at) % s.N
		switch flags >> 4 & 7 {
		case 1:
			s.WriteFatalAt = k
		case 2:
			s.ReadFatalAt = k
		case 3:
			s.CancelRead = k
		case 4:
			s.CancelWrite = k
		}
	}

	base := runtime.NumGoroutine()
	if err := s.Config.Validate(); err != nil {
		var ce *pipeline.Error
		if !errors.As(err, &ce) || !errors.Is(err, pipeline.ErrConfig) {
			t.Fatalf("Validate = %v, not a *Error", err)
		}
		calls := 0
		if _, rerr := pipeline.Run(context.Background(), s.Config, countingStages(&calls)); !errors.Is(rerr, pipeline.ErrConfig) || calls != 0 {
			t.Fatalf("Run = %v after %d calls; Validate said %v", rerr, calls, err)
		}
		return
	}
	o := s.Run()
	if err := s.Check(o); err != nil {
		t.Fatal(err)
	}
	if err := pipelinetest.WaitGoroutines(base); err != nil {
		t.Fatal(err)
	}
}

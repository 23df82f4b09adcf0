package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// FuzzRun drives Run with fuzzed configuration fields (any int8, so
// invalid ones too) and a fuzzed item sequence: each byte of seq is one
// item, its low bits choosing the requester and its high bits a
// processing failure, an undeliverable result and a slow item. flags
// choose ordering, ProcessBatch, and a fatal read or write or a
// cancellation at a position taken from at. An invalid configuration
// must be rejected with a *ConfigError before anything runs; a valid one
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
	s := &scenario{n: len(seq), writeFatalAt: -1, readFatalAt: -1, cancelRead: -1, cancelWrite: -1}
	s.cfg = pipeline.Config{
		Streams:      int(streams),
		ProcessQueue: int(pq),
		WriteQueue:   int(wq),
		Batch:        int(batch),
		MaxInFlight:  int(maxInFlight),
		Ordered:      flags&1 != 0,
	}
	for i := range int(nacc % 5) {
		s.cfg.Accelerators = append(s.cfg.Accelerators, &testAcc{id: schedkit.AcceleratorID(fmt.Sprint("d", i)), serial: i%2 == 1, s: s})
	}
	s.useBatchFn = flags&2 != 0
	for _, b := range seq {
		s.requester = append(s.requester, schedkit.NodeID(fmt.Sprint("n", b&3)))
		s.procFail = append(s.procFail, b&0x10 != 0)
		s.devFail = append(s.devFail, b&0x4c == 0x4c)
		s.undeliver = append(s.undeliver, b&0x20 != 0)
		s.procDelay = append(s.procDelay, int(b>>7))
		s.writeDelay = append(s.writeDelay, int(b>>7))
	}
	if s.n > 0 {
		k := int(at) % s.n
		switch flags >> 4 & 7 {
		case 1:
			s.writeFatalAt = k
		case 2:
			s.readFatalAt = k
		case 3:
			s.cancelRead = k
		case 4:
			s.cancelWrite = k
		}
	}

	base := runtime.NumGoroutine()
	if err := s.cfg.Validate(); err != nil {
		var ce *pipeline.ConfigError
		if !errors.As(err, &ce) || !errors.Is(err, pipeline.ErrInvalidConfig) {
			t.Fatalf("Validate = %v, not a *ConfigError", err)
		}
		calls := 0
		if _, rerr := pipeline.Run(context.Background(), s.cfg, countingStages(&calls)); !errors.Is(rerr, pipeline.ErrInvalidConfig) || calls != 0 {
			t.Fatalf("Run = %v after %d calls; Validate said %v", rerr, calls, err)
		}
		return
	}
	o := s.run(t)
	s.check(t, o)
	waitGoroutines(t, base)
}

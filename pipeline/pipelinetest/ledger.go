// Package pipelinetest gives hosts of package pipeline what pipeline's own
// tests use, the way net/http/httptest serves net/http:
//
//   - Ledger, the accounting checker a host wraps around its own Stages:
//     after Run, every item read was written exactly once or dropped
//     exactly once (never both), Write and Drop never overlapped, the
//     late drops came in requester-then-Seq order, and Stats agree;
//   - Scenario, a seeded random run — topology, queue depths, batching,
//     ordering, in-flight cap, injected process, device, read and write
//     faults, undeliverable results, cancellations, delays — with the
//     full check of what Run must guarantee for it;
//   - FlakyAccelerator, a device that fails some calls before or after
//     running the work.
//
// # Usage
//
//	l := pipelinetest.NewLedger(myStages)
//	st, err := pipeline.Run(ctx, cfg, l.Stages())
//	if cerr := l.Check(st, err); cerr != nil { t.Fatal(cerr) }
package pipelinetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

// Ledger records what a run did through a host's Stages and checks the
// accounting pipeline.Run promises. Items are identified by requester and
// Seq (their position among the requester's items read).
type Ledger[I, R any] struct {
	inner pipeline.Stages[I, R]

	mu       sync.Mutex
	reads    map[schedkit.NodeID]uint64 // items read per requester
	fate     map[key]string
	written  int
	dropped  int
	late     []key // drops not caused by ErrUndeliverable, in order
	problems []string
	writing  atomic.Bool
}

type key struct {
	req schedkit.NodeID
	seq uint64
}

// NewLedger returns a ledger over s.
func NewLedger[I, R any](s pipeline.Stages[I, R]) *Ledger[I, R] {
	return &Ledger[I, R]{inner: s, reads: map[schedkit.NodeID]uint64{}, fate: map[key]string{}}
}

func (l *Ledger[I, R]) problem(format string, args ...any) {
	l.mu.Lock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// Stages returns the host's stages wrapped to record every call. Pass
// them to one pipeline.Run.
func (l *Ledger[I, R]) Stages() pipeline.Stages[I, R] {
	s := l.inner
	read, write, drop := s.Read, s.Write, s.Drop
	s.Read = func(ctx context.Context) (pipeline.Item[I], error) {
		it, err := read(ctx)
		if err == nil {
			l.mu.Lock()
			k := key{it.Requester, l.reads[it.Requester]}
			l.reads[it.Requester]++
			l.fate[k] = ""
			l.mu.Unlock()
		}
		return it, err
	}
	s.Write = func(ctx context.Context, r pipeline.Result[I, R]) error {
		if !l.writing.CompareAndSwap(false, true) {
			l.problem("overlapping Write calls")
		}
		defer l.writing.Store(false)
		err := write(ctx, r)
		if err == nil {
			l.settle(r, "written")
		}
		return err
	}
	s.Drop = func(r pipeline.Result[I, R], reason error) {
		if l.writing.Load() {
			l.problem("Drop of %s#%d overlaps a Write", r.Requester, r.Seq)
		}
		l.settle(r, "dropped")
		if !errors.Is(reason, pipeline.ErrUndeliverable) {
			l.mu.Lock()
			l.late = append(l.late, key{r.Requester, r.Seq})
			l.mu.Unlock()
		}
		if drop != nil {
			drop(r, reason)
		}
	}
	return s
}

func (l *Ledger[I, R]) settle(r pipeline.Result[I, R], fate string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key{r.Requester, r.Seq}
	f, read := l.fate[k]
	switch {
	case !read:
		l.problems = append(l.problems, fmt.Sprintf("%s#%d %s but never read", r.Requester, r.Seq, fate))
	case f != "":
		l.problems = append(l.problems, fmt.Sprintf("%s#%d %s after it was %s", r.Requester, r.Seq, fate, f))
	}
	l.fate[k] = fate
	if fate == "written" {
		l.written++
	} else {
		l.dropped++
	}
}

// Written and Dropped return how many items were written and dropped.
func (l *Ledger[I, R]) Written() int { l.mu.Lock(); defer l.mu.Unlock(); return l.written }

// Dropped returns how many items were reported to Drop.
func (l *Ledger[I, R]) Dropped() int { l.mu.Lock(); defer l.mu.Unlock(); return l.dropped }

// Check checks the run after pipeline.Run returned st and err: every
// item read written or dropped exactly once, no overlap of Write and a
// late Drop, late drops in requester-then-Seq order, and st's counts
// equal to what the ledger saw. (err is reported in the message of a
// failure; any error Run may return is accepted.)
func (l *Ledger[I, R]) Check(st pipeline.Stats, err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.problems) > 0 {
		return fmt.Errorf("pipelinetest: %s (Run error %v)", l.problems[0], err)
	}
	read := 0
	for k, f := range l.fate {
		read++
		if f == "" {
			return fmt.Errorf("pipelinetest: %s#%d read but neither written nor dropped (Run error %v)", k.req, k.seq, err)
		}
	}
	for i := 1; i < len(l.late); i++ {
		a, b := l.late[i-1], l.late[i]
		if cmp.Or(cmp.Compare(a.req, b.req), cmp.Compare(a.seq, b.seq)) >= 0 {
			return fmt.Errorf("pipelinetest: late drops out of requester, seq order: %s#%d before %s#%d", a.req, a.seq, b.req, b.seq)
		}
	}
	switch {
	case st.Read.Items != int64(read) || st.Write.Items != int64(l.written) || st.Dropped != int64(l.dropped):
		return fmt.Errorf("pipelinetest: stats read %d written %d dropped %d; the stages saw %d %d %d",
			st.Read.Items, st.Write.Items, st.Dropped, read, l.written, l.dropped)
	case st.Read.Items != st.Write.Items+st.Dropped:
		return fmt.Errorf("pipelinetest: stats: read %d != written %d + dropped %d", st.Read.Items, st.Write.Items, st.Dropped)
	}
	return nil
}

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

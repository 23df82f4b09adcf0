// Package bindingtest gives hosts of package binding what binding's own
// tests use, the way net/http/httptest serves net/http:
//
//   - Checker, the invariant checker a host runs after every operation on
//     its binding.Table (or SyncTable): every unit bound exactly once, to
//     an ANode of its own rack; units wait only in racks without ANodes;
//     the moves returned turn the old binding into the new one exactly,
//     each unit at most once; with Rebalance, every rack balanced;
//   - Fleet, a reference in-memory fleet of nodes that drives a Table
//     with seeded random operations (joins, heartbeats with health, rack
//     and container changes, removals, expiry, stale and invalid reports)
//     and runs the Checker after each, also checking that refused
//     operations change nothing.
//
// # Usage
//
//	check := bindingtest.NewChecker(table, cfg)
//	moves, err := table.Heartbeat(now, status)
//	host.apply(moves)
//	if err := check.Check(moves); err != nil { t.Fatal(err) }
package bindingtest

// Package schedkittest provides an in-memory host for schedkit's root
// interfaces — Job, Node, Cluster, Task — over plain exported fields, for
// tests and examples, the way net/http/httptest serves net/http. It is
// the one in-memory host schedkit's own tests and examples use; the
// per-package test helpers (lss/lsstest, dbs/dbstest, fgm/fgmtest,
// binding/bindingtest) build on it.
//
// Values here do exactly what a host does and no more: a Job keeps its
// phase counters with the schedkit.PhaseProgress transitions, a Node its
// free vector, a Cluster its nodes by ID (schedkit.NodeLookup) and the
// sum of their capacities. Check runs schedkit's self-checks on them.
//
// # Usage
//
//	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
//	cl := schedkittest.NewCluster(space)
//	n := cl.AddNode("n1", "r1", resource.Vector{2, 1})
//	j := schedkittest.NewJob("j1", now, now.Add(time.Hour), 4, 1) // 4 maps, 1 reduce
//	_ = j.Start(schedkit.PhaseMap, now)                            // a map starts
//	_ = n.Take(0, 1)                                               // on one of n1's map slots
package schedkittest

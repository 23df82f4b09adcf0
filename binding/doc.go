// Package binding decides which accelerator node serves the accelerator
// work of each node that has none, and keeps the accelerator status of
// every node (paper 001, Li, Zhu, Liu, Qian, "Accelerator support in YARN
// cluster", §2.1–2.3, and its §5 future work).
//
// A node with a usable accelerator (GPU, MIC, …) is an ANode; one without
// is an NNode. Each NNode is bound to one ANode of its own rack and sends
// its accelerator tasks there; racks never bind across. The binding is
// balanced (every ANode serves about as many NNodes) and sticky (a change
// moves as few bindings as it can, and the most recent ones).
//
// # The paper's algorithm
//
// Per rack the table keeps one stack of bound NNodes per ANode (keyed by
// node ID, the paper's IP address) and a queue of those stacks ordered by
// size:
//
//   - Add NNode: push it onto the smallest stack of its rack.
//   - Add ANode: a new, empty stack; while it is smaller than the smallest
//     stack of the queue, pop the top NNode of the largest stack and push
//     it onto the new one (the most recent bindings move, older ones stay);
//     then the stack joins the queue (Figure 3).
//   - Remove NNode, or its heartbeat times out: delete it from its stack
//     and re-sort.
//   - Remove ANode: take its stack out of the queue and add each of its
//     NNodes again.
//
// An NNode in a rack without an ANode waits unbound and is bound as soon as
// an ANode joins that rack. Every change returns the list of moves (unit,
// from, to) for the host to carry out.
//
// # What the paper leaves open, and what was chosen
//
//   - Ties: the smallest stack is the one with the fewest NNodes, then the
//     smallest ANode ID; the largest is the one with the most, then the
//     smallest ANode ID. The queue is two indexed heaps per rack (smallest
//     and largest), so an add or removal costs O(log k) in the rack's ANode
//     count for each NNode it binds or moves (a removed ANode's s NNodes:
//     O(s log k)), plus O(log n) in the node count for the liveness heap;
//     lookups are one map read and do not allocate.
//   - A removed ANode's NNodes are added again bottom (oldest) first, so
//     their relative age is kept.
//   - An ANode whose usable accelerators are all unhealthy or gone stops
//     being an ANode (its stack is dissolved as for a removal) and is then
//     added as an NNode, bound to another ANode, since it is now a node
//     without accelerators; when a device is healthy again it is removed as
//     an NNode and added as an ANode. A node changing rack is likewise a
//     removal plus an add.
//   - An ANode's own units count as bound to itself: Lookup of an ANode
//     returns the ANode, and a role change shows as moves to or from
//     itself. An ANode added or removed (or one of its containers) shows
//     no move for its own units: there is nothing for the host to rebind,
//     so every Move returned is one to carry out.
//   - Liveness: a node is dead at Expire(now) when its last heartbeat is at
//     or before now − Timeout. In one Expire the dead NNodes leave before
//     the dead ANodes' stacks are dissolved, so no dead NNode is rebound.
//   - Heartbeats are strict: a node first joins with Add (a second Add is
//     an error), a heartbeat from a node the table does not hold is
//     ErrUnknownNode (the host adds it again, as a YARN ResourceManager
//     makes a NodeManager re-register). Any error leaves the table
//     unchanged.
//   - Time follows the library's rule (root package doc, Conventions) with
//     one difference: staleness is per node. Heartbeats of different
//     nodes reach a host in any order, so a table-wide "latest time" would
//     refuse honest reports; a heartbeat dated before the same node's
//     previous one is ErrStaleTime. The range rule is the shared one: an
//     Add or Heartbeat more than 2⁶⁰ ns from the first time the table
//     accepted is ErrTimeRange (a zero time.Time, for instance). Expire
//     only compares times and returns no error. Times are compared with
//     time.Time.Compare, so monotonic clock readings are used when both
//     times carry one.
//   - Moves are net per call: a unit moved twice in one call (an ANode's
//     NNode re-added, then moved again by rebalancing) appears once, from
//     its binding before the call to its binding after it.
//
// # Options (Config), off by default
//
//   - Rebalance: the paper only re-sorts after a removal, so a rack can
//     drift out of balance (an ANode keeps 5 NNodes while a newer one has
//     none). With Rebalance every rack keeps max − min ≤ 1 at all times,
//     using the fewest moves (checked against a brute-force oracle): the
//     top NNode of the largest stack moves to the smallest while they
//     differ by two or more. This also replaces the paper's ANode-add
//     loop, which is not minimal (measured by TestPaperAddLoopMoves over
//     every rack of up to four stacks of up to six NNodes): with the k
//     other stacks all of size s it moves the minimum, except one NNode
//     more exactly when k·s mod (k+1) = k (two stacks of one: it moves
//     one, though the rack is already balanced); on unequal stacks it
//     can move more ({3, 2}: two moves where one balances) or fewer,
//     leaving the rack unbalanced ({2, 0}: none).
//   - Weighted: the paper's §5 weight table. Load is measured per unit of
//     accelerator capacity (summed weights of healthy devices, from a
//     host WeightTable by model or AcceleratorInfo.EffectiveWeight), the
//     ANode's own work included, and a unit goes where it leaves the least
//     load; the ANode-add loop and Rebalance use the same keys. Without
//     weights both reduce exactly to the paper's stack sizes.
//   - Containers: the paper's §5 container-level binding. Each container
//     of an NNode is a unit bound on its own, so one NNode's accelerator
//     work spreads over several ANodes; nodes report their container count
//     in each heartbeat.
//   - Kinds: which accelerator kinds make an ANode (one table per kind).
//
// # Concurrency
//
// Table is a single-threaded core, like raft's RawNode: not safe for
// concurrent use, deterministic, no clock (every call takes now), no
// goroutines. SyncTable wraps it in a read-write lock for hosts whose
// heartbeat handlers run on many goroutines; lookups take the read lock.
// Returned slices are fresh and belong to the caller.
//
// # Usage
//
//	t, err := binding.New(binding.Config{Timeout: 30 * time.Second})
//	if err != nil { … }
//	moves, err := t.Add(now, binding.NodeStatus{ID: "n1", Rack: "r1"})
//	moves, err = t.Add(now, binding.NodeStatus{ID: "a1", Rack: "r1",
//		Accelerators: []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Healthy: true}}})
//	for _, m := range moves { host.Rebind(m.Node, m.Container, m.From, m.To) }
//	anode, ok := t.Lookup("n1") // "a1", true: send n1's GPU tasks to a1
//	dead, expired := t.Expire(now) // on a timer: nodes that died, and moves
//
// Loads, Stack, Waiting and Bindings report the state for monitoring and
// experiments (per-ANode load, per-NNode and per-container binding).
//
// # Host duties
//
// The host must:
//
//  1. Call Add(now, status) when a node joins (its first heartbeat), with
//     its rack and accelerators; Add of a node the table holds is
//     ErrDuplicateNode.
//  2. Call Heartbeat(now, status) on every heartbeat, with the node's
//     current devices and health and (Containers) container count; on
//     ErrUnknownNode, Add the node again (it expired or was removed).
//     Times of one node must not run backwards (ErrStaleTime).
//     Every error is a *Error wrapping one sentinel (ErrConfig,
//     ErrInvalidNode, ErrDuplicateNode, ErrUnknownNode, ErrStaleTime,
//     ErrTimeRange) and changes nothing.
//  3. Carry out every Move it is returned: from then on send the unit's
//     accelerator work to To, or hold it while To is "" (no ANode in its
//     rack). Moves are net per call; to apply several calls' moves at
//     once, net them with Coalesce.
//  4. Route accelerator work with Lookup (LookupContainer), not with a
//     copy of the moves.
//  5. Call Expire(now) on a timer and forget the nodes it returns (they
//     are gone: no Remove); call Remove when it decommissions a node.
//  6. Use a Table from one goroutine, or a SyncTable from several.
//  7. In its tests, run bindingtest.Checker after every operation, or
//     drive its configuration through bindingtest.Fleet.
package binding

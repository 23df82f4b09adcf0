package schedkit

// JobID identifies a job. IDs are compared as strings wherever a
// deterministic tie-break is needed, so hosts with numeric IDs should
// zero-pad them (or accept lexical order).
type JobID string

// TaskID identifies a task, unique within the host.
type TaskID string

// NodeID identifies a node (server, worker, TaskTracker, NodeManager).
type NodeID string

// RackID names a rack. Nodes in the same rack share a top-of-rack switch;
// binding never crosses racks. The empty RackID is not a valid rack.
type RackID string

// AcceleratorID identifies one accelerator device, unique within its node.
type AcceleratorID string

package binding

import (
	"sync"
	"time"

	"github.com/schedkit/schedkit"
)

// SyncTable is a Table behind a read-write lock, safe for concurrent use:
// heartbeat handlers on many goroutines may call Add, Heartbeat, Remove and
// Expire while schedulers call Lookup. Changes are serialised, so each
// call's moves apply to the binding left by the call before it; a host
// that carries moves out asynchronously must apply them in the order the
// calls returned. Lookups share the lock and do not allocate.
type SyncTable struct {
	mu sync.RWMutex
	t  *Table
}

// NewSyncTable returns an empty, lock-protected table for cfg.
func NewSyncTable(cfg Config) (*SyncTable, error) {
	t, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &SyncTable{t: t}, nil
}

// Add is Table.Add under the lock.
func (s *SyncTable) Add(now time.Time, st NodeStatus) ([]Move, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Add(now, st)
}

// Heartbeat is Table.Heartbeat under the lock.
func (s *SyncTable) Heartbeat(now time.Time, st NodeStatus) ([]Move, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Heartbeat(now, st)
}

// Remove is Table.Remove under the lock.
func (s *SyncTable) Remove(id schedkit.NodeID) ([]Move, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Remove(id)
}

// Expire is Table.Expire under the lock.
func (s *SyncTable) Expire(now time.Time) ([]schedkit.NodeID, []Move) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Expire(now)
}

// Lookup is Table.Lookup under the read lock.
func (s *SyncTable) Lookup(id schedkit.NodeID) (schedkit.NodeID, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Lookup(id)
}

// LookupContainer is Table.LookupContainer under the read lock.
func (s *SyncTable) LookupContainer(id schedkit.NodeID, c int) (schedkit.NodeID, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.LookupContainer(id, c)
}

// Role is Table.Role under the read lock.
func (s *SyncTable) Role(id schedkit.NodeID) (Role, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Role(id)
}

// Len is Table.Len under the read lock.
func (s *SyncTable) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Len()
}

// Node is Table.Node under the read lock.
func (s *SyncTable) Node(id schedkit.NodeID) (NodeState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Node(id)
}

// Racks is Table.Racks under the read lock.
func (s *SyncTable) Racks(dst []schedkit.RackID) []schedkit.RackID {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Racks(dst)
}

// Loads is Table.Loads under the read lock.
func (s *SyncTable) Loads(rack schedkit.RackID, dst []Load) []Load {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Loads(rack, dst)
}

// Stack is Table.Stack under the read lock.
func (s *SyncTable) Stack(anode schedkit.NodeID, dst []Unit) []Unit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Stack(anode, dst)
}

// Waiting is Table.Waiting under the read lock.
func (s *SyncTable) Waiting(rack schedkit.RackID, dst []Unit) []Unit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Waiting(rack, dst)
}

// Bindings is Table.Bindings under the read lock.
func (s *SyncTable) Bindings(dst []Binding) []Binding {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.Bindings(dst)
}

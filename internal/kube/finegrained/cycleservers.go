package finegrained

import (
	"sync"
	"sync/atomic"

	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// cycleServers is one scheduling cycle's servers: fgm's view of each
// node (capacity, free-resource timeline, measured usage; Plugin.server)
// built once per node and NodeInfo generation, the first time the cycle
// asks for it, and read by every later Filter and Score of the same
// cycle. kube-scheduler hands Filter and then Score the NodeInfos of one
// snapshot, so each node's timeline is built once per pod instead of
// twice. The NodeInfo's generation is part of the key: a preemption's
// what-ifs and the filters run with nominated pods added see NodeInfo
// clones whose pods differ, and any change of a NodeInfo's pods gives it
// a new generation, so those get servers of their own.
//
// A server is read-only once built (fgm.Fitter.Fit and leastAfter only
// read it), so concurrent Filter and Score calls share it. The cycle's
// servers go with its CycleState; the plugin's state between the
// cycle's first Filter and its last Score (a feed read, a binding's
// Unreserve) is seen as it was when the node's server was built.
type cycleServers struct {
	mu    sync.Mutex
	m     map[string]*cycleServer
	block []cycleServer // the servers not handed out yet (newServer)
}

// newCycleServers returns an empty set for a cycle that will filter up
// to nodes nodes (kube-scheduler stops at a share of a large cluster).
func newCycleServers(nodes int) *cycleServers {
	return &cycleServers{m: make(map[string]*cycleServer, min(nodes, 1024))}
}

// serverBlock is how many servers newServer allocates at a time.
const serverBlock = 32

// newServer returns a zero server for a node's generation, from a
// block allocated serverBlock at a time. c.mu must be held.
func (c *cycleServers) newServer(gen int64) *cycleServer {
	if len(c.block) == 0 {
		c.block = make([]cycleServer, serverBlock)
	}
	s := &c.block[0]
	c.block = c.block[1:]
	s.gen = gen
	return s
}

// cycleServer is a node's server (or the status that says why it has
// none) at one NodeInfo generation.
type cycleServer struct {
	gen  int64
	node string
	srv  fgm.Server
	st   *fwk.Status
	free resource.Timeline // srv.Free's storage
}

// serverCounts counts the servers built and the ones found already
// built (Stats).
type serverCounts struct{ built, shared atomic.Uint64 }

// Stats is what the plugin did so far: ServersBuilt counts the
// free-resource timelines built for Filter and Score, ServersShared the
// calls that found the node's timeline already built in the same
// scheduling cycle (a Score after its Filter).
type Stats struct {
	ServersBuilt, ServersShared uint64
}

// Stats returns the plugin's counts so far.
func (pl *Plugin) Stats() Stats {
	return Stats{ServersBuilt: pl.counts.built.Load(), ServersShared: pl.counts.shared.Load()}
}

// serverOf returns node ni's server for cycle c, built on the cycle's
// first call for ni's node and generation.
func (pl *Plugin) serverOf(c *cycle, ni fwk.NodeInfo) *cycleServer {
	node := ni.Node()
	if node == nil {
		return &cycleServer{st: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, Name+": node not found")}
	}
	gen := ni.GetGeneration()
	c.servers.mu.Lock()
	s := c.servers.m[node.Name]
	if s != nil && s.gen == gen {
		c.servers.mu.Unlock()
		pl.counts.shared.Add(1)
		return s
	}
	s = c.servers.newServer(gen)
	c.servers.mu.Unlock()
	s.srv, s.node, s.st = pl.server(ni, c.now, c.uid, &s.free)
	pl.counts.built.Add(1)
	c.servers.mu.Lock()
	c.servers.m[node.Name] = s
	c.servers.mu.Unlock()
	return s
}

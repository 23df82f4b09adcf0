package binding_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
)

// The paper's Figure 3: a new ANode takes the most recent bindings from
// the largest stacks until it is as large as the smallest one.
func Example() {
	t, err := binding.New(binding.Config{Timeout: 30 * time.Second})
	if err != nil {
		panic(err)
	}
	now := time.Date(2015, 9, 22, 12, 0, 0, 0, time.UTC)
	gpu := []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Model: "Tesla K20m", Healthy: true}}

	for _, id := range []schedkit.NodeID{"a1", "a2"} {
		t.Add(now, binding.NodeStatus{ID: id, Rack: "rack1", Accelerators: gpu})
	}
	for _, id := range []schedkit.NodeID{"n1", "n2", "n3", "n4", "n5"} {
		t.Add(now, binding.NodeStatus{ID: id, Rack: "rack1"})
	}
	fmt.Println("a1:", t.Stack("a1", nil), "a2:", t.Stack("a2", nil))

	moves, err := t.Add(now, binding.NodeStatus{ID: "a3", Rack: "rack1", Accelerators: gpu})
	if err != nil {
		panic(err)
	}
	for _, m := range moves {
		fmt.Println("move", m)
	}
	anode, _ := t.Lookup("n5")
	fmt.Println("n5 sends its GPU tasks to", anode)

	// Only a3 keeps heartbeating; 30 s later every other node is dead.
	t.Heartbeat(now.Add(20*time.Second), binding.NodeStatus{ID: "a3", Rack: "rack1", Accelerators: gpu})
	dead, _ := t.Expire(now.Add(30 * time.Second))
	fmt.Println("dead:", dead)
	fmt.Println("loads:", t.Loads("rack1", nil))
	// Output:
	// a1: [n1 n3 n5] a2: [n2 n4]
	// move n5: a1 -> a3
	// move n3: a1 -> a3
	// n5 sends its GPU tasks to a3
	// dead: [a1 a2 n1 n2 n3 n4 n5]
	// loads: [{a3 0 0 1 0}]
}

// Container-level binding with rebalancing: the NNode's four containers
// spread over the three GPUs of the paper's Cluster4-3.
func ExampleConfig_containers() {
	t, _ := binding.New(binding.Config{Containers: true, Rebalance: true})
	now := time.Unix(0, 0)
	gpu := []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Healthy: true}}
	for _, id := range []schedkit.NodeID{"node1", "node2", "node3"} {
		t.Add(now, binding.NodeStatus{ID: id, Rack: "r", Accelerators: gpu, Containers: 4})
	}
	moves, _ := t.Add(now, binding.NodeStatus{ID: "node4", Rack: "r", Containers: 4})
	for _, m := range moves {
		fmt.Println(m)
	}
	// Output:
	// node4: - -> node1
	// node4/1: - -> node2
	// node4/2: - -> node3
	// node4/3: - -> node1
}

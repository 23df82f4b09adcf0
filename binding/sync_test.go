package binding

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
)

// TestSyncTableConcurrent runs heartbeat handlers, adds, removals, expiry
// and lookups on many goroutines at once (run with -race), then checks the
// table's invariants.
func TestSyncTableConcurrent(t *testing.T) {
	st, err := NewSyncTable(Config{Timeout: 50 * time.Millisecond, Rebalance: true, Containers: true})
	if err != nil {
		t.Fatal(err)
	}
	const workers, nodesPer = 8, 12
	rounds := 400
	if testing.Short() || raceEnabled {
		rounds = 100
	}
	var workerWG, expiry sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		workerWG.Add(1)
		go func(w int) {
			defer workerWG.Done()
			rack := schedkit.RackID(fmt.Sprintf("r%d", w%3))
			now := time.Unix(0, 0)
			for r := 0; r < rounds; r++ {
				now = now.Add(time.Millisecond)
				for i := 0; i < nodesPer; i++ {
					s := NodeStatus{ID: schedkit.NodeID(fmt.Sprintf("w%d-n%d", w, i)), Rack: rack, Containers: 1 + (r+i)%3}
					if i%4 == 0 {
						s.Accelerators = []schedkit.AcceleratorInfo{{ID: "g", Kind: "gpu", Healthy: (r/7+i)%5 != 0}}
					}
					var err error
					switch {
					case (r+i)%17 == 0:
						_, err = st.Remove(s.ID)
					case (r+i)%29 == 0:
						s.Rack = schedkit.RackID(fmt.Sprintf("r%d", (w+r)%3))
						_, err = st.Heartbeat(now, s)
					default:
						_, err = st.Heartbeat(now, s)
					}
					if errors.Is(err, ErrUnknownNode) {
						_, err = st.Add(now, s)
					}
					if err != nil {
						errc <- err
						return
					}
					if a, ok := st.Lookup(s.ID); ok && a == "" {
						errc <- fmt.Errorf("lookup %s: ok with empty ANode", s.ID)
						return
					}
					st.LookupContainer(s.ID, 1)
					st.Role(s.ID)
					st.Node(s.ID)
				}
			}
		}(w)
	}
	done := make(chan struct{})
	expiry.Add(1)
	go func() { // the expiry timer and a monitoring reader
		defer expiry.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			st.Expire(time.Unix(0, 0).Add(time.Duration(i) * time.Millisecond / 4))
			for _, r := range st.Racks(nil) {
				for _, l := range st.Loads(r, nil) {
					st.Stack(l.ANode, nil)
				}
				st.Waiting(r, nil)
			}
			st.Bindings(nil)
			st.Len()
		}
	}()
	workerWG.Wait()
	close(done)
	expiry.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.t.checkInternal(); err != nil {
		t.Fatal(err)
	}
}

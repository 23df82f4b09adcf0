package finegrained

import (
	"bytes"
	"testing"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/podtask"
)

// FuzzDecodeSnapshot: whatever a snapshot file holds, decoding it
// refuses it, leaving the History empty, or restores a History whose
// own snapshot decodes to the same; never a panic.
func FuzzDecodeSnapshot(f *testing.F) {
	f.Add([]byte(`{"format":"schedkit.io/finegrained-history","version":1,"kinds":["cpu","memory"],"bins":2,"smoothing":0.3,"minObservations":1,"entries":[{"logic":"x","observations":1,"duration":1e9,"slices":[1,2,3,4]}]}`))
	f.Add([]byte(`{"format":"schedkit.io/finegrained-history","version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := estimate.NewHistory(estimate.HistoryConfig{Space: podtask.Space(), Bins: 2, MinObservations: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeSnapshot(b, h); err != nil {
			if h.Len() != 0 {
				t.Fatalf("refused (%v) with %d keys kept", err, h.Len())
			}
			return
		}
		again, err := encodeSnapshot(h)
		if err != nil {
			t.Fatal(err)
		}
		h2, _ := estimate.NewHistory(h.Config())
		if err := decodeSnapshot(again, h2); err != nil {
			t.Fatalf("a History's own snapshot refused: %v", err)
		}
		if third, _ := encodeSnapshot(h2); !bytes.Equal(third, again) {
			t.Fatalf("snapshot round trip differs")
		}
	})
}

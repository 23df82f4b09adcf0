package finegrained_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
)

// TestHistorySnapshot (issue 35): a plugin's History written to its
// snapshot and read back by a new plugin (a restart) predicts as before:
// the same verdict and score for a pod of a learned key, where a plugin
// without it matches the pod by its request. A garbled, foreign or
// differently configured snapshot is refused with a log line and an
// empty History; the plugin starts all the same.
func TestHistorySnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.json")
	args := fmt.Sprintf(`{"historySnapshot":%q}`, path)
	learned := newPlugin(t, trainHistory(), args)
	learned.SaveHistory(context.Background())
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	q := mkPod("q", "train", list("1", "1Gi"))
	verdict := func(pl *finegrained.Plugin) string {
		_, st, score := cycle(t, pl, q, nodeInfo(running(mkPod("r", "train", list("1", "1Gi")), "n1", 0)))
		return fmt.Sprintf("%v %d", st, score)
	}
	want, forgot := verdict(learned), verdict(newPlugin(t, finegrained.Recording{}, ""))
	if want == forgot {
		t.Fatalf("learned and empty History decide alike (%s): the case shows nothing", want)
	}
	if got := verdict(newPlugin(t, finegrained.Recording{}, args)); got != want {
		t.Errorf("restarted plugin %s, before the restart %s", got, want)
	}

	good, _ := os.ReadFile(path)
	for name, content := range map[string]string{
		"garbled": string(good[:len(good)/2]),
		"foreign": `{"apiVersion":"v1","kind":"ConfigMap"}`,
		"version": strings.Replace(string(good), `"version":1`, `"version":7`, 1),
		"kinds":   strings.Replace(string(good), `"memory"`, `"gpu"`, 1),
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := verdict(newPlugin(t, finegrained.Recording{}, args)); got != forgot {
			t.Errorf("%s snapshot: %s, want an empty History's %s", name, got, forgot)
		}
	}
	// The refusal is logged.
	ctx, logged := logs(t)
	obj := &runtime.Unknown{ContentType: runtime.ContentTypeJSON, Raw: []byte(args)}
	if _, err := finegrained.NewWithFeed(&scriptedFeed{}, clocktesting.NewFakePassiveClock(now))(ctx, obj, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged(), "History snapshot refused: starting with an empty History") {
		t.Errorf("no log line for a refused snapshot:\n%s", logged())
	}
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	other := fmt.Sprintf(`{"historySnapshot":%q,"smoothing":0.5}`, path)
	if got := verdict(newPlugin(t, finegrained.Recording{}, other)); got != forgot {
		t.Errorf("snapshot of another smoothing: %s, want an empty History's %s", got, forgot)
	}
}

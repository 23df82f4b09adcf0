package apicheck

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite api/schedkit.txt from the packages")

// golden is the API file, relative to this package's directory.
var golden = filepath.Join("..", "..", "api", "schedkit.txt")

// TestAPI fails when the exported API of a public package differs from
// api/schedkit.txt. Regenerate it, after a deliberate change, with
// go test ./internal/apicheck -update.
func TestAPI(t *testing.T) {
	got, err := Render(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with go test ./internal/apicheck -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Fatalf("the exported API differs from api/schedkit.txt (-file +packages):\n%s\nIf the change is deliberate, run go test ./internal/apicheck -update and commit the file.", d)
	}
}

// The walk finds every public package and none of internal/.
func TestPublicDirs(t *testing.T) {
	dirs, err := PublicDirs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{".": true, "lss": true, "dbs": true, "fgm": true, "binding": true, "pipeline": true,
		"estimate": true, "resource": true, "schedkittest": true, "lss/lsstest": true, "binding/bindingtest": true, "pipeline/pipelinetest": true}
	for _, d := range dirs {
		if filepath.Base(d) == "internal" || len(d) >= 8 && d[:8] == "internal" {
			t.Errorf("internal directory %q listed", d)
		}
		delete(want, d)
	}
	for d := range want {
		t.Errorf("public package %q not found", d)
	}
}

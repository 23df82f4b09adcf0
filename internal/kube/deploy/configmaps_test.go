package deploy_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite configmaps.yaml from the profiles")

// profiles are the ConfigMaps of configmaps.yaml: name (the profile's
// schedulerName, and its Deployment's) and the profile file it holds.
var profiles = []struct{ name, file string }{
	{"schedkit", "profile.yaml"},
	{"schedkit-fgm", "profile-fgm.yaml"},
	{"schedkit-dbs", "profile-dbs.yaml"},
}

// configMaps renders configmaps.yaml from the profile files.
func configMaps(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString("# One ConfigMap per profile of cmd/schedkit-scheduler, the file verbatim\n" +
		"# under config.yaml. Generated: edit the profiles, then run\n" +
		"#   go test ./deploy -run TestConfigMaps -update\n")
	for i, p := range profiles {
		src, err := os.ReadFile(filepath.Join("..", "cmd", "schedkit-scheduler", p.file))
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: schedkit\ndata:\n  config.yaml: |\n", p.name)
		for _, line := range strings.SplitAfter(strings.TrimRight(string(src), "\n")+"\n", "\n") {
			if line == "" {
				continue
			}
			if line == "\n" {
				b.WriteString(line)
				continue
			}
			b.WriteString("    " + line)
		}
	}
	return b.Bytes()
}

// configmaps.yaml holds the profiles as they are in cmd/schedkit-scheduler.
func TestConfigMaps(t *testing.T) {
	want := configMaps(t)
	if *update {
		if err := os.WriteFile("configmaps.yaml", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("configmaps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("configmaps.yaml differs from the profiles: go test ./deploy -run TestConfigMaps -update")
	}
}

// Package deploy holds the manifests that run schedkit-scheduler in a
// cluster, as a user applies them:
//
//	kubectl apply -f namespace.yaml -f rbac.yaml -f configmaps.yaml -f deployment.yaml -f slots.yaml
//
// namespace.yaml (namespace schedkit, ServiceAccount
// schedkit-scheduler), rbac.yaml (every permission the shipped profiles
// need, nothing more), configmaps.yaml (one ConfigMap per profile,
// generated from cmd/schedkit-scheduler/profile*.yaml by TestConfigMaps
// -update), deployment.yaml (one Deployment per profile) and slots.yaml
// (schedkit-slots, which advertises nodes' slots from their labels, with
// its own ServiceAccount and permissions). optional/
// has the permissions only some plugin args need. The files are
// embedded so that the tests apply exactly what a user applies.
package deploy

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// Files are the manifests, by file name (Order), and optional/.
//
//go:embed namespace.yaml rbac.yaml configmaps.yaml deployment.yaml slots.yaml optional/*.yaml
var Files embed.FS

// Order lists the manifests a user applies, in the order to apply them.
var Order = []string{"namespace.yaml", "rbac.yaml", "configmaps.yaml", "deployment.yaml", "slots.yaml"}

// Objects decodes the objects of the named files (Order if none), in
// file order and document order.
func Objects(names ...string) ([]*unstructured.Unstructured, error) {
	if len(names) == 0 {
		names = Order
	}
	var out []*unstructured.Unstructured
	for _, name := range names {
		b, err := Files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var m map[string]any
			if err := d.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(m) == 0 {
				continue // an empty document
			}
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out, nil
}

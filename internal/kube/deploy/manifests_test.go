package deploy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/schedkit/schedkit/internal/kube/deploy"
)

// decodeAll decodes every object of the manifests strictly (unknown or
// duplicate fields are errors) into its typed Go value.
func decodeAll(t *testing.T, names ...string) []runtime.Object {
	t.Helper()
	objs, err := deploy.Objects(names...)
	if err != nil {
		t.Fatal(err)
	}
	dec := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var out []runtime.Object
	for _, u := range objs {
		b, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := dec.Decode(b, nil, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
		out = append(out, o)
	}
	return out
}

// The manifests decode strictly; every ConfigMap's profile loads and
// validates with kube-scheduler's own loader; every Deployment runs as
// the shipped ServiceAccount, mounts its own profile and serves on a
// port of its own; every binding names that ServiceAccount.
func TestManifests(t *testing.T) {
	objs := decodeAll(t)
	decodeAll(t, "optional/rbac-delete-hopeless.yaml", "optional/rbac-queue-annotation.yaml")
	var sa *v1.ServiceAccount
	cms := map[string]*v1.ConfigMap{}
	var deps []*appsv1.Deployment
	for _, o := range objs {
		switch o := o.(type) {
		case *v1.ServiceAccount:
			if o.Name == "schedkit-scheduler" {
				sa = o
			}
		case *v1.ConfigMap:
			cms[o.Name] = o
		case *appsv1.Deployment:
			if o.Name != "schedkit-slots" {
				deps = append(deps, o)
			}
		case *rbacv1.ClusterRoleBinding:
			checkSubjects(t, o.Name, o.Subjects)
		case *rbacv1.RoleBinding:
			checkSubjects(t, o.Name, o.Subjects)
		}
	}
	if sa == nil || sa.Namespace != "schedkit" || sa.Name != "schedkit-scheduler" {
		t.Fatalf("no ServiceAccount schedkit/schedkit-scheduler: %v", sa)
	}
	if len(deps) != len(profiles) || len(cms) != len(profiles) {
		t.Fatalf("%d Deployments and %d ConfigMaps for %d profiles", len(deps), len(cms), len(profiles))
	}
	var ports []string
	for _, d := range deps {
		spec := d.Spec.Template.Spec
		if spec.ServiceAccountName != sa.Name || d.Namespace != sa.Namespace {
			t.Errorf("Deployment %s runs as %s/%s", d.Name, d.Namespace, spec.ServiceAccountName)
		}
		cm := cms[spec.Volumes[0].ConfigMap.Name]
		if cm == nil || cm.Name != d.Name {
			t.Errorf("Deployment %s mounts ConfigMap %s", d.Name, spec.Volumes[0].ConfigMap.Name)
			continue
		}
		args := spec.Containers[0].Args
		if !slices.Contains(args, "--config=/etc/schedkit/config.yaml") {
			t.Errorf("Deployment %s: args %q", d.Name, args)
		}
		for _, a := range args {
			if p, ok := strings.CutPrefix(a, "--secure-port="); ok {
				ports = append(ports, p)
			}
		}
		f := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(f, []byte(cm.Data["config.yaml"]), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := options.LoadConfigFromFile(klog.TODO(), f)
		if err != nil {
			t.Errorf("ConfigMap %s: %v", cm.Name, err)
			continue
		}
		if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
			t.Errorf("ConfigMap %s: %v", cm.Name, err)
		}
		if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != d.Name {
			t.Errorf("ConfigMap %s: profiles %v", cm.Name, cfg.Profiles)
		}
		if cfg.ClientConnection.Kubeconfig != "" {
			t.Errorf("ConfigMap %s: kubeconfig %q, want in-cluster", cm.Name, cfg.ClientConnection.Kubeconfig)
		}
		if cfg.LeaderElection.ResourceNamespace != sa.Namespace {
			t.Errorf("ConfigMap %s: lease in %s", cm.Name, cfg.LeaderElection.ResourceNamespace)
		}
	}
	slices.Sort(ports)
	if len(slices.Compact(ports)) != len(deps) || slices.Contains(ports, "10259") {
		t.Errorf("secure ports %v: want one per Deployment, none kube-scheduler's 10259", ports)
	}
}

func checkSubjects(t *testing.T, name string, subjects []rbacv1.Subject) {
	t.Helper()
	if len(subjects) != 1 || subjects[0].Kind != "ServiceAccount" || subjects[0].Namespace != "schedkit" ||
		subjects[0].Name != "schedkit-scheduler" && subjects[0].Name != "schedkit-slots" {
		t.Errorf("binding %s: subjects %v", name, subjects)
	}
}

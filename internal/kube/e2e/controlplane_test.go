package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/schedkit/schedkit/internal/kube/deploy"
)

// bins are the binaries the e2e runs, built once by TestMain.
type bins struct{ etcd, apiserver, scheduler string }

// buildTimes records how long each build took (the e2e logs them).
var buildTimes = map[string]time.Duration{}

// build compiles etcd (its own module, e2e/etcd), kube-apiserver (from
// this module's go.mod, the pinned release, so it shares compiled
// packages with the scheduler) and schedkit-scheduler with the README's
// version flags, into dir.
func build(dir string) (bins, error) {
	b := bins{etcd: filepath.Join(dir, "etcd"), apiserver: filepath.Join(dir, "kube-apiserver"), scheduler: filepath.Join(dir, "schedkit-scheduler")}
	version, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	if err != nil {
		return b, fmt.Errorf("go list: %w", err)
	}
	ldflags := "-X k8s.io/component-base/version.gitVersion=" + strings.TrimSpace(string(version))
	for _, step := range []struct {
		name, dir string
		args      []string
	}{
		{"schedkit-scheduler", "..", []string{"build", "-ldflags", ldflags, "-o", b.scheduler, "./cmd/schedkit-scheduler"}},
		{"kube-apiserver", "..", []string{"build", "-o", b.apiserver, "k8s.io/kubernetes/cmd/kube-apiserver"}},
		{"etcd", "etcd", []string{"build", "-o", b.etcd, "."}},
	} {
		start := time.Now()
		cmd := exec.Command("go", step.args...)
		cmd.Dir = step.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("building %s: %v\n%s", step.name, err, out)
		}
		buildTimes[step.name] = time.Since(start)
	}
	return b, nil
}

// freePort returns a TCP port free on 127.0.0.1 now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// process is a binary the test started; stop kills it.
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	port int // a scheduler's secure port (/metrics)
}

// start runs bin with args, its output in dir/name.log, killed when the
// test ends.
func start(t *testing.T, dir, name, bin string, args ...string) *process {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &process{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 12000 {
				b = b[len(b)-12000:]
			}
			t.Logf("%s log tail:\n%s", name, b)
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// logLines returns the lines of the process's log containing s.
func (p *process) logLines(s string) []string {
	b, _ := os.ReadFile(p.log)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// cluster is a control plane the test started: etcd and kube-apiserver
// on 127.0.0.1, RBAC on, the aggregation layer's front proxy, and an
// admin client.
type cluster struct {
	dir        string
	url        string
	admin      *rest.Config
	client     kubernetes.Interface
	frontProxy *frontProxy
}

const adminToken = "schedkit-e2e-admin"

// startCluster starts etcd and kube-apiserver and waits until the API
// server is ready. The loopback API server runs with
// --endpoint-reconciler-type=none (it cannot advertise 127.0.0.1 as the
// kubernetes Service's endpoint) and with the aggregation layer's
// front-proxy flags (requestheader CA, allowed names and headers, proxy
// client certificate): they let it proxy metrics.k8s.io to the stub, and
// make it publish the ConfigMap kube-system/extension-apiserver-authentication
// which the schedulers' delegated authentication reads (without them the
// ConfigMap does not exist and every scheduler logs that it is not found).
func startCluster(t *testing.T, b bins) *cluster {
	t.Helper()
	dir := t.TempDir()
	cp, pp := freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(cp)
	peer := "http://127.0.0.1:" + strconv.Itoa(pp)
	start(t, dir, "etcd", b.etcd, "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "default="+peer,
		"--listen-metrics-urls", "http://127.0.0.1:"+strconv.Itoa(freePort(t)), "--log-level", "warn")

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminToken+`,admin,admin-uid,"system:masters"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fp := newFrontProxy(t, dir)
	ap := freePort(t)
	start(t, dir, "kube-apiserver", b.apiserver, append([]string{
		"--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ap), "--cert-dir", filepath.Join(dir, "certs"),
		"--service-cluster-ip-range", "10.0.0.0/24", "--endpoint-reconciler-type", "none",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", keyFile,
		"--service-account-signing-key-file", keyFile, "--token-auth-file", tokens,
		"--authorization-mode", "RBAC", "--enable-priority-and-fairness=false", "--profiling=false"},
		append(fp.apiserverFlags(), "--client-ca-file", writeClientCA(t, dir))...)...)
	c := &cluster{dir: dir, url: "https://127.0.0.1:" + strconv.Itoa(ap), frontProxy: fp}
	c.admin = &rest.Config{Host: c.url, BearerToken: adminToken, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 100, Burst: 200}
	c.client = kubernetes.NewForConfigOrDie(c.admin)
	ctx := context.Background()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		body, err := c.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && bytes.Equal(body, []byte("ok")), nil
	})
	if err != nil {
		t.Fatalf("kube-apiserver not ready: %v", err)
	}
	return c
}

// apply creates the objects of the shipped manifests, verbatim, in the
// order a user applies them.
func (c *cluster) apply(t *testing.T) {
	t.Helper()
	objs, err := deploy.Objects()
	if err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(c.admin)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.client.Discovery()))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		var ri dynamic.ResourceInterface = dc.Resource(m.Resource)
		if o.GetNamespace() != "" {
			ri = dc.Resource(m.Resource).Namespace(o.GetNamespace())
		}
		if _, err := ri.Create(context.Background(), o, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
			t.Fatalf("applying %s %s/%s: %v", gvk.Kind, o.GetNamespace(), o.GetName(), err)
		}
	}
}

// namespace creates a namespace and its default ServiceAccount (no
// controller manager runs to create it).
func (c *cluster) namespace(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.client.CoreV1().ServiceAccounts(name).Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// kubeconfigFor writes a kubeconfig that authenticates as the
// ServiceAccount ns/name (a token from the TokenRequest API).
func (c *cluster) kubeconfigFor(t *testing.T, ns, name string) (string, *rest.Config) {
	t.Helper()
	exp := int64(3600)
	tr, err := c.client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s/%s: %v", ns, name, err)
	}
	path := filepath.Join(c.dir, ns+"-"+name+".kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: sa, user: {token: %q}}]
contexts: [{name: e2e, context: {cluster: e2e, user: sa}}]
current-context: e2e
`, c.url, tr.Status.Token)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, &rest.Config{Host: c.url, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

// scheduler starts schedkit-scheduler with the profile of the applied
// ConfigMap schedkit/name, as the shipped ServiceAccount: the profile's
// one edit is the README's, its kubeconfig line.
func (c *cluster) scheduler(t *testing.T, b bins, name string) *process {
	t.Helper()
	return c.replica(t, b, name, name)
}

// replica is scheduler with the log dir/logName.log: a second replica
// of the profile of ConfigMap name.
func (c *cluster) replica(t *testing.T, b bins, name, logName string) *process {
	t.Helper()
	cm, err := c.client.CoreV1().ConfigMaps("schedkit").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, _ := c.kubeconfigFor(t, "schedkit", "schedkit-scheduler")
	profile := cm.Data["config.yaml"]
	// As the README's sed: every line's `kubeconfig: ""` (the header
	// comment quotes it too).
	edited := strings.ReplaceAll(profile, `kubeconfig: ""`, "kubeconfig: "+kubeconfig)
	if edited == profile {
		t.Fatalf("ConfigMap %s has no kubeconfig line to edit", name)
	}
	// The Deployment's volume for FineGrained's History snapshot.
	edited = strings.ReplaceAll(edited, "/var/lib/schedkit/", c.dir+"/")
	cfg := filepath.Join(c.dir, logName+".yaml")
	if err := os.WriteFile(cfg, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	p := start(t, c.dir, logName, b.scheduler, "--config="+cfg, "--secure-port="+strconv.Itoa(port),
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig)
	p.port = port
	return p
}

// checkLogs fails the test if a scheduler's log shows a refused request
// or a configuration it could not load.
func checkLogs(t *testing.T, procs map[string]*process) {
	t.Helper()
	for name, p := range procs {
		for _, bad := range []string{"forbidden", "no configuration has been provided", "address already in use",
			`"extension-apiserver-authentication" not found`, "missing content for CA bundle"} {
			if l := p.logLines(bad); len(l) > 0 {
				t.Errorf("%s's log has %q:\n%s", name, bad, strings.Join(l, "\n"))
			}
		}
	}
}

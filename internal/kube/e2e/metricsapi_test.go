package e2e_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// The aggregation layer's front proxy: kube-apiserver authenticates to
// an aggregated API server with a client certificate of frontProxyName
// signed by the front-proxy CA, and passes the user in request headers,
// which the aggregated server trusts only from that certificate (what
// kubeadm, kind and metrics-server's documentation set up).
const frontProxyName = "front-proxy-client"

// frontProxy is the front-proxy CA and client certificate, as files for
// kube-apiserver's flags and as a pool for the stub's TLS.
type frontProxy struct {
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
}

// newCA returns a self-signed CA named cn: its certificate (parsed and
// DER) and key.
func newCA(t *testing.T, cn string) (*x509.Certificate, []byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca, der, key
}

// writeClientCA writes a CA for kube-apiserver's --client-ca-file into
// dir and returns the file. No client presents a certificate it signs
// (the test authenticates with tokens), but a cluster always has one,
// and without it the ConfigMap the schedulers' delegated authentication
// reads has no client-ca-file, which each of them logs every few
// seconds ("missing content for CA bundle").
func writeClientCA(t *testing.T, dir string) string {
	t.Helper()
	_, der, _ := newCA(t, "client-ca")
	file := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// newFrontProxy writes a front-proxy CA and a client certificate
// (CN frontProxyName) it signs into dir.
func newFrontProxy(t *testing.T, dir string) *frontProxy {
	t.Helper()
	ca, caDER, caKey := newCA(t, "front-proxy-ca")
	now := time.Now()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: frontProxyName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	fp := &frontProxy{caFile: filepath.Join(dir, "front-proxy-ca.crt"), certFile: filepath.Join(dir, "front-proxy-client.crt"),
		keyFile: filepath.Join(dir, "front-proxy-client.key"), pool: x509.NewCertPool()}
	fp.pool.AddCert(ca)
	for file, b := range map[string]*pem.Block{fp.caFile: {Type: "CERTIFICATE", Bytes: caDER},
		fp.certFile: {Type: "CERTIFICATE", Bytes: der}, fp.keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return fp
}

// apiserverFlags are kube-apiserver's aggregation-layer flags for fp.
func (fp *frontProxy) apiserverFlags() []string {
	return []string{
		"--requestheader-client-ca-file", fp.caFile,
		"--requestheader-allowed-names", frontProxyName,
		"--requestheader-username-headers", "X-Remote-User",
		"--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", fp.certFile,
		"--proxy-client-key-file", fp.keyFile,
	}
}

// metricsStub is a stand-in for metrics-server: metrics.k8s.io/v1beta1
// NodeMetrics and PodMetrics from what the test sets, over HTTPS, to
// kube-apiserver's front proxy only (its client certificate is
// required). Every sample is stamped with the time it is served, as
// metrics-server's latest scrape would be.
type metricsStub struct {
	srv *httptest.Server

	mu    sync.Mutex
	nodes map[string]v1.ResourceList                      // node → usage
	pods  map[[2]string][]metricsv1beta1.ContainerMetrics // namespace, name → containers' usage
	reads []metricsRead
}

// metricsRead is one request the stub answered: the user the front
// proxy named and the path.
type metricsRead struct {
	user, path string
	at         time.Time
}

func startMetricsStub(t *testing.T, fp *frontProxy) *metricsStub {
	t.Helper()
	m := &metricsStub{nodes: map[string]v1.ResourceList{}, pods: map[[2]string][]metricsv1beta1.ContainerMetrics{}}
	m.srv = httptest.NewUnstartedServer(http.HandlerFunc(m.serve))
	m.srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: fp.pool}
	m.srv.StartTLS()
	t.Cleanup(m.srv.Close)
	return m
}

// port is the stub's port on 127.0.0.1.
func (m *metricsStub) port() int32 {
	return int32(m.srv.Listener.Addr().(*net.TCPAddr).Port)
}

const metricsGV = "/apis/metrics.k8s.io/v1beta1"

func (m *metricsStub) serve(w http.ResponseWriter, r *http.Request) {
	// The user is trusted only from the front proxy's certificate (TLS
	// already required one the CA signed).
	user := ""
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 && r.TLS.PeerCertificates[0].Subject.CommonName == frontProxyName {
		user = r.Header.Get("X-Remote-User")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads = append(m.reads, metricsRead{user: user, path: r.URL.Path, at: time.Now()})
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	window := metav1.Duration{Duration: 15 * time.Second}
	var body any
	switch path := r.URL.Path; {
	case path == metricsGV:
		body = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "metrics.k8s.io/v1beta1",
			APIResources: []metav1.APIResource{
				{Name: "nodes", Kind: "NodeMetrics", Verbs: metav1.Verbs{"get", "list"}},
				{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: metav1.Verbs{"get", "list"}},
			}}
	case path == metricsGV+"/nodes":
		l := &metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: "metrics.k8s.io/v1beta1"}}
		for name, u := range m.nodes {
			l.Items = append(l.Items, metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: name}, Timestamp: now, Window: window, Usage: u.DeepCopy()})
		}
		body = l
	case path == metricsGV+"/pods" || strings.HasPrefix(path, metricsGV+"/namespaces/") && strings.HasSuffix(path, "/pods"):
		ns := strings.TrimSuffix(strings.TrimPrefix(path, metricsGV+"/namespaces/"), "/pods")
		if path == metricsGV+"/pods" {
			ns = ""
		}
		l := &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1"}}
		for k, cs := range m.pods {
			if ns != "" && k[0] != ns {
				continue
			}
			pm := metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: k[0], Name: k[1]}, Timestamp: now, Window: window}
			for _, c := range cs {
				pm.Containers = append(pm.Containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: c.Usage.DeepCopy()})
			}
			l.Items = append(l.Items, pm)
		}
		body = l
	case path == "/openapi/v2":
		// The aggregator merges every aggregated server's OpenAPI (and
		// logs an error each retry for a server that serves none).
		body = map[string]any{"swagger": "2.0", "info": map[string]any{"title": "metrics stub", "version": "v1beta1"}, "paths": map[string]any{}}
	case path == "/openapi/v3":
		body = map[string]any{"paths": map[string]any{}}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// setNode sets a node's usage; setPod a pod's, per container.
func (m *metricsStub) setNode(name string, u v1.ResourceList) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes[name] = u
}

func (m *metricsStub) setPod(ns, name string, containers ...metricsv1beta1.ContainerMetrics) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pods[[2]string{ns, name}] = containers
}

// registerMetrics serves the stub as metrics.k8s.io/v1beta1 through the
// aggregation layer: an APIService for the Service metrics/metrics-server,
// of type ExternalName "localhost" — an Endpoints or EndpointSlice
// address may not be a loopback address (API validation), so
// --enable-aggregator-routing cannot reach a server on 127.0.0.1, while
// the aggregator's default (service) routing resolves an ExternalName
// Service to its name. It waits until the APIService is Available.
func (c *cluster) registerMetrics(t *testing.T, m *metricsStub) {
	t.Helper()
	ctx := context.Background()
	c.namespace(t, "metrics")
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "metrics", Name: "metrics-server"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []v1.ServicePort{{Name: "https", Port: m.port()}}}}
	if _, err := c.client.CoreV1().Services("metrics").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Through the dynamic client (no typed kube-aggregator client in
	// this module's requirements).
	apiSvc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1beta1.metrics.k8s.io"},
		"spec": map[string]any{"group": "metrics.k8s.io", "version": "v1beta1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": "metrics", "name": "metrics-server", "port": int64(m.port())}},
	}}
	res := dynamic.NewForConfigOrDie(c.admin).Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
	if _, err := res.Create(ctx, apiSvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := res.Get(ctx, apiSvc.GetName(), metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			cond, _ := c.(map[string]any)
			if cond["type"] == "Available" {
				last = fmt.Sprint(cond["reason"], ": ", cond["message"])
				return cond["status"] == "True", nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("APIService v1beta1.metrics.k8s.io not Available: %s", last)
	}
}

// schedulerUser is the shipped ServiceAccount the schedulers run as.
const schedulerUser = "system:serviceaccount:schedkit:schedkit-scheduler"

// waitFeedRead waits until the FineGrained scheduler's metrics feed has
// read the stub after now (NodeMetrics, then PodMetrics, as one read
// does), through the aggregation layer as the shipped ServiceAccount.
func (c *cluster) waitFeedRead(t *testing.T, m *metricsStub) {
	t.Helper()
	since := time.Now()
	waitFor(t, "a metrics feed read as "+schedulerUser, 40*time.Second, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		var nodes time.Time
		for _, r := range m.reads {
			if r.user != schedulerUser || r.at.Before(since) {
				continue
			}
			switch {
			case r.path == metricsGV+"/nodes" && nodes.IsZero():
				nodes = r.at
			case r.path == metricsGV+"/pods" && !nodes.IsZero():
				return true
			}
		}
		return false
	})
	time.Sleep(200 * time.Millisecond) // the read's samples reach the plugin
}

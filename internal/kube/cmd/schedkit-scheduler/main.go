// Command schedkit-scheduler is kube-scheduler with schedkit's plugins
// registered out of tree. It takes every flag of kube-scheduler; run it
// with --config pointing at a KubeSchedulerConfiguration that enables
// the plugins in a profile. Beside this file: profile.yaml runs it as a
// second scheduler named "schedkit" (LeastSpareTime), profile-fgm.yaml as
// one named "schedkit-fgm" (FineGrained), profile-dbs.yaml as one named
// "schedkit-dbs" (DeadlineBudget). Each is a separate process of this
// binary: kube-scheduler requires every profile of one scheduler to share
// its queueSort plugin (FineGrained has none and could join either).
// In a cluster, ../../deploy runs each as a Deployment.
//
// Build it with the Kubernetes release it is built on as its version
// (a plain go build reports v0.0.0-master+$Format:%H$, which is not a
// release version; kube-scheduler's version can only be set at link
// time, and version.SetDynamicVersion only within v0.0.0):
//
//	go build -ldflags "-X k8s.io/component-base/version.gitVersion=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)" ./cmd/schedkit-scheduler
//
// Run it out of a cluster with the kubeconfig named in the profile
// (kube-scheduler ignores --kubeconfig when --config is given) and a
// secure port of its own (each profile's header comment gives both):
//
//	sed 's|kubeconfig: ""|kubeconfig: '$HOME/.kube/config'|' profile.yaml > /tmp/schedkit.yaml
//	./schedkit-scheduler --config /tmp/schedkit.yaml --secure-port=10261 \
//	  --authentication-kubeconfig ~/.kube/config --authorization-kubeconfig ~/.kube/config
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as kube-scheduler
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/schedkit/schedkit/internal/kube/deadlinebudget"
	"github.com/schedkit/schedkit/internal/kube/finegrained"
	"github.com/schedkit/schedkit/internal/kube/leastsparetime"
)

func main() {
	command := app.NewSchedulerCommand(
		app.WithPlugin(leastsparetime.Name, leastsparetime.New),
		app.WithPlugin(deadlinebudget.Name, deadlinebudget.New),
		app.WithPlugin(finegrained.Name, finegrained.New),
	)
	os.Exit(cli.Run(command))
}

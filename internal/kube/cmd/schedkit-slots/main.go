// Command schedkit-slots makes nodes advertise the Hadoop-1 slots that
// schedkit-scheduler's LeastSpareTime and DeadlineBudget profiles count:
// it keeps each node's status capacity and allocatable of
// schedkit.io/map-slot and schedkit.io/reduce-slot equal to its labels
// schedkit.io/map-slots and schedkit.io/reduce-slots, and restores them
// when a kubelet resets them (package slots). In a cluster it runs as
// the Deployment of deploy/slots.yaml; out of one:
//
//	schedkit-slots --kubeconfig ~/.kube/config
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/schedkit/schedkit/internal/kube/slots"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty: the in-cluster service account")
	klog.InitFlags(nil)
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.ErrorS(err, "Loading the client configuration")
		os.Exit(1)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		klog.ErrorS(err, "Creating the client")
		os.Exit(1)
	}
	slots.NewController(cs).Run(ctx)
}

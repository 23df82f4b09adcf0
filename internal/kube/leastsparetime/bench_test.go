package leastsparetime

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/internal/kube/kubetest"
	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// BenchmarkNodeStatusReport is the CPU one node's status report costs
// the plugin with 19,000 pods pending (190 Jobs of 100) on 100 nodes:
// the informer's update handler (a heartbeat's time changes, nothing lss
// reads), then the view the scheduling queue's next Less or PreEnqueue
// asks for. A cluster's nodes report all the time (5,000 nodes, one
// report each every few seconds), so this is paid per report.
func BenchmarkNodeStatusReport(b *testing.B) {
	fx := newFixture(b)
	for i := range 100 {
		fx.cache.Add(b, node(fmt.Sprintf("n%03d", i), 32, 4))
	}
	for j := range 190 {
		name := fmt.Sprintf("j%03d", j)
		fx.cache.Add(b, job(name, time.Duration(j)*time.Second, podjob.AnnotationRelativeDeadline, fmt.Sprintf("%ds", 600+j)))
		for i := range 100 {
			fx.cache.Add(b, pod(fmt.Sprintf("%s-%03d", name, i), name, time.Duration(j)*time.Second, kubetest.Slot))
		}
	}
	fx.pl.host.Changed()
	n, _ := fx.pl.host.Lis.Nodes.Get("n000")
	fx.pl.current(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		report := n.DeepCopy()
		report.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(now.Add(time.Duration(i) * time.Millisecond))
		fx.cache.Update(b, report)
		if !fx.pl.take(n, report) { // the informer's handler (podjob.Hooks)
			fx.pl.host.Changed()
		}
		fx.pl.current(nil)
		n = report
	}
}

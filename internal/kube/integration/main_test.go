package integration_test

import (
	"flag"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain lets klog's flags (-v, -logtostderr) be passed after -args,
// and writes BenchmarkThroughput's results with -kube.update.
func TestMain(m *testing.M) {
	klog.InitFlags(nil)
	flag.Parse()
	code := m.Run()
	if err := writeThroughputFile(); err != nil {
		klog.ErrorS(err, "Writing "+throughputFile)
		code = 1
	}
	os.Exit(code)
}

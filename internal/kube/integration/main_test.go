package integration_test

import (
	"flag"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain lets klog's flags (-v, -logtostderr) be passed after -args.
func TestMain(m *testing.M) {
	klog.InitFlags(nil)
	flag.Parse()
	os.Exit(m.Run())
}

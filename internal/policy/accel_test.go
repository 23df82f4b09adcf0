package policy

import (
	"errors"
	"testing"

	"github.com/schedkit/schedkit/binding"
)

// NewAccel refuses a cluster without nodes or containers (ErrConfig) and
// passes an invalid binding configuration's error through.
func TestNewAccelConfig(t *testing.T) {
	if _, err := NewAccel(AccelConfig{Containers: 0}, 4); !errors.Is(err, ErrConfig) {
		t.Errorf("zero containers: %v", err)
	}
	if _, err := NewAccel(AccelConfig{Containers: 1}, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("zero nodes: %v", err)
	}
	if _, err := NewAccel(AccelConfig{Containers: 1, Binding: binding.Config{Timeout: -1}}, 2); err == nil || errors.Is(err, ErrConfig) {
		t.Errorf("invalid binding config: %v", err)
	}
	p, err := NewAccel(AccelConfig{Name: "paper", Containers: 2}, 2)
	if err != nil || p.Name() != "paper" {
		t.Fatalf("%v, %v", p, err)
	}
}

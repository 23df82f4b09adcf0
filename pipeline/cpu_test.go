package pipeline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/pipeline"
)

func TestCPU(t *testing.T) {
	for _, c := range []struct {
		acc  pipeline.CPU
		want schedkit.AcceleratorID
	}{{pipeline.CPU{}, "cpu"}, {pipeline.CPU{ID: "cpu3"}, "cpu3"}} {
		info := c.acc.Info()
		if err := info.Validate(); err != nil || info.ID != c.want || info.Kind != schedkit.AcceleratorCPU || !info.Healthy {
			t.Errorf("Info() = %+v (%v), want valid healthy cpu %q", info, err, c.want)
		}
	}

	errWork := errors.New("work failed")
	called := 0
	work := func(context.Context) error { called++; return errWork }
	if err := (pipeline.CPU{}).Run(context.Background(), work); !errors.Is(err, errWork) || called != 1 {
		t.Errorf("Run = %v after %d calls, want work's error after 1", err, called)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (pipeline.CPU{}).Run(ctx, work); !errors.Is(err, context.Canceled) || called != 1 {
		t.Errorf("Run on a done context = %v, work called %d times; want Canceled, not called", err, called)
	}
}

package pipeline

import (
	"context"

	"github.com/schedkit/schedkit"
)

// CPU is an Accelerator that runs work on the calling goroutine: the host
// processor standing in for a device, for tests and for nodes without
// accelerators. Any number of Run calls may overlap. The zero value is
// ready to use.
type CPU struct {
	// ID names the device in Info and in Result.Device; empty means
	// "cpu".
	ID schedkit.AcceleratorID
}

var _ schedkit.Accelerator = CPU{}

// Info reports a healthy CPU device of weight 1.
func (c CPU) Info() schedkit.AcceleratorInfo {
	id := c.ID
	if id == "" {
		id = "cpu"
	}
	return schedkit.AcceleratorInfo{
		ID:      id,
		Kind:    schedkit.AcceleratorCPU,
		Model:   "host CPU",
		Weight:  1,
		Healthy: true,
	}
}

// Run calls work(ctx) and returns its error; if ctx is already done it
// returns ctx.Err() without calling work.
func (CPU) Run(ctx context.Context, work func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return work(ctx)
}

package schedkit

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// AcceleratorKind names a family of accelerator devices.
type AcceleratorKind string

// Common accelerator kinds. Hosts may use others.
const (
	AcceleratorGPU  AcceleratorKind = "gpu"  // graphics processor (CUDA, ROCm...)
	AcceleratorMIC  AcceleratorKind = "mic"  // Intel Many Integrated Core (Xeon Phi)
	AcceleratorFPGA AcceleratorKind = "fpga" // field-programmable gate array
	AcceleratorCPU  AcceleratorKind = "cpu"  // host processor standing in for a device
)

// ErrInvalidAccelerator is wrapped by errors from AcceleratorInfo.Validate.
var ErrInvalidAccelerator = errors.New("schedkit: invalid accelerator info")

// AcceleratorInfo is the status of one accelerator as a node reports it in
// its heartbeat. binding reads kind, weight and health; hosts may fill the
// rest for display.
type AcceleratorInfo struct {
	ID     AcceleratorID
	Kind   AcceleratorKind
	Model  string // e.g. "Tesla K20m"
	Memory int64  // device memory in bytes
	// Weight is the device's relative performance (the paper-001 §5
	// "weight table"): 1 is the reference device, 2 twice as fast. Zero
	// means unknown and is read as 1.
	Weight float64
	// Utilisation is the busy fraction in [0, 1] over the last interval.
	Utilisation float64
	// Healthy is false when the device is unusable (driver error, ECC
	// failure, thermal shutdown...).
	Healthy bool
}

// EffectiveWeight returns Weight, or 1 when Weight is zero.
func (a AcceleratorInfo) EffectiveWeight() float64 {
	if a.Weight == 0 {
		return 1
	}
	return a.Weight
}

// Validate checks for an empty ID or kind, negative memory, a NaN,
// infinite or negative weight, and utilisation outside [0, 1].
func (a AcceleratorInfo) Validate() error {
	switch {
	case a.ID == "":
		return fmt.Errorf("%w: empty ID", ErrInvalidAccelerator)
	case a.Kind == "":
		return fmt.Errorf("%w: %s: empty kind", ErrInvalidAccelerator, a.ID)
	case a.Memory < 0:
		return fmt.Errorf("%w: %s: negative memory %d", ErrInvalidAccelerator, a.ID, a.Memory)
	case math.IsNaN(a.Weight) || math.IsInf(a.Weight, 0) || a.Weight < 0:
		return fmt.Errorf("%w: %s: weight %v", ErrInvalidAccelerator, a.ID, a.Weight)
	case math.IsNaN(a.Utilisation) || a.Utilisation < 0 || a.Utilisation > 1:
		return fmt.Errorf("%w: %s: utilisation %v", ErrInvalidAccelerator, a.ID, a.Utilisation)
	}
	return nil
}

// Accelerator is a device that can run work: the processing stage of the
// accelerator pipeline (paper 001 §2.4) hands each task to one. A CPU
// implementation simply calls work; a GPU one would bind its device
// context or stream around the call.
type Accelerator interface {
	// Info returns the device's current status.
	Info() AcceleratorInfo
	// Run executes work on the device and returns work's error. Run is
	// synchronous: it must not return while work is running, nor call
	// work after it has returned, so the caller may reuse whatever work
	// touches as soon as Run returns. An implementation that gives up on
	// ctx before starting work returns ctx.Err() without calling work;
	// once started, work sees ctx and decides how to stop. Run may be
	// called from several goroutines at once (several streams); an
	// implementation that cannot overlap work serialises it.
	Run(ctx context.Context, work func(ctx context.Context) error) error
}

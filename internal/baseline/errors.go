package baseline

import (
	"errors"
	"fmt"
)

// ErrConfig is wrapped by every *ConfigError.
var ErrConfig = errors.New("baseline: invalid configuration")

// ConfigError names the setting at fault.
type ConfigError struct {
	Field  string
	Reason string
}

// Error returns "baseline: config Field: reason".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("baseline: config %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

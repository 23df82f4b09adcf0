package policy

import "errors"

// ErrConfig reports a policy constructor given an unusable
// configuration (a nil simulator Config, no containers, no nodes).
var ErrConfig = errors.New("policy: invalid configuration")

package sim_test

import "github.com/schedkit/schedkit/internal/cputime"

// cpuTime is the process's CPU time (internal/cputime).
var cpuTime = cputime.Process

//go:build unix

package dbs_test

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user + system CPU time, which is far less
// disturbed than wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

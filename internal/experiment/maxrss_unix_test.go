//go:build unix

package experiment

import "syscall"

// maxRSS is the process's peak resident set size in bytes (0 if unknown;
// Linux reports kilobytes).
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

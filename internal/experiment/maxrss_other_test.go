//go:build !unix

package experiment

// maxRSS is unknown off unix.
func maxRSS() int64 { return 0 }

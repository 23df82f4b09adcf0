package dbs

import (
	"testing"
	"unsafe"
)

// TestEntryLayout checks that entry fills whole cache lines (entryPad)
// and that the fields a weight update reads first share the first one;
// that the settled marks it walks stay 24 bytes.
func TestEntryLayout(t *testing.T) {
	var e entry
	if n := unsafe.Sizeof(e); n%64 != 0 {
		t.Errorf("entry is %d bytes, not a multiple of 64: set entryPad to %d", n, (entryPad+64-int(n%64))%64)
	}
	if off := unsafe.Offsetof(e.hasDL); off >= 64 {
		t.Errorf("entry's first group ends at %d, beyond the first cache line", off)
	}
	if n := unsafe.Sizeof(settled{}); n != 24 {
		t.Errorf("settled is %d bytes, not 24: a weight update walks one per job", n)
	}
}

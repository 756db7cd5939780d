package elfobj

import (
	"fmt"
	"sync"
	"unsafe"
)

// FaultError reports a read of a mapped file that faulted: the file was
// truncated (or replaced in place) while dwprobe had it mapped, so its
// pages are gone (SIGBUS). The goroutine must have asked for faults as
// panics (debug.SetPanicOnFault); Guard turns the panic into this. It
// wraps ErrMalformed: the input could not be read.
type FaultError struct {
	Path string
	Addr uintptr
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("%s: read fault at %#x: the file was truncated or changed while it was read", e.Path, e.Addr)
}

func (e *FaultError) Unwrap() error { return ErrMalformed }

// mappings names the file of each live mapping, so that a fault's
// address says which input changed.
var mappings struct {
	sync.Mutex
	m map[uintptr]mapping
}

type mapping struct {
	end  uintptr
	path string
}

func registerMapping(data []byte, path string) {
	if len(data) == 0 {
		return
	}
	mappings.Lock()
	defer mappings.Unlock()
	if mappings.m == nil {
		mappings.m = map[uintptr]mapping{}
	}
	start := uintptr(unsafe.Pointer(&data[0]))
	mappings.m[start] = mapping{start + uintptr(len(data)), path}
}

func unregisterMapping(data []byte) {
	if len(data) == 0 {
		return
	}
	mappings.Lock()
	defer mappings.Unlock()
	delete(mappings.m, uintptr(unsafe.Pointer(&data[0])))
}

// faultError is the FaultError of a recovered panic r, if it is a fault
// (a runtime error with an address); what names the file when no live
// mapping holds the address.
func faultError(r any, what string) (*FaultError, bool) {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok {
		return nil, false
	}
	addr := f.Addr()
	mappings.Lock()
	defer mappings.Unlock()
	for start, m := range mappings.m {
		if addr >= start && addr < m.end {
			return &FaultError{Path: m.path, Addr: addr}, true
		}
	}
	return &FaultError{Path: what, Addr: addr}, true
}

package elfobj

import "fmt"

// Guard is dwprobe's one recover: it turns a panic inside debug/elf or
// debug/dwarf (they panic on some malformed inputs) into an error
// wrapping ErrMalformed, and a fault reading a mapped file that changed
// under it (in a goroutine that called debug.SetPanicOnFault) into a
// *FaultError naming the file. It must be deferred directly (recover
// works only there):
//
//	defer elfobj.Guard(&err, path)
func Guard(err *error, what string) {
	if r := recover(); r != nil {
		if fe, ok := faultError(r, what); ok {
			*err = fe
			return
		}
		*err = fmt.Errorf("%s: %w: %v", what, ErrMalformed, r)
	}
}

// GuardWith is Guard for a decoder of another format (BTF) whose panic
// is reported as wrap words it. Deferred directly, as Guard is.
func GuardWith(err *error, wrap func(r any) error) {
	if r := recover(); r != nil {
		*err = wrap(r)
	}
}

// GuardFault is Guard for faults alone, at the top of a command: a fault
// reading a mapped file becomes a *FaultError; any other panic goes on
// (a bug keeps its stack trace). Deferred directly, as Guard is.
func GuardFault(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if fe, ok := faultError(r, "input"); ok {
		*err = fe
		return
	}
	panic(r)
}

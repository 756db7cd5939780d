package elfobj

import "fmt"

// Guard is dwprobe's one recover: it turns a panic inside debug/elf or
// debug/dwarf (they panic on some malformed inputs) into an error
// wrapping ErrMalformed. It must be deferred directly (recover works only
// there):
//
//	defer elfobj.Guard(&err, path)
func Guard(err *error, what string) {
	if r := recover(); r != nil {
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

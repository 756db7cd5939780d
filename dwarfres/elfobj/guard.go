package elfobj

import "fmt"

// Guard converts a panic inside debug/elf or debug/dwarf (they panic on
// some malformed inputs) into an error wrapping ErrMalformed. It must be
// deferred directly (recover works only there):
//
//	defer elfobj.Guard(&err, path)
func Guard(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: %w: %v", what, ErrMalformed, r)
	}
}

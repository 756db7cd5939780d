package leb

// Uint reads an unsigned LEB128 from the start of b: its value and its
// length in bytes, 0 when b ends before it does. Bits past the 64th are
// dropped, as DWARF readers drop them (a padded value stays readable).
func Uint(b []byte) (v uint64, n int) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// Int reads a signed LEB128 from the start of b, as Uint does.
func Int(b []byte) (v int64, n int) {
	var shift uint
	for i, c := range b {
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

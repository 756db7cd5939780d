package leb

import "testing"

// TestUint: DWARF 5's examples (7.6), a padded value, one past 64 bits,
// and a value cut short.
func TestUint(t *testing.T) {
	for _, tt := range []struct {
		in []byte
		v  uint64
		n  int
	}{
		{[]byte{2}, 2, 1},
		{[]byte{127}, 127, 1},
		{[]byte{0x80, 1}, 128, 2},
		{[]byte{0x81, 1, 0xff}, 129, 2},
		{[]byte{0x82, 1}, 130, 2},
		{[]byte{0xb9, 0x64}, 12857, 2},
		{[]byte{0x80, 0x80, 0}, 0, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x01}, 1<<64 - 1, 10},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, 11},
		{[]byte{0x80}, 0, 0},
		{nil, 0, 0},
	} {
		if v, n := Uint(tt.in); v != tt.v || n != tt.n {
			t.Errorf("Uint(% x) = %d, %d; want %d, %d", tt.in, v, n, tt.v, tt.n)
		}
	}
}

// TestInt: DWARF 5's signed examples (7.6) and a value cut short.
func TestInt(t *testing.T) {
	for _, tt := range []struct {
		in []byte
		v  int64
		n  int
	}{
		{[]byte{2}, 2, 1},
		{[]byte{0x7e}, -2, 1},
		{[]byte{0xff, 0}, 127, 2},
		{[]byte{0x81, 0x7f}, -127, 2},
		{[]byte{0x80, 1}, 128, 2},
		{[]byte{0x80, 0x7f}, -128, 2},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, -1, 10},
		{[]byte{0xff}, 0, 0},
	} {
		if v, n := Int(tt.in); v != tt.v || n != tt.n {
			t.Errorf("Int(% x) = %d, %d; want %d, %d", tt.in, v, n, tt.v, tt.n)
		}
	}
}

// FuzzLEB: any bytes read as a length within them, ending at the first
// byte without the continuation bit, or 0 when there is none.
func FuzzLEB(f *testing.F) {
	f.Add([]byte{0x80, 1})
	f.Add([]byte{0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, n := Uint(b)
		_, m := Int(b)
		want := 0
		for i, c := range b {
			if c&0x80 == 0 {
				want = i + 1
				break
			}
		}
		if n != want || m != want {
			t.Errorf("% x: lengths %d and %d, want %d", b, n, m, want)
		}
	})
}

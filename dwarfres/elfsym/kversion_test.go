package elfsym

import "testing"

func TestParseBanner(t *testing.T) {
	for _, c := range []struct {
		in         string
		maj, minor int
		ok         bool
	}{
		{"Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12", 6, 1, true},
		{"Linux version 6.18.44-fc-v669 (root@x)", 6, 18, true},
		{"Linux version 5.10", 5, 10, true},
		{"Linux version x.1", 0, 0, false},
		{"Linux version 6", 0, 0, false},
		{"linux version 6.1", 0, 0, false},
		{"", 0, 0, false},
	} {
		maj, minor, ok := parseBanner([]byte(c.in))
		if maj != c.maj || minor != c.minor || ok != c.ok {
			t.Errorf("parseBanner(%q) = %d, %d, %v; want %d, %d, %v", c.in, maj, minor, ok, c.maj, c.minor, c.ok)
		}
	}
}

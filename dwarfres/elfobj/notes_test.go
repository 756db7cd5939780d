package elfobj

import (
	"encoding/binary"
	"testing"
)

// TestBuildIDNote decodes a note list as /sys/kernel/notes holds it: a
// Xen note first, then the GNU build-id.
func TestBuildIDNote(t *testing.T) {
	le := binary.LittleEndian
	note := func(b []byte, name string, typ uint32, desc []byte) []byte {
		b = le.AppendUint32(b, uint32(len(name)+1))
		b = le.AppendUint32(b, uint32(len(desc)))
		b = le.AppendUint32(b, typ)
		n := append([]byte(name), 0)
		for len(n)%4 != 0 {
			n = append(n, 0)
		}
		return append(append(b, n...), desc...)
	}
	b := note(nil, "Xen", 6, []byte{1, 2, 3, 4})
	b = note(b, "GNU", ntGNUBuildID, []byte{0xde, 0xad, 0xbe, 0xef})
	if got := BuildIDNote(b, le); got != "deadbeef" {
		t.Errorf("buildIDNote = %q, want deadbeef", got)
	}
	if got := BuildIDNote(b[:len(b)-2], le); got != "" {
		t.Errorf("BuildIDNote(truncated) = %q, want none", got)
	}
}

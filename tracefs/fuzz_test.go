package tracefs

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseDefinition: a definition is either refused with
// ErrBadDefinition, or it is one command that the kernel would split into
// the same fields, and that reads back (as a listing line) as the same
// probe.
func FuzzParseDefinition(f *testing.F) {
	for _, s := range []string{
		"p:probe/vfs_read vfs_read+114 f_mode=+68(%di):x32",
		"r16:probe/foo__return foo+0 arg1=$retval:s64",
		"p:probe_app/work /tmp/app:0x1139 x=%di:s32",
		"r:g/e /a:b/c:0x10 s=+0(%si):string %ax",
		"  p:g/e   f  ",
		"p:g/e f\np:g/x f",
		"-:g/e",
		"p:g/e f #c",
		"p:g/e\xc3\xa0 f",
		"r0:g/e f",
		"p:g/e f x= y",
	} {
		f.Add(uint8(KProbe), s)
		f.Add(uint8(UProbe), s)
	}
	f.Fuzz(func(t *testing.T, k uint8, def string) {
		kind := Kind(k%2 + 1)
		ev, err := ParseDefinition(kind, def)
		if err != nil {
			if !errors.Is(err, ErrBadDefinition) {
				t.Fatalf("ParseDefinition(%q): %v does not wrap ErrBadDefinition", def, err)
			}
			return
		}
		if strings.ContainsAny(def, "\n\x00#\t\r") || strings.Contains(def, "\xa0") {
			t.Fatalf("accepted %q", def)
		}
		f, _ := fields(def)
		line := strings.Join(f, " ")
		if len(line) > maxDefLen {
			t.Fatalf("accepted %d bytes", len(line))
		}
		back, ok := parseLine(kind, line)
		if !ok {
			t.Fatalf("accepted %q, but it does not read back", def)
		}
		if back.Type != ev.Type || back.MaxActive != ev.MaxActive || back.Group != ev.Group || back.Name != ev.Name ||
			back.Target != ev.Target || len(back.Args) != len(ev.Args) {
			t.Fatalf("%q reads back as %+v, parsed as %+v", def, back, ev)
		}
		if nameProblem(ev.Group) != "" || nameProblem(ev.Name) != "" {
			t.Fatalf("accepted names %q/%q", ev.Group, ev.Name)
		}
	})
}

package tracefs

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseDefinition: a definition is either refused with
// ErrBadDefinition, or it is one command that the kernel would split into
// the same fields, that String prints back field for field, and that
// reads back (as a listing line) as the same probe.
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
		`p:g/e f x=\deade12d`,
		`p:g/e f+0 x=\0xdeade12d:u32 $arg1 s=\"a:b" +u8(-4(%sp)):s8[2]`,
		"r:g/e f $arg1",
		"p:g/e /b:0x1 a=@+16 b=@sym",
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
		if nameProblem(GroupName, ev.Group) != "" || nameProblem(EventName, ev.Name) != "" {
			t.Fatalf("accepted names %q/%q", ev.Group, ev.Name)
		}
		if ev.String() != line {
			t.Fatalf("%q prints as %q", def, ev.String())
		}
		if err := ev.Validate(); err != nil {
			t.Fatalf("%q parsed but does not validate: %v", def, err)
		}
	})
}

// FuzzSanitizeName: SanitizeName makes a valid name of each kind out of
// anything but "", and is idempotent.
func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"", "vfs_read", "getname_flags.part.0", "1abc", "-", "main.(*T).M",
		"malloc@GLIBC_2.2.5", "héllo", strings.Repeat("a", 80), "9" + strings.Repeat("-", 70), "common_pid", "x_b3@0/32"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []NameKind{EventName, GroupName, ArgName} {
			got := SanitizeName(k, s)
			if s == "" {
				if got != "" {
					t.Fatalf("SanitizeName(%v, \"\") = %q", k, got)
				}
				return
			}
			if err := ValidateName(k, got); err != nil {
				t.Fatalf("SanitizeName(%v, %q) = %q: %v", k, s, got, err)
			}
			if again := SanitizeName(k, got); again != got {
				t.Fatalf("SanitizeName(%v) not idempotent: %q -> %q -> %q", k, s, got, again)
			}
		}
	})
}

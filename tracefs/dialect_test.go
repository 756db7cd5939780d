package tracefs

import (
	"debug/elf"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// readme61 and readme618 are the fetcharg parts of the README of Linux
// 6.1 (kernel/trace/trace.c) and of 6.18 (the test host's).
const (
	readme61 = `	  fetcharg: (%<register>|$<efield>), @<address>, @<symbol>[+|-<offset>],
		    $stack<index>, $stack, $retval, $comm, $arg<N>,
		    +|-[u]<offset>(<fetcharg>), \imm-value, \"imm-string"
	     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, string, symbol,
		   b<bit-width>@<bit-offset>/<container-size>, ustring,
		   symstr, <type>\[<array-size>\]
	    field: <stype> <name>;
`
	readme618 = `	     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
		   b<bit-width>@<bit-offset>/<container-size>, ustring,
		   symstr, %pd/%pD, <type>\[<array-size>\]
	    efield: For event probes ('e' types), the field is on of the fields
`
)

func TestReadmeTypes(t *testing.T) {
	if got := readmeTypes(readme61); !reflect.DeepEqual(got, types61) {
		t.Errorf("6.1 README: %v, want %v", got, types61)
	}
	want := set("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
		"char", "string", "ustring", "symstr", "symbol", "%pd", "%pD", "b", "[]")
	if got := readmeTypes(readme618); !reflect.DeepEqual(got, want) {
		t.Errorf("6.18 README: %v, want %v", got, want)
	}
	if got := readmeTypes("no types here\n"); got != nil {
		t.Errorf("README without types: %v", got)
	}
}

func TestDialectCheck(t *testing.T) {
	linux61 := KernelDialect(elf.EM_X86_64, 6, 1)
	host := Dialect{Machine: elf.EM_X86_64, From: "README", types: readmeTypes(readme618)}
	arm61 := KernelDialect(elf.EM_AARCH64, 6, 1)
	unknown := KernelDialect(elf.EM_X86_64, 6, 9)
	for _, c := range []struct {
		d    Dialect
		arg  string
		msg  string // "" means accepted
		pos  int
		name string
	}{
		{linux61, "a=+0(%di):u32", "", 0, "6.1 u32"},
		{linux61, "a=+0(%di):u8[4]", "", 0, "6.1 array"},
		{linux61, "a=+0(%di):b3@2/8", "", 0, "6.1 bitfield"},
		{linux61, "a=+0(%di):symstr", "", 0, "6.1 symstr"},
		{linux61, "a=+0(%di):char", `type "char" is not a fetch type of Linux 6.1`, 10, "6.1 char"},
		{linux61, "a=%di:%pd", `type "%pd"`, 6, "6.1 %pd"},
		{linux61, "a=+0(%di):char[4]", `type "char[4]"`, 10, "6.1 char array"},
		{host, "a=+0(%di):char", "", 0, "6.18 char"},
		{host, "a=%di:%pD", "", 0, "6.18 %pD"},
		{unknown, "a=%di:char", "", 0, "6.9 types unchecked"},
		{unknown, "a=%rdi", "it calls it %di", 2, "6.9 registers checked"},
		{linux61, "a=+8(%rsi)", "no register %rsi on x86_64; it calls it %si", 5, "assembler name"},
		{linux61, "a=%x0", "no register %x0 on x86_64", 2, "arm64 register on x86"},
		{arm61, "a=%x0", "", 0, "arm64 register"},
		{arm61, "a=%w1", "it calls it %x1", 2, "arm64 w register"},
		{linux61, `s=\"%rax"`, "", 0, "string holding a %"},
		{Dialect{}, "a=%nosuch:char", "", 0, "zero dialect"},
	} {
		err := c.d.CheckArg(0, splitArg(c.arg))
		var de *DefError
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %q: %v", c.name, c.arg, err)
		case c.msg != "" && (!errors.As(err, &de) || !strings.Contains(err.Error(), c.msg) || de.Off != c.pos):
			t.Errorf("%s: %q = %v, want %q at byte %d", c.name, c.arg, err, c.msg, c.pos)
		}
	}
	if err := linux61.Check(Event{Args: args("a=%ax", "b=%di:char")}); err == nil || !strings.Contains(err.Error(), `"b=%di:char"`) {
		t.Errorf("Check: %v", err)
	}
}

// TestTableVersions: each row of Table is in the dialect of the version
// that added it and of later ones, and not in the one before.
func TestTableVersions(t *testing.T) {
	has := func(d Dialect, r Row) bool {
		if r.Type != "" {
			return d.HasType(r.Type)
		}
		return d.Has(r.Feature)
	}
	for _, r := range Table {
		major, minor := r.Since[0], r.Since[1]
		if !has(KernelDialect(elf.EM_X86_64, major, minor), r) || !has(KernelDialect(elf.EM_X86_64, major, minor+1), r) ||
			!has(KernelDialect(elf.EM_X86_64, major+1, 0), r) {
			t.Errorf("%s: missing from Linux %d.%d or later", r.What, major, minor)
		}
		if minor > 1 && has(KernelDialect(elf.EM_X86_64, major, minor-1), r) {
			t.Errorf("%s: in Linux %d.%d, before it was added", r.What, major, minor-1)
		}
		if r.Source == "" || r.Readme == "" && r.Feature == 0 {
			t.Errorf("%s: no source or README text", r.What)
		}
	}
	if d := KernelDialect(elf.EM_X86_64, 5, 15); d.Has(FProbeEvents) || d.Has(ReturnArgs) || !d.HasType("char") {
		t.Errorf("5.15: features %v, types %v: want none of the features, types unchecked", d.feats, d.types)
	}
}

// readmeMsg is readme_msg of a kernel/trace/trace.c, as a kernel with
// every option configured prints it: the string literals between
// "readme_msg[] =" and the ';' that ends it, unquoted.
func readmeMsg(t *testing.T, src string) string {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "readme_msg[] =")
	end := strings.Index(text[start:], "\n;")
	if start < 0 || end < 0 {
		t.Fatalf("%s: no readme_msg", src)
	}
	var out strings.Builder
	for _, lit := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(text[start:start+end], -1) {
		s, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: literal %s: %v", src, lit, err)
		}
		out.WriteString(s)
	}
	return out.String()
}

// TestTableReadmes: the README of 6.1 and of 6.12, read from their
// sources in the corpus, describe the dialects Table gives those
// versions.
func TestTableReadmes(t *testing.T) {
	for _, c := range []struct {
		src          string
		major, minor int
	}{
		{"linux/kernel/trace/trace.c", 6, 1},
		{"linux-6.12/kernel/trace/trace.c", 6, 12},
	} {
		readme := readmeMsg(t, dwarftest.NeedCorpus(t, c.src))
		got, want := ReadmeDialect(elf.EM_X86_64, readme), KernelDialect(elf.EM_X86_64, c.major, c.minor)
		if !reflect.DeepEqual(got.types, want.types) {
			t.Errorf("%s: README types %v, Table's %v", c.src, got.types, want.types)
		}
		if !reflect.DeepEqual(got.feats, want.feats) {
			t.Errorf("%s: README features %v, Table's %v", c.src, got.feats, want.feats)
		}
	}
}

// TestDialectFeatures: what a kernel refuses by version, where the
// grammar (Validate) accepts it.
func TestDialectFeatures(t *testing.T) {
	v := func(minor int) Dialect { return KernelDialect(elf.EM_X86_64, 6, minor) }
	for _, c := range []struct {
		def string
		d   Dialect
		msg string // "" means accepted
	}{
		{"r:g/e vfs_read+0 $arg1 $arg3", v(1), "$arg1 on a return probe: Linux 6.1 reads it at a function's entry only (return probes read it since Linux 6.9)"},
		{"r:g/e vfs_read+0 $arg1 $arg3", v(8), "Linux 6.8 reads it"},
		{"r:g/e vfs_read+0 $arg1 $arg3", v(9), ""},
		{"r:g/e vfs_read+0 c=+0($arg2):u8", v(1), "$arg2 on a return probe"},
		{"r:g/e vfs_read+0 $arg1 $arg3", v(12), ""},
		{"r:g/e vfs_read+0 $arg1 $arg3", Dialect{}, ""},
		{"p:g/e vfs_read $arg1", v(1), ""},
		{"p:g/e vfs_read count file->f_mode", v(1), `"count" (a BTF argument) is not in Linux 6.1 (Linux 6.5 added BTF argument names`},
		{"p:g/e vfs_read count file->f_mode", v(5), ""},
		{"p:g/e vfs_read $arg*", v(4), "is not in Linux 6.4"},
		{"r:g/e vfs_read count", v(5), `"count" (a BTF argument) on a return probe: Linux 6.5 reads it`},
		{"r:g/e vfs_read r=$retval->f_mode", v(1), "$retval->f_mode is not in Linux 6.1"},
		{"f:g/e vfs_read count", v(1), "f:GROUP/EVENT is an fprobe event, which Linux 6.1 does not have (Linux 6.5 added them)"},
		{"t:g/e sched_switch p=next->pid", v(4), "Linux 6.4 does not have"},
		{"f:g/e vfs_read count", v(5), ""},
		{"f:g/e vfs_read%return $arg* $retval", v(8), "on a return probe: Linux 6.8"},
		{"f:g/e vfs_read%return $arg* $retval", v(12), ""},
		{"t:g/e sched_switch p=next->pid", v(12), ""},
		{"f:g/e vfs_read count", ReadmeDialect(elf.EM_X86_64, readme61), "the running kernel's README does not have"},
	} {
		ev, err := ParseDynamic(c.def)
		if err != nil {
			t.Errorf("%q: %v", c.def, err)
			continue
		}
		err = c.d.Check(ev)
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %q: %v", c.d.From, c.def, err)
		case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s: %q = %v, want %q", c.d.From, c.def, err, c.msg)
		}
	}
}

// TestParseRelease: the version of a kernel release string.
func TestParseRelease(t *testing.T) {
	for rel, want := range map[string][3]int{
		"6.12.118+deb13-cloud-amd64\n": {6, 12, 1}, "6.15-rc1": {6, 15, 1}, "6.18.0": {6, 18, 1}, "5.4": {5, 4, 1}, "6": {0, 0, 0}, "x.y": {0, 0, 0},
	} {
		major, minor, ok := parseRelease(rel)
		if ok != (want[2] == 1) || ok && (major != want[0] || minor != want[1]) {
			t.Errorf("parseRelease(%q) = %d.%d %v, want %v", rel, major, minor, ok, want)
		}
	}
}

// TestDialectWithout: a feature a kernel's build lacks is refused with
// the build's reason; the dialect it came from is unchanged.
func TestDialectWithout(t *testing.T) {
	d612 := KernelDialect(elf.EM_AARCH64, 6, 12)
	d := d612.Without(FProbeEvents, "built without CONFIG_FPROBE_EVENTS")
	ev, err := ParseDynamic("t:g/e sched_switch prev")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Check(ev); err == nil || !strings.Contains(err.Error(), "which this kernel does not have: built without CONFIG_FPROBE_EVENTS") {
		t.Errorf("Check: %v", err)
	}
	if why, ok := d.Lacks(FProbeEvents); !ok || d.Has(FProbeEvents) || !d.Has(BTFArgs) || why == "" {
		t.Errorf("Lacks %q %v, Has %v", why, ok, d.Has(FProbeEvents))
	}
	if _, ok := d612.Lacks(FProbeEvents); ok || !d612.Has(FProbeEvents) {
		t.Error("Without changed the dialect it was made from")
	}
}

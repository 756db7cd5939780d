package tracefs

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/arch"
)

// Dialect is what one kernel's probe language has beyond the grammar
// Validate checks: its fetch types and its register names. The zero
// Dialect checks nothing.
type Dialect struct {
	// Machine names the registers; 0 leaves register names unchecked.
	Machine elf.Machine
	// From says where the types come from, for messages: "Linux 6.1",
	// "the running kernel's README".
	From string
	// types holds the base types ("u8", "string", "b" for bitfields, "[]"
	// for arrays); nil leaves types unchecked.
	types map[string]bool
}

// types61 are the fetch types of Linux 6.1 (kernel/trace/trace_probe.c's
// probe_fetch_types, bitfields and arrays): no "char" and no "%pd"/"%pD",
// which later kernels added.
var types61 = set("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string", "ustring", "symstr", "symbol", "b", "[]")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// KernelDialect is the dialect of Linux major.minor on machine m, as far
// as this package knows it: the 6.1 series exactly; other versions get
// their registers checked and their types left to the kernel.
func KernelDialect(m elf.Machine, major, minor int) Dialect {
	d := Dialect{Machine: m, From: fmt.Sprintf("Linux %d.%d", major, minor)}
	if major == 6 && minor == 1 {
		d.types = types61
	}
	return d
}

// HostDialect is what is known of the running kernel's dialect without
// its tracefs: the registers of the host's machine, types unchecked.
func HostDialect() Dialect {
	return Dialect{Machine: hostMachine(), From: "the running kernel"}
}

// Dialect is the running kernel's dialect: the types its README lists and
// the registers of the host's machine (the running kernel's).
func (t *FS) Dialect() Dialect {
	d := HostDialect()
	if b, err := os.ReadFile(filepath.Join(t.root, "README")); err == nil {
		d.From, d.types = "the running kernel's README", readmeTypes(string(b))
	}
	return d
}

// hostMachine is the ELF machine of the running kernel (arch.Host): the
// only place the host's architecture is the right answer.
func hostMachine() elf.Machine {
	if a, ok := arch.Host(); ok {
		return a.Machine
	}
	return 0
}

// readmeLabel starts a new item of the README's fetcharg help ("type:",
// "efield:").
var readmeLabel = regexp.MustCompile(`^\s*[a-z]+:`)

// readmeTypes reads the types of the README's "type:" item, e.g.
//
//	type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
//	      b<bit-width>@<bit-offset>/<container-size>, ustring,
//	      symstr, %pd/%pD, <type>\[<array-size>\]
//
// or nil if there is none.
func readmeTypes(readme string) map[string]bool {
	var text []string
	in := false
	for _, l := range strings.Split(readme, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "type:"):
			in, t = true, strings.TrimPrefix(t, "type:")
		case in && (readmeLabel.MatchString(l) || t == ""):
			in = false
		}
		if in {
			text = append(text, t)
		}
	}
	if text == nil {
		return nil
	}
	types := map[string]bool{}
	for _, tok := range strings.FieldsFunc(strings.Join(text, " "), func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case strings.HasPrefix(tok, "b<"):
			types["b"] = true
		case strings.HasPrefix(tok, "<type>"):
			types["[]"] = true
		default:
			expandTypes(tok, types)
		}
	}
	return types
}

// expandTypes adds "s8/16/32/64" as s8, s16, s32, s64 and "%pd/%pD" as
// %pd, %pD.
func expandTypes(tok string, types map[string]bool) {
	parts := strings.Split(tok, "/")
	prefix := strings.TrimRight(parts[0], "0123456789")
	for _, p := range parts {
		if decimal(p) {
			p = prefix + p
		}
		types[p] = true
	}
}

// Check checks the types and registers of e's arguments; errors are
// *DefError, as Validate's, with Pos in e.Raw for a parsed e.
func (d Dialect) Check(e Event) error {
	for i, a := range e.Args {
		if err := d.CheckArg(i, a); err != nil {
			if de := err.(*DefError); e.Raw != "" {
				de.Pos = fieldPos(e.Raw, de.Field, de.Off)
			}
			return err
		}
	}
	return nil
}

// regRE finds the registers of a fetcharg.
var regRE = regexp.MustCompile(`%[a-z0-9_]+`)

// CheckArg checks argument i, a, as Check does.
func (d Dialect) CheckArg(i int, a Arg) error {
	body := 0
	if a.Name != "" {
		body = len(a.Name) + 1
	}
	bad := func(off int, format string, v ...any) error {
		return &DefError{Field: 2 + i, Off: off, Pos: -1,
			Msg: fmt.Sprintf("argument %q: ", a.String()) + fmt.Sprintf(format, v...)}
	}
	if a.Type != "" && !d.HasType(a.Type) {
		return bad(body+len(a.Fetch)+1, "type %q is not a fetch type of %s (%s)", a.Type, d.From, d.Types())
	}
	if d.Machine == 0 || strings.HasPrefix(a.Fetch, `\"`) {
		return nil
	}
	mach, known := arch.For(d.Machine)
	for _, at := range regRE.FindAllStringIndex(a.Fetch, -1) {
		reg := a.Fetch[at[0]:at[1]]
		if !known {
			return bad(body+at[0], "the kernel has no register %s on %s", reg, arch.MachineName(d.Machine))
		}
		if mach.HasRegister(reg[1:]) {
			continue
		}
		if hint := mach.RegisterHint(reg); hint != "" {
			return bad(body+at[0], "the kernel has no register %s on %s; it calls it %s", reg, mach.Name, hint)
		}
		return bad(body+at[0], "the kernel has no register %s on %s", reg, mach.Name)
	}
	return nil
}

// HasType reports whether t is a fetch type of d: in the grammar of some
// kernel (validType), and one of d's if d knows its types.
func (d Dialect) HasType(t string) bool {
	if !validType(t) {
		return false
	}
	if d.types == nil {
		return true
	}
	base := t
	if i := strings.IndexByte(t, '['); i > 0 {
		if !d.types["[]"] {
			return false
		}
		base = t[:i]
	}
	if strings.HasPrefix(base, "b") && strings.Contains(base, "@") {
		base = "b"
	}
	return d.types[base]
}

// Types lists d's types for a message, in a stable order.
func (d Dialect) Types() string {
	if d.types == nil {
		return "the types of its README"
	}
	var out []string
	for _, t := range []string{"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
		"char", "string", "ustring", "symstr", "symbol", "%pd", "%pD"} {
		if d.types[t] {
			out = append(out, t)
		}
	}
	if d.types["b"] {
		out = append(out, "b<width>@<offset>/<size>")
	}
	if d.types["[]"] {
		out = append(out, "TYPE[N]")
	}
	return strings.Join(out, ", ")
}

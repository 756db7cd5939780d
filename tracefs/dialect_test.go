package tracefs

import (
	"debug/elf"
	"errors"
	"reflect"
	"strings"
	"testing"
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

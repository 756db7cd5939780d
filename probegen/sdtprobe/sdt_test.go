package sdtprobe

import (
	"debug/elf"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestSDTArgX86(t *testing.T) {
	syms := func(name string) (uint64, bool) { return 0x4010, name == "counter" }
	for _, tt := range []struct {
		op, want string // want "" with err: refused
		err      string
	}{
		// perf 6.1's forms, written as it writes them.
		{op: "8@%rbp", want: "arg1=%bp:u64"},
		{op: "-4@%eax", want: "arg1=%ax:s32"},
		{op: "-8@%r12", want: "arg1=%r12:s64"},
		{op: "4@%r12d", want: "arg1=%r12:u32"},
		{op: "2@%r9w", want: "arg1=%r9:u16"},
		{op: "-1@%sil", want: "arg1=%si:s8"},
		{op: "1@%al", want: "arg1=%ax:u8"},
		{op: "-4@112(%rsp)", want: "arg1=+112(%sp):s32"},
		{op: "8@-80(%rbx)", want: "arg1=-80(%bx):u64"},
		{op: "8@+24(%rdi)", want: "arg1=+24(%di):u64"},
		{op: "8@(%rdi)", want: "arg1=+0(%di):u64"},
		{op: "%rdi", want: "arg1=%di"},
		{op: "3@%eax", want: "arg1=%ax"}, // a size with no kernel type: none, as perf
		// Beyond perf, which skips these.
		{op: "-1@%ah", want: "arg1=%ax:b8@8/64"},
		{op: "4@$5", want: `arg1=\5:u32`},
		{op: "-4@$-1", want: `arg1=\-1:s32`},
		{op: "4@$0x10", want: `arg1=\16:u32`},
		{op: "4@$010", want: `arg1=\8:u32`}, // octal, to gas and to the kernel
		{op: "8@counter(%rip)", want: "arg1=@+0x4010:u64"},
		{op: "4@counter+8(%rip)", want: "arg1=@+0x4018:u32"},
		{op: "4@8+counter(%rip)", want: "arg1=@+0x4018:u32"},
		// What no fetch argument can say.
		{op: "8@(%rax,%rsi,8)", err: "scaled index"},
		// kstrtol reads "08" as bad octal (FuzzSDTArg).
		{op: "8@08(%rax)", err: "leading zero"},
		{op: "8@0(%rax)", want: "arg1=+0(%ax):u64"},
		{op: "8@-99999999999999999999(%rax)", err: "does not fit"},
		{op: "-4@-24(%rsp,%rax,4)", err: "scaled index"}, // gcc 12 -O2
		{op: "8@missing(%rip)", err: "symbol missing is not in the binary's symbol table"},
		{op: "8@16(%rip)", err: "rip-relative without a symbol"},
		{op: "8@%xmm0", err: "register %xmm0 is not one the kernel reads on x86_64"},
		{op: "16@%rax", err: `size "16"`},
		{op: "x@%rax", err: `size "x"`},
		{op: "8@-(%rbp)", err: "a sign with no displacement"},
		{op: "8@(%rbp", err: "not an operand"},
		{op: "8@-8%rbp", err: "not an operand"},
		{op: "4@$x", err: "bad constant"},
	} {
		a, err := Arg(elf.EM_X86_64, 0, tt.op, syms)
		checkSDTArg(t, tt.op, a.String(), err, tt.want, tt.err)
		if err == nil {
			checkBuilt(t, tt.op, a)
		}
	}
}

func TestSDTArgArm64(t *testing.T) {
	for _, tt := range []struct {
		op, want, err string
	}{
		// perf 6.1's forms.
		{op: "8@x1", want: "arg1=%x1:u64"},
		{op: "-4@[sp, 12]", want: "arg1=+12(%sp):s32"},
		{op: "-4@[sp,12]", want: "arg1=+12(%sp):s32"},
		{op: "8@[sp]", want: "arg1=+0(%sp):u64"},
		// Beyond perf.
		{op: "-4@[x29, -12]", want: "arg1=-12(%x29):s32"},
		{op: "8@[x0, #16]", want: "arg1=+16(%x0):u64"},
		{op: "-4@w3", want: "arg1=%x3:s32"},
		{op: "8@x30", want: "arg1=%x30:u64"},
		{op: "8@sp", want: "arg1=%sp:u64"},
		{op: "-4@-1", want: `arg1=\-1:s32`},
		{op: "4@#5", want: `arg1=\5:u32`},
		// Debian clang 14 --target=aarch64-linux-gnu writes memory
		// operands through a base register and constants bare.
		{op: "-4@[x8]", want: "arg1=+0(%x8):s32"},
		{op: "8@[x10]", want: "arg1=+0(%x10):u64"},
		{op: "-4@5", want: `arg1=\5:s32`},
		// Refused.
		{op: "8@[x0, x1]", err: "register-indexed"},
		{op: "8@[x0, 8]!", err: "register-indexed"},
		{op: "8@x31", err: "not an operand"},
		{op: "8@[sp, 016]", err: "leading zero"},
		{op: "8@v0", err: "not an operand"},
	} {
		a, err := Arg(elf.EM_AARCH64, 0, tt.op, nil)
		checkSDTArg(t, tt.op, a.String(), err, tt.want, tt.err)
		if err == nil {
			checkBuilt(t, tt.op, a)
		}
	}
	if _, err := Arg(elf.EM_RISCV, 1, "8@a0", nil); err == nil || err.Error() != `arg2 "8@a0": SDT operands of riscv binaries are not supported` && !strings.Contains(err.Error(), "are not supported") {
		t.Errorf("riscv: got %v", err)
	}
}

func checkSDTArg(t *testing.T, op, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		var ae *ArgError
		if !errors.As(err, &ae) || !errors.Is(err, grammar.ErrNotSupported) || !strings.Contains(err.Error(), wantErr) || ae.Operand != op {
			t.Errorf("%s: got %q, %v; want an *ArgError containing %q", op, got, err, wantErr)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("%s: got %q, %v; want %q", op, got, err, want)
	}
}

// checkBuilt checks a built argument: its fetcharg is written from its
// structure, which reads back as itself (probegen's args_test.go checks
// the resolver's arguments so).
func checkBuilt(t *testing.T, what string, a tracefs.Arg) {
	t.Helper()
	if a.Read.String() != a.Fetch {
		t.Errorf("%s: fetcharg %q, but its structure %+v writes %q", what, a.Fetch, a.Read, a.Read.String())
	}
	if back, err := tracefs.ParseFetch(a.Fetch); err != nil || !reflect.DeepEqual(back, a.Read) {
		t.Errorf("%s: %q reads back as %+v, %v; built %+v", what, a.Fetch, back, err, a.Read)
	}
}

func TestSDTOperands(t *testing.T) {
	for in, want := range map[string][]string{
		"8@%rbp 8@%r12 -4@%eax":           {"8@%rbp", "8@%r12", "-4@%eax"},
		"-4@[sp, 12] -4@[sp, 8] 8@x0":     {"-4@[sp, 12]", "-4@[sp, 8]", "8@x0"},
		"-4@[x29, -12]  8@[sp]":           {"-4@[x29, -12]", "8@[sp]"},
		"":                                nil,
		"8@(%rax,%rsi,8) 8@foo+52(%rip)":  {"8@(%rax,%rsi,8)", "8@foo+52(%rip)"},
		"8@[x0, 8] 4@[sp, 4] -2@[x1, #2]": {"8@[x0, 8]", "4@[sp, 4]", "-2@[x1, #2]"},
	} {
		got := Operands(in)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestParseSDTPoint(t *testing.T) {
	for in, want := range map[string]grammar.Point{
		"%sdt_python:line":       {SDT: true, Group: "sdt_python", Event: "line"},
		"sdt_python:line":        {SDT: true, Group: "sdt_python", Event: "line"},
		"%line":                  {SDT: true, Event: "line"},
		"%sdt_py*:function__*":   {SDT: true, Group: "sdt_py*", Event: "function__*"},
		"sdt_libstdcxx:throw":    {SDT: true, Group: "sdt_libstdcxx", Event: "throw"},
		"%return":                {SDT: true, Event: "return"}, // perf reads it so too
		`%sdt_a\:b:c`:            {SDT: true, Group: "sdt_a:b", Event: "c"},
		"%sdt_python:gc__start":  {SDT: true, Group: "sdt_python", Event: "gc__start"},
		"%sdt_python:import__*_": {SDT: true, Group: "sdt_python", Event: "import__*_"},
	} {
		p, err := grammar.ParsePoint(in)
		if err != nil || *p != want {
			t.Errorf("%q: got %+v, %v; want %+v", in, p, err, want)
			continue
		}
		back, err := grammar.ParsePoint(p.String())
		if err != nil || *back != *p {
			t.Errorf("%q: String() %q parses as %+v, %v", in, p.String(), back, err)
		}
	}
	for in, col := range map[string]int{"%": 2, "%sdt_x:": 8, "%sdt_x:y=z": 9, "sdt_x:y+4": 8} {
		_, err := grammar.ParsePoint(in)
		var se *grammar.SyntaxError
		if !errors.As(err, &se) || se.Col != col {
			t.Errorf("%q: got %v, want a syntax error at column %d", in, err, col)
		}
	}
}

// perf61Python is what perf 6.1 prints for Debian's python3.11
// (3.11.2-6+deb12u6) after perf buildid-cache --add /usr/bin/python3.11:
// perf probe -x /usr/bin/python3.11 -D 'sdt_python:*'.
const perf61Python = `p:sdt_python/audit /usr/bin/python3.11:0x2512a(0x683276) arg1=%bx:u64 arg2=%r15:u64
p:sdt_python/gc__done /usr/bin/python3.11:0x2873b(0x683270) arg1=%r12:s64
p:sdt_python/gc__start /usr/bin/python3.11:0x287f3(0x68326e) arg1=+112(%sp):s32
p:sdt_python/line /usr/bin/python3.11:0x3423c(0x68326c) arg1=%r14:u64 arg2=%ax:u64 arg3=%bp:s32
p:sdt_python/import__find__load__start /usr/bin/python3.11:0x5273a(0x683272) arg1=%ax:u64
p:sdt_python/import__find__load__done /usr/bin/python3.11:0x5275a(0x683274) arg1=%ax:u64 arg2=%dx:s32
p:sdt_python/function__entry /usr/bin/python3.11:0xf20a1(0x683260) arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32
p:sdt_python/function__return /usr/bin/python3.11:0xf20d4(0x683262) arg1=%bp:u64 arg2=%r12:u64 arg3=%ax:s32
`

// perf61Libstdcxx: perf probe -x /usr/lib/x86_64-linux-gnu/libstdc++.so.6
// -D 'sdt_libstdcxx:*' (libstdc++6 12.2.0-14), the path resolved.
const perf61Libstdcxx = `p:sdt_libstdcxx/catch /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30:0xa7f05 arg1=%dx:u64 arg2=-80(%bx):u64
p:sdt_libstdcxx/throw /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30:0xa90a1 arg1=%di:u64 arg2=%si:u64
p:sdt_libstdcxx/rethrow /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30:0xa9139 arg1=%dx:u64 arg2=%ax:u64
`

// TestSDTResolveAsPerf checks every marker of Debian's python3.11 and
// libstdc++ byte for byte against perf 6.1's definitions.
func TestSDTResolveAsPerf(t *testing.T) {
	for _, c := range []struct{ bin, spec, want string }{
		{"/usr/bin/python3.11", "sdt_python:*", perf61Python},
		{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "%sdt_libstdcxx:*", perf61Libstdcxx},
	} {
		got := sdtDefs(t, c.bin, c.spec)
		if got == "" {
			continue
		}
		if got != c.want {
			t.Errorf("%s -D %s:\n%s\nperf 6.1:\n%s", c.bin, c.spec, got, c.want)
		}
	}
}

// sdtDefs resolves spec in bin and prints the definitions, "" (skipped)
// when bin is missing.
func sdtDefs(t *testing.T, bin, spec string) string {
	t.Helper()
	if _, err := os.Stat(bin); err != nil {
		dwarftest.Skip(t, "%s missing (the Debian 12 package that holds it)", bin)
		return ""
	}
	f, err := dwarfres.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := grammar.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(f, s, bin)
	if err != nil {
		t.Fatalf("%s %s: %v", bin, spec, err)
	}
	var b strings.Builder
	for _, d := range r.Definitions() {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// TestSDTPickedArgs: arguments pick, rename and retype the note's; a
// string is read where the argument points.
func TestSDTPickedArgs(t *testing.T) {
	got := sdtDefs(t, "/usr/bin/python3.11", "%sdt_python:function__entry file=arg1:string func=arg2:string arg3 a=arg3:x32")
	want := "p:sdt_python/function__entry /usr/bin/python3.11:0xf20a1(0x683260) file=+0(%bp):string func=+0(%r12):string arg3=%ax:s32 a=%ax:x32\n"
	if got != "" && got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSDTResolveErrors(t *testing.T) {
	const py = "/usr/bin/python3.11"
	if _, err := os.Stat(py); err != nil {
		dwarftest.Skip(t, "%s missing", py)
		return
	}
	f, err := dwarfres.Open(py)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _ := grammar.ParseSpec("%sdt_python:nosuch")
	_, err = Resolve(f, s, py)
	var nf *NotFoundError
	want := "no SDT marker matches %sdt_python:nosuch in /usr/bin/python3.11; its markers: sdt_python:audit sdt_python:gc__done"
	if !errors.As(err, &nf) || !errors.Is(err, dwarfres.ErrNotFound) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s ...", err, want)
	}
	for spec, msg := range map[string]string{
		"%sdt_python:line x":         `column 18: x: an SDT marker's arguments are its note's: [NAME=]argN[:TYPE]`,
		"%sdt_python:line arg0":      "column 18: arg0: an SDT marker's arguments",
		"%sdt_python:line arg1@user": "column 18: arg1@user: an SDT marker's arguments",
		"%sdt_python:line arg4":      "column 18: sdt_python:line has 3 arguments, not arg4",
	} {
		s, err := grammar.ParseSpec(spec)
		if err == nil {
			_, err = Resolve(f, s, py)
		}
		if !errors.Is(err, grammar.ErrSyntax) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %s", spec, err, msg)
		}
	}
}

// FuzzSDTArg: Arg never panics, and what it accepts the kernel's rules
// (tracefs's validator) accept too.
func FuzzSDTArg(f *testing.F) {
	for _, s := range []string{"8@%rbp", "-4@-20(%rbp)", "8@foo(%rip)", "4@$-1", "8@[sp, 16]", "-4@[x29, -12]", "8@x1", "1@%ah", "(%rax,%rsi,8)", "08(%ax)"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, op string, arm bool) {
		m := elf.EM_X86_64
		if arm {
			m = elf.EM_AARCH64
		}
		a, err := Arg(m, 0, op, func(string) (uint64, bool) { return 0x1000, true })
		if err != nil {
			return
		}
		def := (&answer.Probe{EventKind: tracefs.UProbe, Group: "sdt_fuzz", Name: "m", Attach: answer.Attach{Binary: "/bin/x", FileOffset: 0x10}}).Definition()
		def.Args = append(def.Args, a)
		if verr := def.Validate(); verr != nil {
			t.Fatalf("%q gave %q, which the kernel refuses: %v", op, a.String(), verr)
		}
		checkBuilt(t, op, a)
	})
}

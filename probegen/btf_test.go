package probegen

import (
	"debug/elf"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// testBTF is a small kernel in BTF, marshalled and read back as dwprobe
// reads /sys/kernel/btf/vmlinux:
//
//	struct inner { int a; unsigned int flags:3, mode:5; char name[16]; };
//	struct file { long pad; struct inner *in; struct { int anon_x; }; char *path; };
//	struct pair { long x, y; };
//	long f1(struct file *file, int n, unsigned long count, char *buf,
//	        _Bool b, long a6, long a7, long a8);
//	long f2(struct pair p, int after);
//	long f3(double d);   long f4(__int128 x);
//	struct file *getf(void);   enum e getenum(void);   enum s { NEG = -1 } getsenum(void);
//	static int dup(int);  static int dup(long);  (two files)
//	static int same(int a); static int same(int a);  (two symbols)
func testBTF(t testing.TB) []byte {
	t.Helper()
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u32 := &btf.Int{Name: "unsigned int", Size: 4}
	i64 := &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}
	u64 := &btf.Int{Name: "unsigned long", Size: 8}
	i128 := &btf.Int{Name: "__int128", Size: 16, Encoding: btf.Signed}
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	boolT := &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}
	dbl := &btf.Float{Name: "double", Size: 8}
	size := &btf.Typedef{Name: "size_t", Type: u64}
	inner := &btf.Struct{Name: "inner", Size: 24, Members: []btf.Member{
		{Name: "a", Type: i32, Offset: 0},
		{Name: "flags", Type: u32, Offset: 32, BitfieldSize: 3},
		{Name: "mode", Type: u32, Offset: 35, BitfieldSize: 5},
		{Name: "name", Type: &btf.Array{Index: u32, Type: char, Nelems: 16}, Offset: 64},
	}}
	anon := &btf.Struct{Size: 4, Members: []btf.Member{{Name: "anon_x", Type: i32}}}
	file := &btf.Struct{Name: "file", Size: 32, Members: []btf.Member{
		{Name: "pad", Type: i64, Offset: 0},
		{Name: "in", Type: &btf.Pointer{Target: inner}, Offset: 64},
		{Type: anon, Offset: 128},
		{Name: "path", Type: &btf.Pointer{Target: char}, Offset: 192},
	}}
	pfile := &btf.Pointer{Target: file}
	pair := &btf.Struct{Name: "pair", Size: 16, Members: []btf.Member{{Name: "x", Type: i64}, {Name: "y", Type: i64, Offset: 64}}}
	enum := &btf.Enum{Name: "e", Size: 4, Values: []btf.EnumValue{{Name: "A", Value: 0}}}
	fn := func(name string, ret btf.Type, params ...btf.FuncParam) *btf.Func {
		return &btf.Func{Name: name, Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: ret, Params: params}}
	}
	p := func(name string, typ btf.Type) btf.FuncParam { return btf.FuncParam{Name: name, Type: typ} }
	types := []btf.Type{
		fn("f1", i64, p("file", pfile), p("n", i32), p("count", size), p("buf", &btf.Pointer{Target: char}),
			p("b", boolT), p("a6", i64), p("a7", i64), p("a8", i64)),
		fn("f2", i64, p("p", pair), p("after", i32)),
		fn("f3", i64, p("d", dbl)),
		fn("f4", i64, p("x", i128)),
		fn("getf", pfile),
		fn("getenum", enum),
		fn("getsenum", &btf.Enum{Name: "s", Size: 4, Signed: true, Values: []btf.EnumValue{{Name: "NEG", Value: math.MaxUint64}}}), // -1
		fn("dup", i32, p("a", i32)),
		fn("dup", i32, p("a", i64)),
		fn("same", i32, p("a", i32)),
	}
	return dwarftest.BTF(t, types...)
}

// fakeSyms is a symbol table: every test function once at 0x1000 apart,
// "same" twice, "notr" without an ftrace site, "onlysym" not in BTF.
type fakeSyms struct{}

func (fakeSyms) FuncSyms(name string) []dwarfres.Sym {
	switch name {
	case "same":
		return []dwarfres.Sym{{Name: name, Start: 0x2000}, {Name: name, Start: 0x3000}}
	case "f1", "f2", "f3", "f4", "getf", "getenum", "getsenum", "dup", "onlysym", "notr":
		return []dwarfres.Sym{{Name: name, Start: 0x1000}}
	}
	return nil
}
func (fakeSyms) Text() (uint64, bool)                         { return 0x1000, true }
func (fakeSyms) Notrace(s dwarfres.Sym) (notrace, known bool) { return s.Name == "f4", true }

// Code is two NOPs then code, except in f4 (notrace: no ftrace NOPs).
func (fakeSyms) Code(s dwarfres.Sym, n int) ([]byte, bool) {
	code := []byte{0x1f, 0x20, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5}
	if s.Name == "f4" {
		code = []byte{0x3f, 0x23, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5}
	}
	return code[:n], true
}

func testTarget(t testing.TB, m elf.Machine) *BTFTarget {
	types, err := kbtf.Parse(testBTF(t), "test.btf")
	if err != nil {
		t.Fatal(err)
	}
	return &BTFTarget{Types: types, Machine: m, Major: 6, Minor: 1, Syms: fakeSyms{}}
}

func btfDefs(t *testing.T, k *BTFTarget, raw string) (string, []string, error) {
	t.Helper()
	spec, err := grammar.ParseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	defs, notes, err := BTFDefinitions(k, spec, ResolveOptions{MaxProbes: 128})
	var lines []string
	for _, d := range defs {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n"), notes, err
}

// TestBTFCallingConventions pins the calling-convention tables: the
// registers in order, then the stack slots past the return address
// (x86_64) or from sp (arm64), with the DWARF path's types.
func TestBTFCallingConventions(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		want string
	}{
		{elf.EM_X86_64, "p:probe/f1 f1+0 file=%di:x64 n=%si:s32 count=%dx:x64 buf=%cx:x64 b=%r8:x8 a6=%r9:s64 a7=+8(%sp):s64 a8=+16(%sp):s64"},
		{elf.EM_AARCH64, "p:probe/f1 f1+8 file=%x0:x64 n=%x1:s32 count=%x2:x64 buf=%x3:x64 b=%x4:x8 a6=%x5:s64 a7=%x6:s64 a8=%x7:s64"},
	} {
		got, _, err := btfDefs(t, testTarget(t, c.m), "f1 file n count buf b a6 a7 a8")
		if err != nil || got != c.want {
			t.Errorf("%v: got %q, %v\nwant %q", c.m, got, err, c.want)
		}
	}
}

// TestBTFMembers pins member paths: offsets through pointers, unnamed
// members, bitfields, arrays, strings, casts, $params and $retval.
func TestBTFMembers(t *testing.T) {
	k := testTarget(t, elf.EM_X86_64)
	for _, c := range []struct{ spec, want string }{
		{"f1 file->in->flags file->in->mode file->anon_x", "p:probe/f1 f1+0 flags=+4(+8(%di)):b3@0/32 mode=+4(+8(%di)):b5@3/32 anon_x=+16(%di):s32"},
		{"f1 file->path:string file->in->name:string buf:string", "p:probe/f1 f1+0 path=+0(+24(%di)):string name=+8(+8(%di)):string buf_string=+0(%cx):string"},
		{"f1 buf[3] file->in->a:u16 n:x count:s x=file->pad", "p:probe/f1 f1+0 buf=+3(%cx):s8 a=+0(+8(%di)):u16 n_x=%si:x32 count_s=%dx:s64 x=+0(%di):s64"},
		{"f1 file->in->name[2] $comm", "p:probe/f1 f1+0 name=+10(+8(%di)):s8 $comm"},
		{"f1 $params", "p:probe/f1 f1+0 file=%di:x64 n=%si:s32 count=%dx:x64 buf=%cx:x64 b=%r8:x8 a6=%r9:s64 a7=+8(%sp):s64 a8=+16(%sp):s64"},
		{"f2 $params", "p:probe/f2 f2+0"},
		{"getf%return $retval $retval->path:string r=$retval->in->flags", "r:probe/getf__return getf+0 $retval:x64 path=+0(+24($retval)):string r=+4(+8($retval)):b3@0/32"},
		{"getenum%return $retval", "r:probe/getenum__return getenum+0 $retval:x32"},
		{"getsenum%return $retval", "r:probe/getsenum__return getsenum+0 $retval:s32"}, // a negative value: signed, as gcc's DW_AT_type
		{"same a", "p:probe/same _text+4096 a=%di:s32\np:probe/same _text+8192 a=%di:s32"},
		{"f* n", "p:probe/f1 f1+0 n=%si:s32"},
	} {
		got, _, err := btfDefs(t, k, c.spec)
		if strings.HasPrefix(c.spec, "f* ") {
			if err == nil {
				t.Errorf("%q: f2, f3, f4 have no n: want an error, got %q", c.spec, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q:\n got %q, %v\nwant %q", c.spec, got, err, c.want)
		}
	}
}

// TestBTFRefusals pins what BTF cannot answer, each with its reason.
func TestBTFRefusals(t *testing.T) {
	k := testTarget(t, elf.EM_X86_64)
	for _, c := range []struct {
		spec, want string
		sentinel   error
	}{
		{"f1:3", "BTF has no source lines", ErrNeedsDWARF},
		{"f1;x=*", "BTF has no source lines", ErrNeedsDWARF},
		{"f1+4", "offset inside a function", ErrNeedsDWARF},
		{"0x1000", "BTF has no addresses", ErrNeedsDWARF},
		{"nope", "neither in BTF nor in the symbol table (a function that exists only inlined", dwarfres.ErrNotFound},
		{"onlysym", "in the symbol table but not in BTF", ErrNeedsDWARF},
		{"dup", "2 functions named dup with different prototypes", ErrNeedsDWARF},
		{"du*", "no function of BTF matches du*", dwarfres.ErrNotFound}, // a glob skips what it cannot probe
		{"f1 nosuch", "f1 has no parameter nosuch (its parameters: file, n, count, buf, b, a6, a7, a8); BTF knows no local variables", grammar.ErrSyntax},
		{"f1 file->nosuch", "has no member nosuch", grammar.ErrSyntax},
		{"f1 file.pad", "file is a pointer: use '->pad'", grammar.ErrSyntax},
		{"f1 n->x", "n is not a structure, union or pointer to one", grammar.ErrSyntax},
		{"f1 file->in", "", nil},
		{"f1 n:string", "not a pointer nor an array, so not a string", grammar.ErrSyntax},
		{"f2 p", "a structure or union passed by value", grammar.ErrSyntax},
		{"f2 after", "it follows p, a structure or union passed by value", grammar.ErrSyntax},
		{"f3 d", "a floating-point value", grammar.ErrSyntax},
		{"f4 x", "a 16-byte integer, passed in a register pair", grammar.ErrSyntax},
		{"f1 $retval", "only available on a return probe", grammar.ErrSyntax},
		{"f1 n:u12", "unknown type", grammar.ErrSyntax},
	} {
		_, _, err := btfDefs(t, k, c.spec)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.spec, err)
		case c.want == "":
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: got %v, want %q", c.spec, err, c.want)
		case !errors.Is(err, c.sentinel):
			t.Errorf("%q: %v does not wrap %v", c.spec, err, c.sentinel)
		}
	}
}

// TestBTFNotes pins the notes: a notrace function, $vars, $params's
// skipped parameters, no symbol table.
func TestBTFNotes(t *testing.T) {
	k := testTarget(t, elf.EM_X86_64)
	for _, c := range []struct{ spec, want string }{
		{"f4", "f4 is notrace (no ftrace call site) at f4+0"},
		{"f1 $vars", "$vars reads the parameters of f1 only"},
		{"f2 $params", "$params skips p: argument \"p\": parameter p of f2 is not where a fetcharg can name it"},
		{"same", "same is not unique in the kernel's symbol table (2 symbols); wrote _text+4096"},
	} {
		_, notes, err := btfDefs(t, k, c.spec)
		if err != nil || !strings.Contains(strings.Join(notes, "\n"), c.want) {
			t.Errorf("%q: notes %q, %v; want %q", c.spec, notes, err, c.want)
		}
	}
	k.Syms = nil
	got, notes, err := btfDefs(t, k, "f1 n")
	if err != nil || got != "p:probe/f1 f1+0 n=%si:s32" || !strings.Contains(strings.Join(notes, "\n"), "no symbol table: f1+0 is written unchecked") {
		t.Errorf("no symbols: %q %q %v", got, notes, err)
	}
}

// TestBTFVarsAndFuncs pins -V (sorted "TYPE\tNAME", unplaceable
// parameters apart) and -F (BTF's names under the filter).
func TestBTFVarsAndFuncs(t *testing.T) {
	k := testTarget(t, elf.EM_X86_64)
	spec, _ := grammar.ParseSpec("f2")
	vl, err := BTFVars(k, spec, ResolveOptions{}, "")
	if err != nil || len(vl) != 1 || len(vl[0].Lines) != 0 || len(vl[0].Unreadable) != 2 {
		t.Fatalf("-V f2: %+v %v", vl, err)
	}
	spec, _ = grammar.ParseSpec("f1")
	vl, err = BTFVars(k, spec, ResolveOptions{}, "")
	want := "_Bool\tb|char*\tbuf|int\tn|long\ta6|long\ta7|long\ta8|size_t\tcount|struct file*\tfile"
	if err != nil || strings.Join(vl[0].Lines, "|") != want || vl[0].Point != "f1+0" {
		t.Errorf("-V f1: %q %v\nwant %q", vl[0].Lines, err, want)
	}
	names, err := BTFFunctions(k, "f* | get*")
	if err != nil || strings.Join(names, " ") != "f1 f2 f3 f4 getenum getf getsenum" {
		t.Errorf("-F: %q %v", names, err)
	}
}

// TestBTFArm64Entry pins arm64's entry past ftrace's two patchable NOPs:
// from the code, none in a notrace function, assumed without symbols,
// never for a return probe.
func TestBTFArm64Entry(t *testing.T) {
	k := testTarget(t, elf.EM_AARCH64)
	for spec, want := range map[string]string{"f2": "p:probe/f2 f2+8", "f4": "p:probe/f4 f4+0", "same": "p:probe/same _text+4104\np:probe/same _text+8200"} {
		if got, _, err := btfDefs(t, k, spec); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", spec, got, err, want)
		}
	}
	if got, _, err := btfDefs(t, k, "f2%return"); err != nil || got != "r:probe/f2__return f2+0" {
		t.Errorf("return probe: %q %v", got, err)
	}
	k.Syms = nil
	if got, _, err := btfDefs(t, k, "f4"); err != nil || got != "p:probe/f4 f4+8" {
		t.Errorf("no symbols: %q %v", got, err)
	}
}

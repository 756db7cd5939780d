package probegen

import (
	"debug/elf"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestSplitFields(t *testing.T) {
	for _, tt := range []struct {
		in, v, fields, err string
	}{
		{"file", "file", "", ""},
		{"file->f_mode", "file", "->f_mode", ""},
		{"sk->__sk_common.skc_dport", "sk", "->__sk_common .skc_dport", ""},
		{"p->a.b[1]->c", "p", "->a .b [1] ->c", ""},
		{"arr[2]", "arr", "[2]", ""},
		{"arr[0x10]", "arr", "[0x10]", ""},
		{"arr[]", "", "", "array index"},
		{"arr[x]", "", "", "array index"},
		{"p-x", "", "", "cannot parse"},
		{"p->", "", "", "bad member"},
		{"p.1a", "", "", "bad member"},
	} {
		v, fs, err := splitFields(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("splitFields(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		var parts []string
		for _, f := range fs {
			switch {
			case f.isIdx:
				parts = append(parts, f.name)
			case f.arrow:
				parts = append(parts, "->"+f.name)
			default:
				parts = append(parts, "."+f.name)
			}
		}
		if err != nil || v != tt.v || strings.Join(parts, " ") != tt.fields {
			t.Errorf("splitFields(%q) = %q %q %v, want %q %q", tt.in, v, parts, err, tt.v, tt.fields)
		}
	}
}

func TestCheckRaw(t *testing.T) {
	x86 := &argEnv{m: elf.EM_X86_64}
	arm := &argEnv{m: elf.EM_AARCH64}
	for _, tt := range []struct {
		e   *argEnv
		in  string
		err string
	}{
		{x86, "%di", ""}, {x86, "%ax", ""}, {x86, "%rax", "it calls it %ax"}, {x86, "%eax", "it calls it %ax"},
		{x86, "%x0", "no register"}, {arm, "%x0", ""}, {arm, "%sp", ""}, {arm, "%w1", "it calls it %x1"},
		{x86, "$stack", ""}, {x86, "$stack3", ""}, {x86, "$stackx", "stack slot"}, {x86, "$comm", ""},
		{x86, "$arg1", ""}, {x86, "$arg0", "function argument"}, {x86, "$foo", "special variable"},
		{x86, `\123`, ""}, {x86, `\-1`, ""}, {x86, `\0x1f`, ""}, {x86, `\"abc"`, ""}, {x86, `\zz`, "immediate"},
		{x86, "@jiffies", ""}, {x86, "@+0x10", ""}, {x86, "@", "needs a symbol"},
		{x86, "+8(%si)", ""}, {x86, "-8(+16(%sp))", ""}, {x86, "+u8(%si)", ""}, {x86, "+8(%rsi)", "it calls it %si"},
		{x86, "+x(%si)", "bad offset"}, {x86, "+8%si", "bad dereference"}, {x86, "#", "cannot parse"},
	} {
		err := tt.e.checkRaw(tt.in)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("checkRaw(%v, %q) = %v, want %q", tt.e.m, tt.in, err, tt.err)
		}
	}
}

func TestCheckArg(t *testing.T) {
	entry := &argEnv{m: elf.EM_X86_64, spec: "vfs_read x"}
	ret := &argEnv{m: elf.EM_X86_64, spec: "vfs_read%return x", ret: true}
	for _, tt := range []struct {
		e   *argEnv
		a   grammar.Arg
		err string
	}{
		{entry, grammar.Arg{Raw: "$retval", Expr: "$retval"}, "only available on a return probe"},
		{ret, grammar.Arg{Raw: "$retval", Expr: "$retval"}, ""},
		{ret, grammar.Arg{Raw: "$retval->name", Expr: "$retval->name"}, ""},
		{ret, grammar.Arg{Raw: "$retval->a.b->c:string", Expr: "$retval->a.b->c", Type: "string"}, ""},
		{ret, grammar.Arg{Raw: "$retval->", Expr: "$retval->"}, "bad member"},
		{entry, grammar.Arg{Raw: "$retval->name", Expr: "$retval->name"}, "only available on a return probe"},
		{ret, grammar.Arg{Raw: "$vars", Expr: "$vars"}, "not available on a return probe"},
		{ret, grammar.Arg{Raw: "count", Expr: "count"}, "local variables are not available"},
		{entry, grammar.Arg{Raw: "count:u7", Expr: "count", Type: "u7"}, "unknown type"},
		{entry, grammar.Arg{Raw: "count:foo", Expr: "count", Type: "foo"}, "unknown type"},
		{entry, grammar.Arg{Raw: "file->", Expr: "file->"}, "bad member"},
		{entry, grammar.Arg{Raw: "%rax", Expr: "%rax"}, "%ax"},
		{entry, grammar.Arg{Raw: "file->f_mode:x8", Expr: "file->f_mode", Type: "x8"}, ""},
	} {
		err := tt.e.checkArg(tt.a)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("checkArg(%q) = %v, want %q", tt.a.Raw, err, tt.err)
		}
	}
}

// TestFetchBuild: the fetch builder's structure, the text the definition
// writes from it, and that text read back by tracefs.ParseFetch as the
// same structure.
func TestFetchBuild(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    fetch
		want string
		err  string
	}{
		{"register", fetch{base: regBase("%di")}, "%di", ""},
		{"stack slot", fetch{base: regBase("%sp"), refs: []fref{{off: 16}}}, "+16(%sp)", ""},
		{"negative", fetch{base: regBase("%bp"), refs: []fref{{off: -20}}}, "-20(%bp)", ""},
		{"chain", fetch{base: regBase("%di"), refs: []fref{{off: 24}, {off: 40}, {off: 0}}}, "+0(+40(+24(%di)))", ""},
		{"user", fetch{base: regBase("%si"), refs: []fref{{off: 0, user: true}}}, "+u0(%si)", ""},
		{"global", fetch{base: symBase("jiffies"), sym: true, refs: []fref{{off: 0}}}, "@jiffies+0", ""},
		{"global member", fetch{base: symBase("init_task"), sym: true, refs: []fref{{off: 2416}}}, "@init_task+2416", ""},
		{"global pointer", fetch{base: symBase("app_list"), sym: true, refs: []fref{{off: 0}, {off: 8}}}, "+8(@app_list+0)", ""},
		{"uprobe global", fetch{base: tracefs.Fetch{Base: tracefs.BaseFileOffset}, sym: true, fileOff: 16800, refs: []fref{{off: 8}}}, "@+16808", ""},
		{"immediate", fetch{base: tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: 7}, imm: true}, `\7`, ""},
		{"per-CPU whole", fetch{base: tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: "runqueues"}, refs: []fref{{off: 0}}}, "this_cpu_read(@runqueues)", ""},
		{"per-CPU member", fetch{base: tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: "runqueues"}, refs: []fref{{off: 8}, {off: 0}}}, "+0(+8(this_cpu_ptr(@runqueues)))", ""},
		{"per-CPU pointer", fetch{base: tracefs.Fetch{Base: tracefs.BasePerCPU, Symbol: "runqueues"}, refs: []fref{{off: 0}, {off: 16}}}, "+16(this_cpu_read(@runqueues))", ""},
		{"retval member", fetch{base: retvalBase, refs: []fref{{off: 4}}}, "+4($retval)", ""},
		{"computed value", fetch{base: regBase("%dx"), add: -1}, "", "the value is computed, %dx-1, not held in a register or memory"},
		{"address of a global", fetch{base: symBase("buf"), sym: true, addrVal: true}, "", "address of a global"},
	} {
		fe, err := tt.f.build()
		got := fe.String()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
			continue
		}
		if back, err := tracefs.ParseFetch(got); err != nil || !reflect.DeepEqual(back, fe) {
			t.Errorf("%s: %q reads back as %+v, %v; built %+v", tt.name, got, back, err, fe)
		}
	}
}

func TestFetchSteps(t *testing.T) {
	// p in %di; p->a.b[2] with a at 8, b at 4, elements of 4 bytes.
	f := fetch{base: regBase("%di")}
	if err := f.load(8, false); err != nil {
		t.Fatal(err)
	}
	if err := f.member(4, false); err != nil {
		t.Fatal(err)
	}
	if err := f.member(2*4, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.build(); got.String() != "+20(%di)" {
		t.Errorf("got %q", got)
	}
	// A structure held in a register has no members to read.
	g := fetch{base: regBase("%ax")}
	if err := g.member(4, false); err == nil || !strings.Contains(err.Error(), "register") {
		t.Errorf("member of a register: %v", err)
	}
	// A computed address (value = %di+16) followed through a pointer.
	h := fetch{base: regBase("%di"), add: 16}
	if err := h.load(4, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.build(); got.String() != "+20(%di)" {
		t.Errorf("computed address: %q", got)
	}
	c := fetch{base: tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: 1}, imm: true}
	if err := c.load(0, false); err == nil {
		t.Error("a constant was dereferenced")
	}
}

// TestFetchFormArgs: Linux 7.3's fetch forms pass through as written on
// a kernel that reads them and are refused offline, with the version, on
// one that does not; uprobes never read them.
func TestFetchFormArgs(t *testing.T) {
	k73, k612 := tracefs.KernelDialect(elf.EM_X86_64, 7, 3), tracefs.KernelDialect(elf.EM_X86_64, 6, 12)
	for _, tt := range []struct {
		expr, typ string
		dial      tracefs.Dialect
		user      bool
		err       string
	}{
		{"(file)file->f_mode", "x32", k73, false, ""},
		{"(task_struct)$current->pid", "s32", k73, false, ""},
		{"$current", "", k73, false, ""},
		{"this_cpu_read(@cpu_number)", "s32", k73, false, ""},
		{"this_cpu_ptr(@runqueues)", "", k73, false, ""},
		{"(sock,sk_common)skc->sk_rcvbuf", "", k73, false, ""},
		{"(file)file->f_mode", "", k612, false, "Linux 6.12 does not read BTF typecasts"},
		{"$current", "", k612, false, "Linux 6.12 does not read $current (Linux 7.3 added it)"},
		{"this_cpu_read(cpu_number)", "", k612, false, "Linux 6.12 does not read this_cpu_read(VAR) and this_cpu_ptr(VAR)"},
		{"(file)x->", "", k73, false, "bad field"},
		{"$current", "", tracefs.Dialect{Machine: elf.EM_X86_64}, true, "kernel probes only"},
	} {
		d := tt.dial
		e := &argEnv{m: elf.EM_X86_64, spec: "vfs_read " + tt.expr, user: tt.user, dial: &d}
		raw := tt.expr
		if tt.typ != "" {
			raw += ":" + tt.typ
		}
		a, err := grammar.ParseArg(e.spec, raw, 0)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		err = e.checkArg(a)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.expr, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		r, _, err := e.convertArg(a, nil)
		if err != nil || r.Fetch != tt.expr || r.Type != tt.typ || r.Name != "" {
			t.Errorf("%s: converted to %+v, %v; want it as written", tt.expr, r, err)
		}
	}
}

// kindType is a ctype.Type of kind k only, for tests that look at kinds.
type kindType ctype.Kind

func (k kindType) Kind() ctype.Kind      { return ctype.Kind(k) }
func (kindType) Name() string            { return "" }
func (kindType) Size() (int64, bool)     { return 8, true }
func (kindType) Signed() bool            { return false }
func (kindType) Elem() ctype.Type        { return nil }
func (kindType) Dims() []int64           { return nil }
func (kindType) Members() []ctype.Member { return nil }
func (kindType) Node() any               { return nil }

// TestFetchTextComputed: a value computed from a register (DW_OP_breg RDX
// -1, DW_OP_stack_value) is called an address only when it is a pointer.
func TestFetchTextComputed(t *testing.T) {
	f := &fetch{base: regBase("%dx"), add: -1}
	for _, tt := range []struct {
		k    ctype.Kind
		want string
	}{
		{ctype.Base, "the value is computed, %dx-1, not held in a register or memory"},
		{ctype.Enum, "the value is computed, %dx-1"},
		{ctype.Ptr, "the value is an address computed from %dx-1; read a member through it or use :string"},
		{ctype.Array, "the value is an address computed from %dx-1"},
	} {
		_, err := fetchOf(f, ctype.Val{Name: "x", Type: kindType(tt.k)})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("kind %v: %v, want %q", tt.k, err, tt.want)
		}
	}
}

// TestOffsetLabel: a point in a .cold part placed below its function is
// named from the symbol covering it, or with a negative offset, never
// with the offset wrapped (print_cpu+18446744071581000856 on 7.3).
func TestOffsetLabel(t *testing.T) {
	cold := dwarfres.Sym{Name: "print_cpu.cold", Start: 0xffffffff81000100}
	for _, tt := range []struct {
		entry   uint64
		entryOK bool
		addr    uint64
		sym     dwarfres.Sym
		covered bool
		want    string
	}{
		{0xffffffff81200000, true, 0xffffffff81200088, dwarfres.Sym{}, false, "print_cpu+136"},
		{0xffffffff81200000, true, 0xffffffff8100022a, cold, true, "print_cpu.cold+298"},
		{0xffffffff81200000, true, 0xffffffff811fff00, dwarfres.Sym{}, false, "print_cpu-256"},
		{0, false, 0xffffffff8100022a, cold, true, "print_cpu.cold+298"},
		{0, false, 0xffffffff8100022a, dwarfres.Sym{}, false, "print_cpu (at 0xffffffff8100022a)"},
	} {
		if got := offsetLabel("print_cpu", tt.entry, tt.entryOK, tt.addr, tt.sym, tt.covered); got != tt.want {
			t.Errorf("offsetLabel(%#x, %v, %#x) = %q, want %q", tt.entry, tt.entryOK, tt.addr, got, tt.want)
		}
	}
}

// checkBuilt checks a built argument: its fetcharg is written from its
// structure, which reads back as itself (a tracefs.BaseText form, a
// typecast, is text ParseFetch refuses).
func checkBuilt(t *testing.T, what string, a tracefs.Arg) {
	t.Helper()
	if a.Read.String() != a.Fetch {
		t.Errorf("%s: fetcharg %q, but its structure %+v writes %q", what, a.Fetch, a.Read, a.Read.String())
	}
	if a.Read.Base == tracefs.BaseText {
		if _, err := tracefs.ParseFetch(a.Fetch); err == nil || a.Read.Why != err.Error() {
			t.Errorf("%s: %q is text, why %q; ParseFetch says %v", what, a.Fetch, a.Read.Why, err)
		}
		return
	}
	if back, err := tracefs.ParseFetch(a.Fetch); err != nil || !reflect.DeepEqual(back, a.Read) {
		t.Errorf("%s: %q reads back as %+v, %v; built %+v", what, a.Fetch, back, err, a.Read)
	}
}

// TestPlaceholderArg: perf's placeholder, built, is written as before.
func TestPlaceholderArg(t *testing.T) {
	a := placeholderArg("x", "s32")
	if a.String() != `x=\0xdeade12d:s32` || !IsArgPlaceholder(a.Read) {
		t.Errorf("placeholderArg = %q (%+v)", a.String(), a.Read)
	}
	checkBuilt(t, "placeholder", a)
	if IsArgPlaceholder(tracefs.Fetch{Base: tracefs.BaseImmediate, Imm: 0xdeade12d}) {
		t.Error(`\3735937325 is a constant the user wrote, not the placeholder`)
	}
}

// text is the fetcharg f writes, or why it writes none.
func (f *fetch) text() (string, error) {
	fe, err := f.build()
	if err != nil {
		return "", err
	}
	return fe.String(), nil
}

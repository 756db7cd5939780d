package ctype

import (
	"errors"
	"slices"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestTypeNames pins perf 6.12's spelling of -V types (dwarf-aux.c
// die_get_typename_from_type), which fixed 6.1's and is followed for
// every kernel: void* (6.1: (unknown_type)), T[] (6.1: T*), "struct " for
// an anonymous structure (6.1: (unknown_type)).
func TestTypeNames(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u32 := &btf.Typedef{Name: "u32", Type: &btf.Int{Name: "unsigned int", Size: 4}}
	void := &btf.Void{}
	named := &btf.Struct{Name: "file", Size: 8}
	for _, c := range []struct {
		typ  btf.Type
		want string
	}{
		{i32, "int"},
		{&btf.Pointer{Target: void}, "void*"},
		{&btf.Pointer{Target: &btf.Const{Type: void}}, "void*"},
		{&btf.Pointer{Target: &btf.Pointer{Target: void}}, "void**"},
		{&btf.Array{Index: i32, Nelems: 4, Type: u32}, "u32[]"},
		{&btf.Pointer{Target: &btf.Array{Index: i32, Nelems: 256, Type: &btf.Const{Type: u32}}}, "u32[]*"},
		{&btf.Pointer{Target: named}, "struct file*"},
		{&btf.Array{Index: i32, Nelems: 2, Type: named}, "struct file[]"},
		{&btf.Struct{Size: 8}, "struct "},
		{&btf.Union{Size: 8}, "union "},
		{&btf.Enum{Size: 4}, "enum "},
		{&btf.Pointer{Target: &btf.Union{Size: 8}}, "union *"},
		{&btf.Pointer{Target: &btf.FuncProto{Return: i32}}, "(function_type)*"},
		{void, "(unknown_type)"},
	} {
		if got := BTFName(c.typ); got != c.want {
			t.Errorf("%v: got %q, want %q", c.typ, got, c.want)
		}
	}
}

// TestSteps: the walk through BTF's view, as DWARF's does it: a member
// through a pointer is a load, a member of a structure or an element of
// an array a move within the object; a multi-dimensional array's index
// steps over rows; an element has no name ('->' on it is tolerated, as
// perf does); a member of an unnamed member is found through it.
func TestSteps(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	grid := &btf.Array{Index: i32, Nelems: 3, Type: &btf.Array{Index: i32, Nelems: 4, Type: i32}}
	anon := &btf.Union{Size: 4, Members: []btf.Member{{Name: "anon_x", Type: i32}}}
	st := &btf.Struct{Name: "s", Size: 8, Members: []btf.Member{{Name: "a", Type: i32}, {Type: anon, Offset: 32}}}
	ps := &btf.Array{Index: i32, Nelems: 2, Type: st}
	type step struct {
		name  string // "[N]" for an index
		arrow bool
	}
	type move struct {
		off  int64
		load bool
	}
	for _, c := range []struct {
		desc  string
		typ   btf.Type
		steps []step
		moves []move // each step's Off and Load
		to    string // the last step's value's name
		err   string
	}{
		{"g[2]", grid, []step{{"[2]", false}}, []move{{32, false}}, "", ""},
		{"ps[1]->anon_x", ps, []step{{"[1]", false}, {"anon_x", true}}, []move{{8, false}, {4, false}}, "anon_x", ""},
		{"p->a", &btf.Pointer{Target: st}, []step{{"a", true}}, []move{{0, true}}, "a", ""},
		{"p->anon_x", &btf.Pointer{Target: &btf.Const{Type: st}}, []step{{"anon_x", true}}, []move{{4, true}}, "anon_x", ""},
		{"p[3]", &btf.Pointer{Target: i32}, []step{{"[3]", false}}, []move{{12, true}}, "", ""},
		{"g[3]", grid, []step{{"[3]", false}}, nil, "", "index 3 is out of the bounds of v (3 elements)"},
		{"p.a", &btf.Pointer{Target: st}, []step{{"a", false}}, nil, "", "v is a pointer: use '->a'"},
		{"s->a", st, []step{{"a", true}}, nil, "", "v is not a pointer: use '.a'"},
		{"i.a", i32, []step{{"a", false}}, nil, "", "v is not a structure, union or pointer to one"},
		{"void", &btf.Void{}, []step{{"a", false}}, nil, "", "v has no type"},
		{"i[0]", i32, []step{{"[0]", false}}, nil, "", "v is not a pointer nor an array"},
		{"vp[0]", &btf.Pointer{Target: &btf.Void{}}, []step{{"[0]", false}}, nil, "", "v points to void"},
	} {
		cur := BTFVal("v", c.typ)
		var err error
		for i, s := range c.steps {
			var st Step
			if s.name[0] == '[' {
				st, err = cur.Index(int64(s.name[1] - '0'))
			} else {
				st, err = cur.Select(s.name, s.arrow)
			}
			if err != nil {
				break
			}
			if w := c.moves[i]; st.Off != w.off || st.Load != w.load {
				t.Errorf("%s: step %d: got offset %d, load %v; want %d, %v", c.desc, i, st.Off, st.Load, w.off, w.load)
			}
			cur = st.To
		}
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: got %v, want error %q", c.desc, err, c.err)
		case c.err == "" && (err != nil || cur.Name != c.to):
			t.Errorf("%s: got %+v, %v; want to stand on %q", c.desc, cur, err, c.to)
		}
	}
}

// TestMemberError: a missing member is a *MemberError naming the
// members findable through unnamed ones, for probegen's suggestions.
func TestMemberError(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	anon := &btf.Union{Size: 4, Members: []btf.Member{{Name: "anon_x", Type: i32}}}
	st := &btf.Struct{Name: "s", Size: 8, Members: []btf.Member{{Name: "a", Type: i32}, {Type: anon, Offset: 32}}}
	_, err := BTFVal("v", st).Select("anon", false)
	var me *MemberError
	if !errors.As(err, &me) || me.Var != "v" || me.Type != "struct s" || me.Member != "anon" || !slices.Equal(me.Names, []string{"a", "anon_x"}) {
		t.Errorf("v.anon: got %#v", err)
	}
	if _, err := MemberOffset(FromBTF(st), "s", "a.b"); err == nil || err.Error() != "a is not a structure or union" {
		t.Errorf("container_of(s, a.b): got %v", err)
	}
	if off, err := MemberOffset(FromBTF(st), "s", "anon_x"); off != 4 || err != nil {
		t.Errorf("container_of(s, anon_x): got %d, %v; want 4", off, err)
	}
}

// TestFetchType: perf's convert_variable_type for a value read whole,
// and which values are strings.
func TestFetchType(t *testing.T) {
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u64 := &btf.Int{Name: "unsigned long", Size: 8}
	st := &btf.Struct{Name: "s", Size: 8}
	for _, c := range []struct {
		typ       btf.Type
		cast      string
		want, err string
	}{
		{i32, "", "s32", ""},
		{u64, "", "x64", ""},
		{&btf.Typedef{Name: "u8", Type: &btf.Const{Type: char}}, "u", "u8", ""},
		{&btf.Pointer{Target: char}, "", "x64", ""},
		{&btf.Array{Index: i32, Type: char, Nelems: 4}, "", "", ""},
		{st, "", "", "v is a struct s passed by value; name one of its members (VAR.MEMBER)"},
		{st, "x", "x64", ""},
		{&btf.Void{}, "", "", "v has no type (void)"},
	} {
		got, err := BTFVal("v", c.typ).FetchType(c.cast)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("%v as %q: got %q, %v; want %q, %q", c.typ, c.cast, got, err, c.want, c.err)
		}
	}
	for _, c := range []struct {
		typ   btf.Type
		array bool
		err   string
	}{
		{&btf.Pointer{Target: &btf.Const{Type: char}}, false, ""},
		{&btf.Array{Index: i32, Type: char, Nelems: 4}, true, ""},
		{&btf.Pointer{Target: i32}, false, "v is not a (unsigned) char pointer or array"},
		{i32, false, "v is not a pointer nor an array, so not a string"},
		{&btf.Void{}, false, "v has no type (void)"},
	} {
		array, err := BTFVal("v", c.typ).Chars()
		if array != c.array || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("%v as a string: got %v, %v; want %v, %q", c.typ, array, err, c.array, c.err)
		}
	}
}

// TestKernelFetchType: the types the kernel gives a value it types
// through BTF (trace_probe.c's fetch_type_from_btf_type).
func TestKernelFetchType(t *testing.T) {
	for _, c := range []struct {
		typ  btf.Type
		want string
	}{
		{&btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}, "s32"},
		{&btf.Typedef{Name: "u16", Type: &btf.Int{Name: "unsigned short", Size: 2}}, "u16"},
		{&btf.Const{Type: &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}}, "s64"},
		{&btf.Enum{Name: "e", Size: 4}, "s32"},
		{&btf.Enum{Name: "e", Size: 8}, "s64"},
		{&btf.Pointer{Target: &btf.Void{}}, "x64"},
		{&btf.Float{Name: "double", Size: 8}, ""},
		{&btf.Int{Name: "__int128", Size: 16, Encoding: btf.Signed}, ""},
		{&btf.Struct{Name: "s", Size: 8}, ""},
		{&btf.Void{}, ""},
	} {
		if got := KernelFetchType(FromBTF(c.typ)); got != c.want {
			t.Errorf("%v: got %q, want %q", c.typ, got, c.want)
		}
	}
}

package dwarfres

import (
	"debug/dwarf"
	"slices"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// A C unit's top-level types keep their bodies undecoded until a type walk
// asks for them; the walk sees the same members, enumerators and nested
// types as a unit decoded whole.
func TestLazyTypeBodies(t *testing.T) {
	prog := dwarftest.Compile(t, "gcc", "lazy.c", `
enum color { RED, GREEN };
struct outer {
	struct inner { int a; long b; } in;
	union { int u1; char u2; };
	enum color c;
	int (*cb)(int, char);
};
int use(struct outer *o) { return o->in.a + o->u1 + o->c + (o->cb ? 1 : 0); }
int main(void) { struct outer x = {0}; return use(&x); }
`, "-g", "-O1")
	f, err := Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	units, err := f.unitsList()
	if err != nil {
		t.Fatal(err)
	}
	var tr *cuTree
	for i := range units {
		if tr, err = f.tree(&units[i]); err != nil {
			t.Fatal(err)
		}
		if len(tr.lazy) > 0 {
			break
		}
	}
	if tr == nil || len(tr.lazy) == 0 {
		t.Fatal("no unit left a type body undecoded")
	}
	for i, d := range tr.dies {
		if d.Tag == dwarf.TagMember || d.Tag == dwarf.TagEnumerator {
			t.Fatalf("DIE %d (%#x, %v) of a lazy body was decoded with its unit", i, d.Off, d.Tag)
		}
	}
	use := -1
	for i, d := range tr.dies {
		if d.Tag == dwarf.TagSubprogram && tr.rawNameAt(i) == "use" {
			use = i
		}
	}
	if use < 0 {
		t.Fatal("no subprogram use")
	}
	param := Entry{tr, use}.children()[0]
	ptr, ok := param.Type()
	if !ok {
		t.Fatal("o has no type")
	}
	outer, ok := ptr.Type()
	if !ok || outer.Tag() != dwarf.TagStructType || outer.Name() != "outer" {
		t.Fatalf("*o is %v %q", outer.Tag(), outer.Name())
	}
	if got, want := outer.MemberNames(), []string{"in", "u1", "u2", "c", "cb"}; !slices.Equal(got, want) {
		t.Errorf("members of struct outer: %q, want %q", got, want)
	}
	// struct inner is declared in struct outer's body: its offset is
	// found there, from outside the body too.
	in, ok := outer.FindMember("in")
	if !ok {
		t.Fatal("no member in")
	}
	inner, ok := in.Type()
	if !ok || inner.Name() != "inner" {
		t.Fatalf("in's type is %q", inner.Name())
	}
	if e, ok := tr.entryAt(inner.Offset()); !ok || e.Name() != "inner" {
		t.Errorf("entryAt(%#x) from the unit = %q, %v", inner.Offset(), e.Name(), ok)
	}
	if got := inner.MemberNames(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("members of struct inner: %q", got)
	}
	c, _ := outer.FindMember("c")
	enum, ok := c.RealType(true)
	if !ok || enum.Tag() != dwarf.TagEnumerationType {
		t.Fatalf("c's type: %v", enum.Tag())
	}
	if n := len(enum.children()); n != 2 {
		t.Errorf("enum color has %d enumerators, want 2", n)
	}
	// A member's declaration file is its unit's line table's.
	if file := in.t.declFile(in.i); file == "" {
		t.Error("member in has no declaration file")
	}
}

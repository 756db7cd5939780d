package probegen

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/probegen/internal/ctype"
)

// TestFetchTypeBTF pins the C-type walk through BTF's view where it used
// to differ from DWARF's: a global char array whose address is the value
// (@sym) is read as a string at that address, as through DWARF.
func TestFetchTypeBTF(t *testing.T) {
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	buf := &btf.Array{Index: i32, Type: char, Nelems: 16}
	for _, c := range []struct {
		name      string
		f         fetch
		typ       btf.Type
		cast      string
		want, err string
		fetch     string
	}{
		{name: "symbol address as string", f: fetch{base: symBase("buf"), sym: true, addrVal: true}, typ: buf, cast: "string", want: "string", fetch: "@buf+0"},
		{name: "array in a register", f: fetch{base: regBase("%di")}, typ: buf, cast: "string", err: "array buf is not in memory"},
		{name: "array in memory", f: fetch{base: regBase("%di"), refs: []fref{{off: 8}}}, typ: buf, cast: "ustring", want: "ustring", fetch: "+8(%di)"},
		{name: "int is no string", f: fetch{base: regBase("%di")}, typ: i32, cast: "string", err: "buf is not a pointer nor an array, so not a string"},
		{name: "void", f: fetch{base: regBase("%di")}, typ: &btf.Void{}, err: "buf has no type (void)"},
		{name: "typedef'd int", f: fetch{base: regBase("%di")}, typ: &btf.Typedef{Name: "s32", Type: &btf.Const{Type: i32}}, want: "s32", fetch: "%di"},
	} {
		f := c.f
		got, err := fetchType(&f, ctype.BTFVal("buf", c.typ), c.cast, false)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: got %q, %v; want error %q", c.name, got, err, c.err)
			}
			continue
		}
		s, serr := f.text()
		if err != nil || got != c.want || serr != nil || s != c.fetch {
			t.Errorf("%s: got %q, %v, fetch %q, %v; want %q, %q", c.name, got, err, s, serr, c.want, c.fetch)
		}
	}
}

// TestStepFieldBTF pins member walks through BTF as DWARF does them: a
// multi-dimensional array is one array whose index steps over rows, an
// element has no name (so '->' on it is tolerated, as perf does), the
// suggestions include the members of unnamed members.
func TestStepFieldBTF(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	grid := &btf.Array{Index: i32, Nelems: 3, Type: &btf.Array{Index: i32, Nelems: 4, Type: i32}}
	anon := &btf.Union{Size: 4, Members: []btf.Member{{Name: "anon_x", Type: i32}}}
	st := &btf.Struct{Name: "s", Size: 8, Members: []btf.Member{{Name: "a", Type: i32}, {Type: anon, Offset: 32}}}
	ps := &btf.Array{Index: i32, Nelems: 2, Type: st}

	f := &fetch{base: regBase("%di"), refs: []fref{{}}}
	cur, err := stepField(f, ctype.BTFVal("g", grid), field{name: "[2]", index: 2, isIdx: true}, false)
	s, _ := f.text()
	if err != nil || s != "+32(%di)" || cur.Name != "" {
		t.Errorf("g[2]: got %q, %+v, %v", s, cur, err)
	}
	if n := ctype.BTFName(grid); n != "int[]" {
		t.Errorf("name of int[3][4]: got %q, want int[] (DWARF's)", n)
	}
	f = &fetch{base: regBase("%di"), refs: []fref{{}}}
	cur, err = stepField(f, ctype.BTFVal("ps", ps), field{name: "[1]", index: 1, isIdx: true}, false)
	if err == nil {
		cur, err = stepField(f, cur, field{name: "anon_x", arrow: true}, false)
	}
	s, _ = f.text()
	if err != nil || s != "+12(%di)" || cur.Name != "anon_x" {
		t.Errorf("ps[1]->anon_x: got %q, %+v, %v", s, cur, err)
	}
	_, err = stepField(&fetch{base: regBase("%di"), refs: []fref{{}}}, ctype.BTFVal("v", st), field{name: "anon"}, false)
	if err == nil || !strings.Contains(err.Error(), "anon_x") {
		t.Errorf("v.anon: want a suggestion of anon_x, got %v", err)
	}
}

package dwarfres

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// tabNames lists the names of table tab.
func tabNames(t *testing.T, ix *Index, tab int) []string {
	t.Helper()
	_, names, ok := ix.matching(tab, func(string) bool { return true }, allUnits)
	if !ok {
		t.Fatalf("table %d does not decode", tab)
	}
	return names
}

// TestIndexSynthNames pins what a unit contributes: own names of
// top-level functions and variables, and the name an unnamed out-of-line
// instance gets through its abstract origin; nested DIEs contribute
// nothing.
func TestIndexSynthNames(t *testing.T) {
	ref := func(label string) dwarftest.Attr {
		return dwarftest.A(dwarf.AttrAbstractOrigin, dwarftest.FormRef4, dwarftest.Ref(label))
	}
	cu := dwarftest.D(dwarf.TagCompileUnit, dwarftest.Name("synth.c"), dwarftest.A(dwarf.AttrLanguage, dwarftest.FormData1, 0x0c), dwarftest.Low(0x1000), dwarftest.High(0x100)).With(
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("inl"), dwarftest.A(dwarf.AttrInline, dwarftest.FormData1, 3)).As("inl").With(
			dwarftest.D(dwarf.TagVariable, dwarftest.Name("local")),
		),
		dwarftest.D(dwarf.TagSubprogram, ref("inl"), dwarftest.Low(0x1080), dwarftest.High(0x10)),
		dwarftest.D(dwarf.TagVariable, dwarftest.Name("gvar")),
		dwarftest.D(dwarf.TagSubprogram, dwarftest.Name("f"), dwarftest.Low(0x1000), dwarftest.High(0x80)).With(
			dwarftest.D(dwarf.TagInlinedSubroutine, ref("inl"), dwarftest.Low(0x1010), dwarftest.High(0x10)),
		),
	)
	f := synFile(t, 4, cu, nil)
	ix, err := indexer{f}.buildIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	for tab, want := range map[int][]string{tabFunc: {"f", "inl"}, tabOrigin: {"inl"}, tabVar: {"gvar"}} {
		if got := tabNames(t, ix, tab); !slices.Equal(got, want) {
			t.Errorf("table %d: %q, want %q", tab, got, want)
		}
	}
	// Through the file format and back, the answers stay.
	ix, err = decodeIndex(encodeIndex(ix, "k"), "k")
	if err != nil {
		t.Fatal(err)
	}
	if us, ok := ix.funcUnits(Query{Function: exactName("inl")}); !ok || !slices.Equal(us, []int{0}) {
		t.Errorf("inl: units %v, %v", us, ok)
	}
	if us, ok := ix.definingUnits(Query{Function: exactName("inl")}, []int{0}); !ok || !slices.Equal(us, []int{0}) {
		t.Errorf("inl is defined in unit 0: units %v, %v", us, ok)
	}
	if us, ok := ix.lookup(tabVar, "local", allUnits); !ok || len(us) != 0 {
		t.Errorf("a local is not a global: units %v, %v", us, ok)
	}
}

// indexedPair opens bin twice: plain, and with its index built in dir.
func indexedPair(t *testing.T, bin, dir string) (plain, indexed *File) {
	t.Helper()
	var err error
	loc := NewLocator(filepath.Join(filepath.Dir(bin), "debug"))
	if plain, err = loc.Open(bin); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	if indexed, err = loc.Open(bin); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { indexed.Close() })
	indexed.UseIndex(IndexOptions{Dir: dir, Note: func(r IndexReport) { t.Errorf("note: %+v", r) }})
	if indexed.index() == nil {
		t.Fatalf("%s: no index", bin)
	}
	return plain, indexed
}

// probesString prints FindProbes' answer for comparison.
func probesString(ps []Probe, err error) string {
	s := fmt.Sprint(err)
	for _, p := range ps {
		s += fmt.Sprintf("|%#x %s+%d %s %s %v %#x", p.Addr, p.Symbol, p.Offset, p.RealName, p.Func, p.InText, p.PrologueOf)
	}
	return s
}

// sameAnswers checks that f and g (the same binary, g with its index)
// answer alike for every name and file the index knows.
func sameAnswers(t *testing.T, f, g *File) {
	t.Helper()
	ix := g.index()
	units, err := f.unitsList()
	if err != nil {
		t.Fatal(err)
	}
	var fns []string
	for _, tab := range []int{tabFunc, tabOrigin} {
		fns = append(fns, tabNames(t, ix, tab)...)
	}
	for _, fn := range append(fns, "no_such_function") {
		for _, q := range []Query{{Function: exactName(fn)}, {Function: exactName(fn), Line: 1, HasLine: true}} {
			a, b := probesString(f.FindProbes(q)), probesString(g.FindProbes(q))
			if a != b {
				t.Errorf("%+v:\n scan  %s\n index %s", q, a, b)
			}
		}
		a, aerr := f.FindLineRange(LineQuery{Function: fn, End: 1 << 30})
		b, berr := g.FindLineRange(LineQuery{Function: fn, End: 1 << 30})
		if fmt.Sprint(a, aerr) != fmt.Sprint(b, berr) {
			t.Errorf("-L %s: %v %v, with the index %v %v", fn, a, aerr, b, berr)
		}
	}
	for _, pat := range []string{"*", "w*", "*_*", "item_*"} {
		q := Query{Function: namePattern(pat)}
		if a, b := probesString(f.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
			t.Errorf("glob %s:\n scan  %s\n index %s", pat, a, b)
		}
	}
	for _, v := range append(tabNames(t, ix, tabVar), "no_such_var") {
		a, aok, aerr := globals{f}.find(v)
		b, bok, berr := globals{g}.find(v)
		if aok != bok || fmt.Sprint(aerr) != fmt.Sprint(berr) || aok && (a.t.u.off != b.t.u.off || a.i != b.i) {
			t.Errorf("global %s: %v %v, with the index %v %v", v, aok, aerr, bok, berr)
		}
	}
	for _, file := range append(tabNames(t, ix, tabFile), "no_such_file.c") {
		src := sourceName{name: file}
		ac, ap, aerr := unitScan{f}.candidates(units, Query{File: file}, src)
		bc, bp, berr := unitScan{g}.candidates(units, Query{File: file}, src)
		slices.Sort(ap)
		slices.Sort(bp)
		if !slices.Equal(ac, bc) || !slices.Equal(ap, bp) || fmt.Sprint(aerr) != fmt.Sprint(berr) {
			t.Errorf("file %s: units %v paths %q, with the index %v %q", file, ac, ap, bc, bp)
		}
	}
}

// TestIndexAnswersLikeScan: every fixture answers every function, line
// range, global and file query alike with and without its index.
func TestIndexAnswersLikeScan(t *testing.T) {
	for _, v := range append(slices.Clone(variants), "app-gcc-O2-splitdbg", "libfix-gcc-O2.so", "libfix-clang-O2.so", "kmod-gcc.ko", "kmod-clang-arm64.ko") {
		t.Run(v, func(t *testing.T) {
			f, g := indexedPair(t, needBin(t, v), t.TempDir())
			sameSymbols(t, f, g)
			sameSymbolAddrs(t, f, g, 1)
			sameAnswers(t, f, g)
		})
	}
}

// TestIndexRebuildsBadFiles: a flipped byte, a truncated file, another
// binary's index and another format version are each detected, reported
// with their reason, rebuilt, and the answers stay those of the scan.
func TestIndexRebuildsBadFiles(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	other := needBin(t, "app-clang-O2-dwarf5")
	dir := t.TempDir()
	f, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, r := EnsureIndex(f, IndexOptions{Dir: dir})
	if !r.Built || !r.Used || r.Noteworthy() {
		t.Fatalf("first build: %+v", r)
	}
	good, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	foreign := func() []byte {
		o, err := Open(other)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		ix, err := indexer{o}.buildIndex(nil)
		if err != nil {
			t.Fatal(err)
		}
		key, _, _ := indexer{o}.indexKey()
		return encodeIndex(ix, key)
	}()
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"flipped byte", flip(good, len(good)/2), ErrIndexCorrupt},
		{"flipped flag", flip(good, 12), ErrIndexCorrupt},
		{"truncated", good[:len(good)-7], ErrIndexCorrupt},
		{"empty", nil, ErrIndexCorrupt},
		{"other binary", foreign, ErrIndexForeign},
		{"other version", flip(good, 8), ErrIndexVersion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(r.Path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var notes []IndexReport
			plain, g := openPair(t, bin)
			g.UseIndex(IndexOptions{Dir: dir, Note: func(r IndexReport) { notes = append(notes, r) }})
			if g.index() == nil {
				t.Fatal("not rebuilt")
			}
			var ie *IndexError
			if len(notes) != 1 || !notes[0].Built || !errors.Is(notes[0].Stale, c.want) || !errors.As(notes[0].Stale, &ie) {
				t.Fatalf("notes %+v, want one rebuild for %v", notes, c.want)
			}
			if now, _ := os.ReadFile(r.Path); !slices.Equal(now, good) {
				t.Error("the rebuilt file differs from the first build")
			}
			q := Query{Function: exactName("work")}
			if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
				t.Errorf("work: scan %s, index %s", a, b)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	b = slices.Clone(b)
	b[i] ^= 0x40
	return b
}

// openPair opens bin twice, for a plain and an indexed File.
func openPair(t *testing.T, bin string) (*File, *File) {
	t.Helper()
	var fs [2]*File
	for i := range fs {
		f, err := Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		fs[i] = f
	}
	return fs[0], fs[1]
}

// TestIndexConcurrentBuilds: several Files of one binary building its
// index in one directory at once all get a usable index, and leave one
// whole file and no temporary ones.
func TestIndexConcurrentBuilds(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf4")
	dir := t.TempDir()
	var wg sync.WaitGroup
	reports := make([]IndexReport, 4)
	for i := range reports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := Open(bin)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			_, reports[i] = EnsureIndex(f, IndexOptions{Dir: dir})
		}()
	}
	wg.Wait()
	for _, r := range reports {
		if !r.Used || r.Noteworthy() {
			t.Errorf("report %+v", r)
		}
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || filepath.Ext(names[0]) != ".idx" {
		t.Errorf("directory holds %q, want the index and its lock", names)
	}
	f, _ := Open(bin)
	defer f.Close()
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); r.Built || !r.Used {
		t.Errorf("after the race: %+v, want the index loaded", r)
	}
}

// TestIndexUnwritableDir: a directory that cannot be made (a file is
// where a directory on its way should be) falls back to the scan, with
// one note saying why (not a directory); answers are unchanged.
func TestIndexUnwritableDir(t *testing.T) {
	bin := needBin(t, "app-gcc-O2-dwarf5")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	plain, g := openPair(t, bin)
	var notes []IndexReport
	g.UseIndex(IndexOptions{Dir: filepath.Join(notDir, "index"), Note: func(r IndexReport) { notes = append(notes, r) }})
	q := Query{Function: exactName("work")}
	if a, b := probesString(plain.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
		t.Errorf("work: scan %s, unindexed %s", a, b)
	}
	g.FindProbes(q)
	if len(notes) != 1 || notes[0].Used || !errors.Is(notes[0].Err, ErrIndexNotDir) {
		t.Errorf("notes %+v, want one: not used, not a directory", notes)
	}
}

// TestIndexCorpus: on the Debian vmlinux, -D, SRC:ALN, -L, globs and
// globals answer alike with and without the index.
func TestIndexCorpus(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	f, g := indexedPair(t, vml, t.TempDir())
	sameSymbols(t, f, g)
	sameSymbolAddrs(t, f, g, 1000)
	queries := []Query{
		{Function: exactName("vfs_read")},
		{Function: exactName("vfs_read"), Line: 12, HasLine: true},
		{Function: exactName("kfree_skb")},
		{Function: namePattern("vfs_rea*")},
		{File: "fs/read_write.c", Line: 470},
		{File: "read_write.c", Line: 470},
		{File: "mmap.c", Line: 100},
		{Function: exactName("do_sys_open"), File: "fs/open.c"},
	}
	for _, q := range queries {
		if a, b := probesString(f.FindProbes(q)), probesString(g.FindProbes(q)); a != b {
			t.Errorf("%+v:\n scan  %s\n index %s", q, a, b)
		}
	}
	for _, lq := range []LineQuery{{Function: "vfs_read", End: 1 << 30}, {File: "fs/read_write.c", Start: 460, End: 480}} {
		a, aerr := f.FindLineRange(lq)
		b, berr := g.FindLineRange(lq)
		if fmt.Sprint(a, aerr) != fmt.Sprint(b, berr) {
			t.Errorf("-L %+v: %v %v, with the index %v %v", lq, a, aerr, b, berr)
		}
	}
	for _, v := range []string{"jiffies", "init_task", "no_such_var"} {
		a, aok, _ := globals{f}.find(v)
		b, bok, _ := globals{g}.find(v)
		if aok != bok || aok && (a.t.u.off != b.t.u.off || a.i != b.i) {
			t.Errorf("global %s differs", v)
		}
	}
}

// TestIndexUnitHeaders: a File that loads an index takes its units from
// it, and they are the headers a scan reads, for the fixtures (split DWARF
// too) and the vmlinux.
func TestIndexUnitHeaders(t *testing.T) {
	bins := []string{dwarftest.NeedCorpus(t, "amd64/vmlinux")}
	for _, v := range append(slices.Clone(variants), "app-gcc-O2-splitdbg", "kmod-gcc.ko") {
		bins = append(bins, needBin(t, v))
	}
	for _, bin := range bins {
		dir := t.TempDir()
		_, built := indexedPair(t, bin, dir)
		scanned, err := built.unitsList()
		if err != nil {
			t.Fatal(err)
		}
		_, loaded := indexedPair(t, bin, dir)
		if len(loaded.headers) == 0 || !sameHeaders(loaded.headers, built.headers) {
			t.Fatalf("%s: %d headers from the index, %d scanned", bin, len(loaded.headers), len(built.headers))
		}
		units, err := loaded.unitsList()
		if err != nil || !sameHeaders(units, scanned) {
			t.Fatalf("%s: units from the index's headers differ from the scanned ones (%v)", bin, err)
		}
	}
}

// sameHeaders compares what unit headers say.
func sameHeaders(a, b []unit) bool {
	return slices.EqualFunc(a, b, func(x, y unit) bool {
		return x.off == y.off && x.end == y.end && x.dieOff == y.dieOff && x.abbrevOff == y.abbrevOff &&
			x.version == y.version && x.utype == y.utype && x.addrSize == y.addrSize && x.offSize == y.offSize
	})
}

// TestIndexDefiningUnits: on the Debian vmlinux, the units the index says
// define a function are those definesFunc finds reading each candidate,
// for a sample of the functions it names and the globs of the bench.
func TestIndexDefiningUnits(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	f, g := indexedPair(t, vml, t.TempDir())
	units, err := f.unitsList()
	if err != nil {
		t.Fatal(err)
	}
	ix := g.index()
	var qs []Query
	for _, fn := range []string{"kmalloc", "vfs_read", "getname_flags", "kfree_skb", "t_show", "no_such_function"} {
		qs = append(qs, Query{Function: exactName(fn)})
	}
	for i, fn := range tabNames(t, ix, tabFunc) {
		if i%499 == 0 {
			qs = append(qs, Query{Function: exactName(fn)})
		}
	}
	for _, pat := range []string{"vfs_rea*", "*_show"} {
		qs = append(qs, Query{Function: namePattern(pat)})
	}
	for _, q := range qs {
		cands, _, err := unitScan{f}.candidates(units, q, sourceName{})
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, u := range cands {
			if ok, err := (unitScan{f}).definesFunc(&units[u], q); err != nil {
				t.Fatal(err)
			} else if ok {
				want = append(want, u)
			}
		}
		got, ok := ix.definingUnits(q, cands)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: the index says units %v (%v), definesFunc %v", q.Function, got, ok, want)
		}
	}
	t.Logf("%d queries", len(qs))
}

// eachName lists st's names through EachName.
func eachName(st *Symtab) []string {
	var out []string
	st.EachName(func(n string) { out = append(out, n) })
	return out
}

// eachSym lists st's symbols through Each.
func eachSym(st *Symtab) []Sym {
	var out []Sym
	st.Each(func(s Sym) { out = append(out, s) })
	return out
}

// sameSymbols checks that g's symbol map, read from its index, is f's:
// the same symbols, names and answers to At and Lookup.
func sameSymbols(t *testing.T, f, g *File) {
	t.Helper()
	if _, ok := elfsym.Decode(g.Object, g.index().syms); !ok {
		t.Fatal("the index holds no symbol map of this binary")
	}
	a, b := f.Symbols(), g.Symbols()
	all := eachSym(a)
	ak, am := a.Kind()
	bk, bm := b.Kind()
	if !slices.Equal(all, eachSym(b)) || !slices.Equal(eachName(a), eachName(b)) ||
		a.Text != b.Text || a.HasText != b.HasText || ak != bk || am != bm {
		t.Fatalf("symbol map differs with the index: %d symbols, %d/%d names", len(all), len(eachName(a)), len(eachName(b)))
	}
	for i, s := range all {
		for _, addr := range []uint64{s.Start, s.Start - 1, s.End, s.End - 1} {
			x, xok := a.At(addr)
			y, yok := b.At(addr)
			if x != y || xok != yok {
				t.Fatalf("At(%#x): %v %v, with the index %v %v", addr, x, xok, y, yok)
			}
		}
		if i%97 != 0 {
			continue
		}
		if !slices.Equal(a.Lookup(s.Name), b.Lookup(s.Name)) {
			t.Fatalf("Lookup(%s) differs", s.Name)
		}
		if a.Count(s.Name) != b.Count(s.Name) {
			t.Fatalf("Count(%s): %d, with the index %d", s.Name, a.Count(s.Name), b.Count(s.Name))
		}
		x, xok := a.UniqueBefore(s.Start + 1)
		y, yok := b.UniqueBefore(s.Start + 1)
		if x != y || xok != yok {
			t.Fatalf("UniqueBefore(%#x): %v %v, with the index %v %v", s.Start+1, x, xok, y, yok)
		}
	}
}

// TestIndexSymbolsOfItsTable: a record of another symbol table (a
// stripped twin sharing the build-id) is not used.
func TestIndexSymbolsOfItsTable(t *testing.T) {
	f, g := openPair(t, needBin(t, "app-gcc-O2-dwarf5"))
	h, err := Open(needBin(t, "app-clang-O2-dwarf5"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := elfsym.Decode(h.Object, elfsym.Encode(g.Object, elfsym.Load(g.Object))); ok {
		t.Error("a record of another symbol table was used")
	}
	if st, ok := elfsym.Decode(g.Object, elfsym.Encode(g.Object, elfsym.Load(g.Object))); !ok || !slices.Equal(eachSym(st), eachSym(f.Symbols())) {
		t.Error("a record of this symbol table does not read back")
	}
}

// sameSymbolAddrs checks SymbolAddr with the index's table against the
// scan, for every step-th name of the symbol map and a few others.
func sameSymbolAddrs(t *testing.T, f, g *File, step int) {
	t.Helper()
	if !g.Symbols().Encoded() {
		t.Fatal("no SymbolAddr table in the index")
	}
	names := []string{"no_such_symbol", "_sinittext", "_einittext", "kallsyms_num_syms"}
	for i, s := range eachSym(f.Symbols()) {
		if i%step == 0 {
			names = append(names, s.Name)
		}
	}
	for _, n := range names {
		a, aok := f.SymbolAddr(n)
		b, bok := g.SymbolAddr(n)
		if a != b || aok != bok {
			t.Errorf("SymbolAddr(%s): %#x %v, with the index %#x %v", n, a, aok, b, bok)
		}
	}
}

// TestIndexRewrittenFile: a file rewritten in place keeps its build-id
// but not the index of its former bytes (here its line tables lose their
// file names, as in cmd's TestCorruptLineFileTable).
func TestIndexRewrittenFile(t *testing.T) {
	orig, err := os.ReadFile(needBin(t, "app-gcc-O0-dwarf4"))
	if err != nil {
		t.Fatal(err)
	}
	rewritten, err := dwarftest.EmptyLineFiles(orig)
	if err != nil {
		t.Fatal(err)
	}
	p, dir := filepath.Join(t.TempDir(), "app"), t.TempDir()
	if err := os.WriteFile(p, orig, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, r := EnsureIndex(f, IndexOptions{Dir: dir}); !r.Built {
		t.Fatalf("%+v", r)
	}
	f.Close()
	if err := os.WriteFile(p, rewritten, 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(p, later, later)
	plain, g := indexedPair(t, p, dir)
	sameAnswers(t, plain, g)
}

// TestIndexNoCodeNotRescanned: FUNC:RLN at a line without code, where the
// index led to the function's unit, is not taken for a function the index
// hid: it answers without a scan of .debug_info for the name (a batch of
// such specs paid one such scan each, 64% of a 6.12 run's CPU).
func TestIndexNoCodeNotRescanned(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	_, f := indexedPair(t, vml, t.TempDir())
	// vfs_read:100 is past the function's end: no code there.
	ps, err := f.FindProbes(Query{Function: exactName("vfs_read"), Line: 100, HasLine: true})
	if len(ps) > 0 {
		t.Fatal("vfs_read:100 has code in this build: pick a line without")
	}
	if _, scanned := f.refs.get("vfs_read"); scanned {
		t.Errorf("vfs_read:100 (%v) scanned .debug_info for the name", err)
	}
}

// TestIndexCloneNameNotRescanned: a GCC clone's symbol (.isra.0), which
// no C unit names, is not taken for a function the index hid.
func TestIndexCloneNameNotRescanned(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	_, f := indexedPair(t, vml, t.TempDir())
	const clone = "do_sysinfo.isra.0"
	if len(f.Symbols().Lookup(clone)) == 0 {
		t.Fatalf("no symbol %s in this build: pick another clone", clone)
	}
	f.FindProbes(Query{Function: exactName(clone)})
	if _, scanned := f.refs.get(clone); scanned {
		t.Errorf("%s scanned .debug_info for the name", clone)
	}
}

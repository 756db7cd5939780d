package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// lineFunc is a function of a binary: the vmlinux, or a module.
type lineFunc struct{ module, function, file string }

// lineAgreement checks one function: -D FUNC:N resolves exactly for the
// lines N that -L FUNC lists, over the function's lines and two past its
// last, and at the addresses -L --detail shows for the line, and so does
// -D SRC:LINE for each listed line. It returns the disagreements.
func lineAgreement(t *dwarfres.File, lf lineFunc) []string {
	lr, err := t.FindLineRange(dwarfres.LineQuery{Function: lf.function, File: lf.file, End: 1 << 30})
	if err != nil || lr == nil || len(lr.Lines) == 0 {
		return nil // no line range (an assembly function, an alias): nothing to compare
	}
	listed := map[int]bool{}
	last := 0
	for _, l := range lr.Lines {
		listed[l-lr.Offset] = true
		last = max(last, l-lr.Offset)
	}
	// -L answers from the first unit defining the function; -D, unless
	// told the file, probes every function of the name (a static one
	// may be defined in several files): name the file -L chose.
	name, file := lf.function, lf.file
	if file == "" {
		file = pathTail(lr.Path)
	}
	name += "@" + file
	points, err := detailPoints(t, lf)
	if err != nil {
		return []string{fmt.Sprintf("%s: -L --detail: %v", name, err)}
	}
	var bad []string
	// FUNC:0 is the function's entry for -D (as FUNC), not its
	// declaration line: from 1 on.
	for n := 1; n <= last+2; n++ {
		spec, err := grammar.ParseSpec(fmt.Sprintf("%s:%d", name, n))
		if err != nil {
			return []string{err.Error()}
		}
		r, err := probegen.Resolve(t, spec, "", probegen.ResolveOptions{MaxProbes: 1024})
		switch {
		case err == nil && !listed[n]:
			bad = append(bad, fmt.Sprintf("%s:%d: not listed, -D resolves it", name, n))
		case err != nil && listed[n]:
			bad = append(bad, fmt.Sprintf("%s:%d: listed, -D: %v", name, n, err))
		case err == nil:
			if b := pointAgreement(r, points[n]); b != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: %s", name, n, b))
			}
		}
		if listed[n] {
			// The same line as SRC:LINE: the same points, and those of
			// any other function built from the same source
			// (lzo1x_compress.c is compiled twice, the second time as
			// lzo1x_1_compress_safe).
			src := fmt.Sprintf("%s:%d", lr.Path, lr.Offset+n)
			spec, err := grammar.ParseSpec(src)
			if err != nil {
				return []string{err.Error()}
			}
			r, err := probegen.Resolve(t, spec, "", probegen.ResolveOptions{MaxProbes: 1024})
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s:%d: listed, -D %s: %v", name, n, src, err))
			} else if b := pointAgreement(ofFunction(r, lf.function, points[n]), points[n]); b != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: -D %s: %s", name, n, src, b))
			}
		}
	}
	return bad
}

// detailPoints is -L FUNC --detail's points, by line relative to FUNC.
func detailPoints(t *dwarfres.File, lf lineFunc) (map[int][]listing.LinePoint, error) {
	spec := lf.function
	if lf.file != "" {
		spec += "@" + lf.file
	}
	l, err := probegen.ListLineVars(t, spec, nil, listing.VarOptions{})
	if err != nil {
		return nil, err
	}
	out := map[int][]listing.LinePoint{}
	for _, ln := range l.Lines {
		out[ln.Num] = ln.Points
	}
	return out, nil
}

// ofFunction is r less the points at addresses pts does not have that
// another function than fn holds (one built from the same source).
func ofFunction(r *answer.Resolution, fn string, pts []listing.LinePoint) *answer.Resolution {
	want := map[uint64]bool{}
	for _, p := range pts {
		want[p.Addr] = true
	}
	out := *r
	out.Probes = nil
	for _, p := range r.Probes {
		if !want[p.Addr] && p.Function != fn && p.InlinedInto != fn {
			continue
		}
		out.Probes = append(out.Probes, p)
	}
	return &out
}

// pointAgreement compares the points -D writes with those -L --detail
// shows for one line, by address and by the SYMBOL+OFFS each names it
// with: "" when they are the same.
func pointAgreement(r *answer.Resolution, pts []listing.LinePoint) string {
	var d, l []string
	for _, p := range r.Probes {
		// The symbol holding the address; -D writes another (_text, a
		// unique one before it) for a name that is not unique, and
		// there is none in init text: then the one -D writes.
		sym, off := p.ELFSymbol, p.ELFOffset
		if sym == "" || p.Attach.Symbol == "_text" {
			sym, off = p.Attach.Symbol, p.Attach.Offset // _text: a name the kernel has several of
		}
		where := fmt.Sprintf("%s+%d", sym, off)
		d = append(d, fmt.Sprintf("%#x=%s", p.Addr, where))
	}
	for _, p := range pts {
		l = append(l, fmt.Sprintf("%#x=%s", p.Addr, p.Point))
	}
	slices.Sort(d)
	slices.Sort(l)
	d, l = slices.Compact(d), slices.Compact(l)
	if slices.Equal(d, l) {
		return ""
	}
	return fmt.Sprintf("-D probes %v, -L --detail shows %v", d, l)
}

// TestLineListingAgreesWithDefinitions: every line -L FUNC lists
// resolves with -D FUNC:N, and every other line of the function does not
// (vfs_read; ksys_read:11, which perf's -D refuses at a row of line 9 at
// the same address though the line has one of its own; iput:8, the entry
// of the inlined atomic_inc, whose row is in atomic-instrumented.h, which
// perf -D probes and its -L leaves out), and -D FUNC:N refuses a line
// FUNC has no code of (perf probes whichever function holds the line:
// tty_write:18 is redirected_tty_write's, print_type_s16:3 print_type_x8's).
// nft_do_chain:4 is the call site of the inlined nft_net, whose entry has
// no statement row: -D probes it (nf_tables:nft_do_chain+33), and perf
// 6.1's -L left it out on some runs (a stale line), perf 6.12 lists it.
func TestLineListingAgreesWithDefinitions(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	moddir := needModDir(t, moduleSet("6.1", "amd64").moddir)
	files := map[string]*dwarfres.File{}
	defer closeAll(files)
	vf := agreementTarget(t, files, vml, moddir, "")
	for _, fn := range []string{"vfs_read", "ksys_read", "iput", "tty_write"} {
		for _, b := range lineAgreement(vf, lineFunc{"", fn, ""}) {
			t.Error(b)
		}
	}
	for spec, want := range map[string]string{"tty_write:18": "", "print_type_s16:3": ""} {
		sp, _ := grammar.ParseSpec(spec)
		defs, _, err := probegen.Definitions(vf, sp, "", probegen.ResolveOptions{})
		var got []string
		for _, d := range defs {
			got = append(got, d.Target)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("-D %s = %v (%v), want %q", spec, got, err, want)
		}
	}
	nf := agreementTarget(t, files, vml, moddir, "net/netfilter/nf_tables.ko")
	lr, err := nf.FindLineRange(dwarfres.LineQuery{Function: "nft_do_chain", End: 1 << 30})
	if err != nil || lr == nil || !slices.Contains(lr.Lines, lr.Offset+4) {
		t.Errorf("-L nft_do_chain: line 4 not listed (%v)", err)
	}
	spec, _ := grammar.ParseSpec("nft_do_chain:4")
	if defs, _, err := probegen.Definitions(nf, spec, "", probegen.ResolveOptions{}); err != nil || len(defs) != 1 || defs[0].Target != "nf_tables:nft_do_chain+33" {
		t.Errorf("-D nft_do_chain:4 = %v, %v; want nf_tables:nft_do_chain+33", defs, err)
	}
}

// TestLineAgreementSweep is TestLineListingAgreesWithDefinitions over
// the functions the conformance specs name, on the 6.1, 6.12 and 7.3
// kernels of both architectures and their modules: every 32nd function (46 of
// 1359), all of them with DWPROBE_LINEAGREE=all (8 minutes on two
// shared cores), every Nth with DWPROBE_LINEAGREE=N. Each line -D
// resolves is probed at the points -L --detail shows for it.
func TestLineAgreementSweep(t *testing.T) {
	step := 32
	switch v := os.Getenv("DWPROBE_LINEAGREE"); {
	case v == "all":
		step = 1
	case v != "":
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			step = n
		}
	}
	for _, k := range agreementKernels {
		t.Run(k.name, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, k.vmlinux)
			moddir := needModDir(t, k.mods.moddir)
			checkAgreement(t, vml, moddir, specFunctions(t, k.vml.specs, k.mods.specs), step)
		})
	}
}

// agreementKernel is one kernel of the corpus with the spec lists whose
// functions are checked on it.
type agreementKernel struct {
	name, vmlinux string
	vml, mods     conformanceSet // the conformance sets naming the functions
}

var agreementKernels = []agreementKernel{
	{"6.1-amd64", "amd64/vmlinux", conformanceSets[0], moduleSet("6.1", "amd64")},
	{"6.1-arm64", "arm64/vmlinux", conformanceSets[1], moduleSet("6.1", "arm64")},
	{"6.12-amd64", "6.12/amd64/vmlinux", laterSet("6.12", "amd64"), moduleSet("6.12", "amd64")},
	{"6.12-arm64", "6.12/arm64/vmlinux", laterSet("6.12", "arm64"), moduleSet("6.12", "arm64")},
	{"7.3-amd64", "7.3/amd64/vmlinux", laterSet("7.3", "amd64"), moduleSet("7.3", "amd64")},
	{"7.3-arm64", "7.3/arm64/vmlinux", laterSet("7.3", "arm64"), moduleSet("7.3", "arm64")},
}

// checkAgreement runs lineAgreement on every step-th function of fns.
func checkAgreement(t *testing.T, vml, moddir string, fns []lineFunc, step int) {
	files := map[string]*dwarfres.File{}
	defer closeAll(files)
	start, n, nbad := time.Now(), 0, 0
	for i := 0; i < len(fns); i += step {
		lf := fns[i]
		f := agreementTarget(t, files, vml, moddir, lf.module)
		if f == nil {
			continue // a module this kernel does not build
		}
		n++
		for _, b := range lineAgreement(f, lf) {
			nbad++
			t.Errorf("%s %s", lf.module, b)
		}
	}
	t.Logf("%d of %d functions, %d disagreements, %v", n, len(fns), nbad, time.Since(start).Round(time.Millisecond))
}

func closeAll(files map[string]*dwarfres.File) {
	for _, f := range files {
		f.Close()
	}
}

// specIdent is a C function name: specs naming a glob, a clone
// (name.isra.0), an address or a source file are left out.
var specIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// specFunctions lists the functions, with their @SRC and -m module, named
// by the spec lists, once each, in list order.
func specFunctions(t *testing.T, lists ...string) []lineFunc {
	var out []lineFunc
	seen := map[lineFunc]bool{}
	for _, list := range lists {
		fh, err := os.Open(filepath.Join("..", "..", "testdata", "conformance", list))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			lf, ok := specFunction(sc.Text())
			if ok && !seen[lf] {
				seen[lf] = true
				out = append(out, lf)
			}
		}
		fh.Close()
	}
	return out
}

// specFunction is the function one spec line names, if any.
func specFunction(line string) (lineFunc, bool) {
	fields := strings.Split(line, "\t")
	if len(fields) < 2 || strings.HasPrefix(line, "#") || fields[0] == "F" {
		return lineFunc{}, false
	}
	var lf lineFunc
	if len(fields) > 2 {
		opts := strings.Fields(fields[2])
		if i := slices.Index(opts, "-m"); i >= 0 && i+1 < len(opts) {
			lf.module = opts[i+1]
		}
	}
	point, _, _ := strings.Cut(fields[1], " ")
	if _, p, ok := strings.Cut(point, "="); ok {
		point = p
	}
	point, _, _ = strings.Cut(point, ";")
	fn, file, _ := strings.Cut(point, "@")
	lf.function, lf.file = pointName(fn), pointName(file)
	return lf, specIdent.MatchString(lf.function)
}

// pathTail is the last two elements of a path (fs/read_write.c).
func pathTail(p string) string {
	dir, base := filepath.Split(p)
	return filepath.Join(filepath.Base(dir), base)
}

// pointName is a spec's function or file, less its :RLN, +OFFS, %return.
func pointName(s string) string {
	if i := strings.IndexAny(s, ":+%"); i >= 0 {
		return s[:i]
	}
	return s
}

// agreementTarget opens (once) the vmlinux or the module lf names, with
// its index; nil for a module the corpus does not have.
func agreementTarget(t *testing.T, files map[string]*dwarfres.File, vml, moddir, module string) *dwarfres.File {
	path := vml
	if module != "" {
		path = filepath.Join(moddir, module)
		if _, err := os.Stat(path); err != nil {
			return nil
		}
	}
	if f, ok := files[path]; ok {
		return f
	}
	var f *dwarfres.File
	var err error
	if module != "" {
		f, err = openModule(path)
	} else {
		f, err = dwarfres.Open(path)
	}
	if err != nil {
		t.Fatal(err)
	}
	f.UseIndex(dwarfres.IndexOptions{})
	files[path] = f
	return f
}

// TestLineOwnExtent: a line of FUNC's file past FUNC's source, found
// inside an inlined copy of it, is the caller's: -L getname_flags (6.12)
// stops at its closing brace, not at getname's call (line 96) or the
// syscalls' lines thousands below; -L/-D tty_write (6.1) leave out line
// 18, redirected_tty_write's, which perf probes. do_exit.cold, whose
// first row is abort's last line, is still probed at its address with
// do_exit's variables.
func TestLineOwnExtent(t *testing.T) {
	cases := []struct {
		vmlinux, function string
		last              int // the function's last line, relative
	}{
		{"6.12/amd64/vmlinux", "getname_flags", 82},
		{"amd64/vmlinux", "tty_write", 17},
	}
	for _, c := range cases {
		f := openIndexed(t, dwarftest.NeedCorpus(t, c.vmlinux))
		lr, err := f.FindLineRange(dwarfres.LineQuery{Function: c.function, End: 1 << 30})
		if err != nil || lr == nil {
			t.Fatalf("%s -L %s: %v", c.vmlinux, c.function, err)
		}
		if l := lr.Lines[len(lr.Lines)-1] - lr.Offset; l > c.last {
			t.Errorf("%s -L %s lists line %d, past its last line %d", c.vmlinux, c.function, l, c.last)
		}
		spec, _ := grammar.ParseSpec(fmt.Sprintf("%s:%d", c.function, c.last+1))
		if defs, _, err := probegen.Definitions(f, spec, "", probegen.ResolveOptions{}); err == nil {
			t.Errorf("%s -D %s:%d = %v, want no code", c.vmlinux, c.function, c.last+1, defs)
		}
	}
	f := openIndexed(t, dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux"))
	spec, _ := grammar.ParseSpec("do_exit.cold")
	defs, _, err := probegen.Definitions(f, spec, "", probegen.ResolveOptions{})
	if err != nil || len(defs) != 1 || defs[0].Target != "do_exit.cold+0" {
		t.Errorf("-D do_exit.cold = %v, %v; want do_exit.cold+0", defs, err)
	}
}

func openIndexed(t *testing.T, path string) *dwarfres.File {
	f, err := dwarfres.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.UseIndex(dwarfres.IndexOptions{})
	return f
}

// TestLineAgreementHeaderFunctions: a header's static inline, defined in
// many units, has some lines in some units' copies only. -D FUNC:RLN
// probes the units that have the line, not refused by one that shares
// its address with another line (fsnotify_access:2, nft_set_ext), and -L
// lists the lines of every unit's copies (memcmp:14 is not in the first
// unit's; perf lists that unit's only).
func TestLineAgreementHeaderFunctions(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	moddir := needModDir(t, moduleSet("6.12", "amd64").moddir)
	files := map[string]*dwarfres.File{}
	defer closeAll(files)
	for _, lf := range []lineFunc{{"", "fsnotify_access", ""}, {"net/netfilter/nf_tables.ko", "nft_set_ext", ""}} {
		for _, b := range lineAgreement(agreementTarget(t, files, vml, moddir, lf.module), lf) {
			t.Error(b)
		}
	}
	f := agreementTarget(t, files, vml, moddir, "")
	lr, err := f.FindLineRange(dwarfres.LineQuery{Function: "memcmp", End: 1 << 30})
	if err != nil || lr == nil || !slices.Contains(lr.Lines, lr.Offset+14) {
		t.Errorf("-L memcmp: line 14 not listed (%v)", err)
	}
	spec, _ := grammar.ParseSpec("memcmp:14")
	if _, _, err := probegen.Definitions(f, spec, "", probegen.ResolveOptions{MaxProbes: 1024}); err != nil {
		t.Errorf("-D memcmp:14: %v", err)
	}
}

// openModule opens the module at path as -m PATH does (its debuginfo
// found as dwprobe finds it), for its File.
func openModule(path string) (*dwarfres.File, error) {
	tgt, err := openTarget(&options{module: path, symbolsOnly: true})
	if err != nil {
		return nil, err
	}
	return tgt.File, nil
}

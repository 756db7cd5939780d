package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
)

// lineFunc is a function of a binary: the vmlinux, or a module.
type lineFunc struct{ module, function, file string }

// lineAgreement checks one function: -D FUNC:N resolves exactly for the
// lines N that -L FUNC lists, over the function's lines and two past its
// last. It returns the disagreements.
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
	name := lf.function
	if lf.file != "" {
		name += "@" + lf.file
	}
	var bad []string
	for n := 0; n <= last+2; n++ {
		spec, err := probegen.ParseSpec(fmt.Sprintf("%s:%d", name, n))
		if err != nil {
			return []string{err.Error()}
		}
		_, _, err = probegen.Definitions(t, spec, "", probegen.ResolveOptions{MaxProbes: 1024})
		switch {
		case err == nil && !listed[n]:
			bad = append(bad, fmt.Sprintf("%s:%d: not listed, -D resolves it", name, n))
		case err != nil && listed[n]:
			bad = append(bad, fmt.Sprintf("%s:%d: listed, -D: %v", name, n, err))
		}
	}
	return bad
}

// TestLineListingAgreesWithDefinitions: every line -L FUNC lists
// resolves with -D FUNC:N, and every other line of the function does not
// (vfs_read; many functions still differ: -D searches the whole unit for
// the line, -L the function's scopes).
// nft_do_chain:4 is the call site of the inlined nft_net, whose entry has
// no statement row: -D probes it (nf_tables:nft_do_chain+33), and perf
// 6.1's -L left it out on some runs (a stale line), perf 6.12 lists it.
func TestLineListingAgreesWithDefinitions(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	moddir := needModDir(t, moduleSet("6.1", "amd64").moddir)
	files := map[string]*dwarfres.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, lf := range []lineFunc{{"", "vfs_read", ""}} {
		f := agreementTarget(t, files, vml, moddir, lf.module)
		if f == nil {
			t.Fatalf("%s: not in the corpus", lf.module)
		}
		for _, b := range lineAgreement(f, lf) {
			t.Error(b)
		}
	}
	nf := agreementTarget(t, files, vml, moddir, "net/netfilter/nf_tables.ko")
	lr, err := nf.FindLineRange(dwarfres.LineQuery{Function: "nft_do_chain", End: 1 << 30})
	if err != nil || lr == nil || !slices.Contains(lr.Lines, lr.Offset+4) {
		t.Errorf("-L nft_do_chain: line 4 not listed (%v)", err)
	}
	spec, _ := probegen.ParseSpec("nft_do_chain:4")
	if defs, _, err := probegen.Definitions(nf, spec, "", probegen.ResolveOptions{}); err != nil || len(defs) != 1 || defs[0].Target != "nf_tables:nft_do_chain+33" {
		t.Errorf("-D nft_do_chain:4 = %v, %v; want nf_tables:nft_do_chain+33", defs, err)
	}
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

package dwarfres

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// needDwz returns a dwz-processed fixture, skipping (failing under make
// test) without dwz.
func needDwz(t *testing.T, name string) string {
	t.Helper()
	dwarftest.NeedTool(t, "dwz")
	return needBin(t, name)
}

// TestDwzStringsAndTypesFromCommonFile: in a dwz -m program, work's name
// is a DW_FORM_GNU_strp_alt (DW_FORM_strp_sup with -5) string and p's
// type a DW_FORM_GNU_ref_alt (ref_sup4) reference: both read from the
// common file, not from the program's own .debug_str and .debug_info.
func TestDwzStringsAndTypesFromCommonFile(t *testing.T) {
	for _, name := range []string{"dwz-m/app-gcc-O2-dwarf5", "dwz-m5/app-gcc-O2-dwarf5", "dwz-m/app-gcc-O2-dwarf4"} {
		t.Run(name, func(t *testing.T) {
			f, err := Open(needDwz(t, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ps, err := f.FindProbes(Query{Function: exactName("work")})
			if err != nil || len(ps) != 1 || ps[0].Func != "work" {
				t.Fatalf("FindProbes(work) = %+v, %v; want one point in work", ps, err)
			}
			v, ok := ps[0].Scope.Lookup("p")
			if !ok {
				t.Fatal("no p in work")
			}
			if tn, _ := v.TypeName(); tn != "struct item*" {
				t.Errorf("p's type = %q, want struct item*", tn)
			}
			tp, _ := v.RealType(true)
			tp, _ = tp.RealType(true)
			if m, ok := tp.FindMember("name"); !ok || m.Name() != "name" {
				t.Errorf("struct item has no member name (common file's type not followed)")
			}
		})
	}
}

// TestDwzInlineInstancesElsewhere: pt_scale's abstract instance is in a
// partial unit (dwz) or the common file (dwz -m); both of its inlined
// copies, in scale_a's and scale_b's units, are found, as in the plain
// build.
func TestDwzInlineInstancesElsewhere(t *testing.T) {
	want := probeFuncs(t, needDwz(t, "dwzapp-gcc-O2-dwarf5"), "pt_scale")
	if !slices.Equal(want, []string{"scale_a", "scale_b"}) {
		t.Fatalf("plain build: pt_scale in %v, want scale_a and scale_b", want)
	}
	for _, name := range []string{"dwzapp-gcc-O2-dwarf5-dwz", "dwz-m/dwzapp-gcc-O2-dwarf5", "dwz-m5/dwzapp-gcc-O2-dwarf5"} {
		if got := probeFuncs(t, needBin(t, name), "pt_scale"); !slices.Equal(got, want) {
			t.Errorf("%s: pt_scale in %v, want %v", name, got, want)
		}
	}
}

// probeFuncs returns the functions fn's points are in.
func probeFuncs(t *testing.T, path, fn string) []string {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := f.FindProbes(Query{Function: exactName(fn)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, p := range ps {
		if p.RealName != fn {
			t.Errorf("%s: a point of %s is named %q", path, fn, p.RealName)
		}
		out = append(out, p.Func)
	}
	return out
}

// TestDwzCommonFileMissingOrWrong: without its common file, or with
// another one in its place (another build-id), a query fails with an
// *AltFileError naming the file, the build-id wanted and the paths tried.
func TestDwzCommonFileMissingOrWrong(t *testing.T) {
	src := needDwz(t, "dwz-m/app-gcc-O2-dwarf5")
	probe := func(t *testing.T, dir string) error {
		t.Helper()
		f, err := Open(dwarftest.CopyFile(t, src, filepath.Join(dir, filepath.Base(src)), 0o644))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, err = f.FindProbes(Query{Function: exactName("work")})
		var ae *AltFileError
		if !errors.As(err, &ae) || !errors.Is(err, ErrNoDebugInfo) {
			t.Fatalf("FindProbes = %v, want an *AltFileError", err)
		}
		name, id, _, _ := altName(f.Object)
		if ae.Name != "common.debug" || ae.BuildID != id || len(id) != 40 ||
			ae.Tried[0] != filepath.Join(dir, name) || !strings.Contains(err.Error(), id) {
			t.Errorf("error %+v (%v): want common.debug, build-id %s, %s tried first", ae, err, id, filepath.Join(dir, name))
		}
		return err
	}
	t.Run("missing", func(t *testing.T) {
		if err := probe(t, t.TempDir()); errors.Is(err, ErrBuildIDMismatch) || !strings.Contains(err.Error(), "not found") {
			t.Errorf("no common file: %v; want it not found", err)
		}
	})
	// Another build's common file is mismatched, not missing: it was
	// reported as "not found".
	t.Run("other build-id", func(t *testing.T) {
		dir := t.TempDir()
		// dwz-m5's common file: a DWARF 5 supplementary file, no build-id.
		other := dwarftest.CopyFile(t, filepath.Join(filepath.Dir(src), "..", "dwz-m5", "common.debug"), filepath.Join(dir, "common.debug"), 0o644)
		if err := probe(t, dir); !errors.Is(err, ErrBuildIDMismatch) || !strings.Contains(err.Error(), other+" is of build-id none") {
			t.Errorf("another build's common file: %v; want it named as mismatched", err)
		}
	})
}

// TestCompressedSectionsCorrupt: a .zdebug_info or SHF_COMPRESSED
// .debug_info whose stream is damaged is a *DecodeError, never a panic.
func TestCompressedSectionsCorrupt(t *testing.T) {
	for _, c := range []struct{ fixture, sec string }{
		{"app-gcc-O2-zlib-gnu", ".zdebug_info"},
		{"app-gcc-O2-zlib", ".debug_info"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			p := damageSection(t, needBin(t, c.fixture), t.TempDir(), c.sec, 40)
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = f.FindProbes(Query{Function: exactName("work")})
			var de *DecodeError
			if !errors.As(err, &de) && !errors.Is(err, ErrNoDebugInfo) {
				t.Errorf("FindProbes = %v, want a decode error", err)
			}
		})
	}
}

// damageSection copies bin into dir with the bytes of section sec from
// offset keep (past the compression header) on overwritten.
func damageSection(t *testing.T, bin, dir, sec string, keep uint64) string {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(sec)
	if s == nil || s.FileSize <= keep {
		t.Fatalf("%s: no %s past %d bytes", bin, sec, keep)
	}
	for i := s.Offset + keep; i < s.Offset+s.FileSize; i++ {
		b[i] ^= byte(i*13) | 1
	}
	p := filepath.Join(dir, filepath.Base(bin))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDwzProbePointAt: -l's mapping of an address back to a probe point
// (function, file, line) is the plain build's, pt_scale's inlined copies
// included.
func TestDwzProbePointAt(t *testing.T) {
	for _, c := range []struct{ plain, fn string }{{"dwzapp-gcc-O2-dwarf5", "pt_scale"}, {"app-gcc-O2-dwarf5", "work"}} {
		base, err := Open(needDwz(t, c.plain))
		if err != nil {
			t.Fatal(err)
		}
		ps, err := base.FindProbes(Query{Function: exactName(c.fn)})
		if err != nil || len(ps) == 0 {
			t.Fatalf("%s: FindProbes(%s) = %v, %v", c.plain, c.fn, ps, err)
		}
		for _, v := range []string{c.plain + "-dwz", "dwz-m/" + c.plain, "dwz-m5/" + c.plain} {
			f, err := Open(needBin(t, v))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				want, wok, werr := base.ProbePointAt(p.Addr)
				got, ok, err := f.ProbePointAt(p.Addr)
				if got != want || ok != wok || (err == nil) != (werr == nil) {
					t.Errorf("%s: ProbePointAt(%#x) = %+v, %v, %v; want %+v, %v, %v", v, p.Addr, got, ok, err, want, wok, werr)
				}
			}
			f.Close()
		}
		base.Close()
	}
}

// TestDwzCommonFileByBuildID: a dwz -m program copied away from its
// common file finds it in a Locator's debug directory by build-id, as
// Debian installs it (.build-id/xx/yyyy.debug).
func TestDwzCommonFileByBuildID(t *testing.T) {
	src := needDwz(t, "dwz-m/app-gcc-O2-dwarf5")
	dbg := t.TempDir()
	probe, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	_, id, _, _ := altName(probe.Object)
	probe.Close()
	p := filepath.Join(dbg, ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Rename(dwarftest.CopyFile(t, filepath.Join(filepath.Dir(src), "common.debug"), filepath.Join(dbg, "common.debug"), 0o644), p); err != nil {
		t.Fatal(err)
	}
	f, err := NewLocator(dbg).Open(dwarftest.CopyFile(t, src, filepath.Join(t.TempDir(), filepath.Base(src)), 0o644))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ps, err := f.FindProbes(Query{Function: exactName("work")}); err != nil || len(ps) != 1 {
		t.Errorf("FindProbes(work) = %v, %v; want the point found through the common file in %s", ps, err, dbg)
	}
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// runWithIndexDir runs the tests (TestMain) with their debuginfo indexes
// out of the user's cache: each test binary builds them in a directory
// of its own, unless DWPROBE_INDEX_DIR names one.
func runWithIndexDir(m *testing.M) int {
	if os.Getenv("DWPROBE_INDEX_DIR") == "" {
		dir, err := os.MkdirTemp("", "dwprobe-index")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		os.Setenv("DWPROBE_INDEX_DIR", dir)
	}
	return m.Run()
}

// TestBuildIndexOption: --build-index builds, then verifies; a corrupt
// index is rebuilt with a one-line note, and answers stay the scan's.
func TestBuildIndexOption(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	dir := t.TempDir()
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	out, _, err := dw("-x", app, "--build-index")
	if err != nil || !strings.HasSuffix(out, ".idx: built\n") || !strings.HasPrefix(out, dir) {
		t.Fatalf("first --build-index: %q, %v", out, err)
	}
	path := strings.TrimSuffix(out, ": built\n")
	if out, _, err = dw("-x", app, "--build-index"); err != nil || out != path+": verified\n" {
		t.Errorf("second --build-index: %q, %v", out, err)
	}
	want, _, err := dw("-x", app, "--no-index", "-D", "item_score")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[len(b)-1] ^= 1
	os.WriteFile(path, b, 0o644)
	got, errs, err := dw("-x", app, "-D", "item_score")
	if err != nil || got != want {
		t.Errorf("with a corrupt index: %q, %v; want %q", got, err, want)
	}
	if wantNote := "note: debuginfo index " + path + ": index corrupt: checksum mismatch: rebuilt\n"; errs != wantNote {
		t.Errorf("stderr %q, want %q", errs, wantNote)
	}
	if _, errs, _ = dw("-x", app, "-D", "item_score"); errs != "" {
		t.Errorf("after the rebuild: stderr %q", errs)
	}
	if _, _, err = dw("-x", app, "--build-index", "--no-index"); err == nil || !strings.Contains(err.Error(), "exclusive") {
		t.Errorf("--build-index --no-index: %v", err)
	}
}

// TestIndexOffBuildsNothing: --no-index and DWPROBE_INDEX=off leave the
// index directory alone.
func TestIndexOffBuildsNothing(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf4")
	dir := t.TempDir()
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	if _, _, err := dw("-x", app, "--no-index", "-D", "work"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DWPROBE_INDEX", "off")
	if _, _, err := dw("-x", app, "-L", "work"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("index directory holds %d files", len(ents))
	}
}

// TestIndexUnwritableNote: an index directory that cannot be created (a
// file on its way) gives the scan's answer and one note, saying the path
// is not a directory (issue 34: it said "index corrupt" or "mkdir").
func TestIndexUnwritableNote(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	t.Setenv("DWPROBE_INDEX_DIR", filepath.Join(file, "index"))
	want, _, _ := dw("-x", app, "--no-index", "-D", "item_score")
	got, errs, err := dw("-x", app, "-D", "item_score")
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if !strings.HasPrefix(errs, "note: debuginfo index not used (") || errs != "note: debuginfo index not used ("+file+": index path not a directory (a regular file)): scanning the debuginfo\n" {
		t.Errorf("stderr %q", errs)
	}
	if _, _, err := dw("-x", app, "--build-index"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("--build-index: %v, want the directory refused", err)
	}
}

// TestIndexTwoProcesses: two dwprobe processes building the same index at
// once both succeed, and the index they leave answers as the scan does.
func TestIndexTwoProcesses(t *testing.T) {
	app := fixture(t, "app-clang-O2-dwarf5")
	bin := dwprobeBin(t)
	dir := t.TempDir()
	// A first query only marks the binary: the two after it build.
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	if _, _, err := dw("-x", app, "-D", "item_score"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "-x", app, "-D", "item_score")
			cmd.Env = append(os.Environ(), "DWPROBE_INDEX_DIR="+dir)
			var o []byte
			o, errs[i] = cmd.Output()
			outs[i] = string(o)
		}()
	}
	wg.Wait()
	want, _, err := dw("-x", app, "--no-index", "-D", "item_score")
	if err != nil {
		t.Fatal(err)
	}
	for i := range outs {
		if errs[i] != nil || outs[i] != want {
			t.Errorf("process %d: %q, %v; want %q", i, outs[i], errs[i], want)
		}
	}
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	if out, _, err := dw("-x", app, "--build-index"); err != nil || !strings.HasSuffix(out, ": verified\n") {
		t.Errorf("the index left: %q, %v", out, err)
	}
}

// TestIndexNoDebuginfoQuiet: a binary without DWARF has no index and no
// note about one: its error is the scan's.
func TestIndexNoDebuginfoQuiet(t *testing.T) {
	stripped := fixture(t, "app-gcc-O2-stripped")
	dir := t.TempDir()
	t.Setenv("DWPROBE_INDEX_DIR", dir)
	wo, we, werr := dw("-x", stripped, "--no-index", "-D", "work")
	go_, ge, gerr := dw("-x", stripped, "-D", "work")
	if wo != go_ || we != ge || fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Errorf("with the index: %q %q %v; without %q %q %v", go_, ge, gerr, wo, we, werr)
	}
	if _, _, err := dw("-x", stripped, "--build-index"); err == nil || !strings.Contains(err.Error(), "no DWARF") {
		t.Errorf("--build-index: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("index directory holds %d files", len(ents))
	}
}

// TestIndexProgressLine: the build's progress rewrites one line, once per
// percent, and clears it at the end.
func TestIndexProgressLine(t *testing.T) {
	var b strings.Builder
	p := progressLine(&b, "vmlinux")
	for _, n := range []int{1, 2, 100, 150, 200} {
		p(n, 200)
	}
	if want := "\rindexing vmlinux: 0% of 200 units\rindexing vmlinux: 1% of 200 units\rindexing vmlinux: 50% of 200 units\rindexing vmlinux: 75% of 200 units\r\033[K"; b.String() != want {
		t.Errorf("progress %q, want %q", b.String(), want)
	}
	if isTerminal(&b) {
		t.Error("a buffer is a terminal")
	}
}

// indexFiles lists the index files (*.idx) in dir.
func indexFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.idx"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFirstQueryScans: on a fresh cache a first query answers by scanning
// and builds no index; the second query on the same binary builds it; both
// answer as --no-index does.
func TestFirstQueryScans(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("DWPROBE_INDEX_DIR", "")
	dir := filepath.Join(cache, "dwprobe", "index")
	want, _, err := dw("-x", app, "--no-index", "-D", "item_score")
	if err != nil {
		t.Fatal(err)
	}
	for i, wantIdx := range []int{0, 1, 1} {
		got, errs, err := dw("-x", app, "-D", "item_score")
		if err != nil || got != want || errs != "" {
			t.Errorf("query %d: %q %q, %v; want %q", i+1, got, errs, err, want)
		}
		if n := len(indexFiles(t, dir)); n != wantIdx {
			t.Errorf("after query %d: %d index files, want %d", i+1, n, wantIdx)
		}
	}
}

// TestManySpecsBuildIndex: a spec file of dwarfres.ManySpecs specs builds
// the index on the binary's first query; a shorter one does not.
func TestManySpecsBuildIndex(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf4")
	for _, tc := range []struct {
		specs   int
		wantIdx int
	}{{2, 0}, {dwarfres.ManySpecs - 1, 0}, {dwarfres.ManySpecs, 1}} {
		dir := t.TempDir()
		t.Setenv("DWPROBE_INDEX_DIR", dir)
		file := filepath.Join(t.TempDir(), "specs.txt")
		os.WriteFile(file, []byte("# specs\n\n"+strings.Repeat("work\n", tc.specs)), 0o644)
		want, _, err := dw("-x", app, "--no-index", "-D", "@"+file)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := dw("-x", app, "-D", "@"+file)
		if err != nil || got != want {
			t.Errorf("%d specs: %q, %v; want %q", tc.specs, got, err, want)
		}
		if n := len(indexFiles(t, dir)); n != tc.wantIdx {
			t.Errorf("%d specs: %d index files, want %d", tc.specs, n, tc.wantIdx)
		}
	}
}

// TestSpecCount: specs are counted per option and per line of an @FILE,
// up to dwarfres.ManySpecs; stdin counts as many.
func TestSpecCount(t *testing.T) {
	file := filepath.Join(t.TempDir(), "specs.txt")
	os.WriteFile(file, []byte("a\n\n  # c\nb\n c \n"), 0o644)
	many := filepath.Join(t.TempDir(), "many.txt")
	os.WriteFile(many, []byte(strings.Repeat("a\n", 100)), 0o644)
	for _, tc := range []struct {
		o    options
		want int
	}{
		{options{}, 0},
		{options{defs: []string{"f", "g"}}, 2},
		{options{defs: []string{"@" + file}, vars: []string{"f"}}, 4},
		{options{adds: []string{"@-"}}, dwarfres.ManySpecs},
		{options{defs: []string{"@" + many}}, dwarfres.ManySpecs},
		{options{defs: []string{"@/nonexistent"}}, 1},
	} {
		if got := specCount(&tc.o); got != tc.want {
			t.Errorf("specCount(%+v) = %d, want %d", tc.o, got, tc.want)
		}
	}
}

package probegen

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module is dwprobe's module path.
const module = "github.com/dwprobe/dwprobe/"

// layers is the order of dwprobe's packages along the path a spec
// travels, lowest first: a package imports only packages of a lower
// layer, never one of its own or a higher one. Every package's doc.go
// names its layer. A package missing here fails the test: a new package
// takes its place on purpose.
var layers = [][]string{
	// 1: leaves, importing no dwprobe package.
	{"lazymatch", "tracefs/arch", "dwarfres/internal/record", "dwarfres/internal/leb", "dwarfres/dwarftest"},
	// 2: ELF objects; a test server of debuginfo.
	{"dwarfres/elfobj", "dwarfres/dwarftest/debuginfodtest"},
	// 3: what is read of an object: symbols, notes, call frames, where
	// debuginfo is.
	{"dwarfres/internal/safefs", "dwarfres/elfsym", "dwarfres/locate", "dwarfres/sdt", "dwarfres/cfi"},
	// 4: fetching debuginfo; the kernel's BTF.
	{"dwarfres/debuginfod", "dwarfres/btf"},
	// 5: a target's debuginfo; the kernel's event language and tracefs.
	// Neither imports the other.
	{"dwarfres", "tracefs"},
	// 6: specs as the user writes them, parsed; event names; the C types
	// of DWARF and BTF and the member walk over them; a target's source
	// files found and read.
	{"probegen/grammar", "probegen/internal/ctype", "probegen/sources"},
	// 7: what a resolution answers: its probes, their argument reads
	// and their definitions, and its notes.
	{"probegen/answer"},
	// 8: specs resolved one way, without the resolver's DWARF search:
	// at a user binary's SDT markers.
	{"probegen/sdtprobe"},
	// 9: what is listed rather than probed: -L's lines, -V's variables,
	// -F's functions, -l's probes mapped back to source.
	{"probegen/listing"},
	// 10: specs resolved against a target into probes; a fake tracefs
	// and QEMU boots for tests.
	{"probegen", "tracefs/tracefstest", "tracefs/qemutest"},
	// 11: an answer printed another way: probes as BPF programs, kprobes
	// as a bootconfig, two builds' answers compared.
	{"probegen/ebpfprobe", "probegen/bootconfig", "probegen/diff"},
	// 12: the command line.
	{"cmd/dwprobe"},
}

// upwardKnown are imports that still run against layers, each with the
// reason it is left; the test fails when one is gone, so the list only
// shrinks.
var upwardKnown = map[string]string{}

// cmdImports are the dwprobe packages the command line may import: it
// parses flags, words messages and prints, and asks the library for the
// rest.
var cmdImports = map[string]bool{"probegen": true, "probegen/answer": true, "probegen/sdtprobe": true, "probegen/ebpfprobe": true, "probegen/bootconfig": true, "probegen/diff": true, "probegen/grammar": true, "probegen/sources": true, "probegen/listing": true, "tracefs": true, "tracefs/arch": true, "lazymatch": true}

// cmdKnown are the command line's imports beyond cmdImports still left,
// each with what it is still used for; the test fails when one is gone.
var cmdKnown = map[string]string{
	"dwarfres": "sentinel errors and typed errors (ErrNoDebugInfo, NotFoundError, ProbeError, ...)",
}

// TestCmdImports: the command line imports what cmdImports and cmdKnown
// say, no more.
func TestCmdImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+"cmd/dwprobe").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, imp := range strings.Fields(string(out)) {
		dep, ours := strings.CutPrefix(imp, module)
		switch {
		case !ours || cmdImports[dep]:
		case cmdKnown[dep] != "":
			seen[dep] = true
		default:
			t.Errorf("cmd/dwprobe imports %s: the command line asks probegen instead", dep)
		}
	}
	for dep := range cmdKnown {
		if !seen[dep] {
			t.Errorf("cmd/dwprobe no longer imports %s: take it out of cmdKnown", dep)
		}
	}
}

// TestImportLayers: no package imports one of its own layer or above
// (go list of the module's packages, test files aside).
func TestImportLayers(t *testing.T) {
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			rank[p] = i + 1
		}
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(f[0], module)
		if strings.Contains(pkg, "/testdata/") {
			continue // programs built by tests
		}
		r, ok := rank[pkg]
		if !ok {
			t.Errorf("%s is in no layer: add it to layers and say so in its doc.go", pkg)
			continue
		}
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			edge := pkg + " -> " + dep
			if rank[dep] < r {
				continue
			}
			if _, ok := upwardKnown[edge]; ok {
				seen[edge] = true
				continue
			}
			t.Errorf("%s imports upward: layer %d imports layer %d", edge, r, rank[dep])
		}
	}
	for edge := range upwardKnown {
		if !seen[edge] {
			t.Errorf("%s is gone: take it out of upwardKnown", edge)
		}
	}
}

// TestCmdHoldsNoFile: the command line's code names no *dwarfres.File and
// reads no Target's File: it asks the Target (listings, facts) instead.
func TestCmdHoldsNoFile(t *testing.T) {
	files, err := filepath.Glob("../cmd/dwprobe/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("cmd's files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "File" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "dwarfres" || id.Name == "tgt" || id.Name == "target") {
				t.Errorf("%s: %s.File: cmd holds no *dwarfres.File", fset.Position(sel.Pos()), id.Name)
			}
			return true
		})
	}
}

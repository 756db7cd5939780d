package tracefs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fetchReaders are the functions (package directory and name) that may
// read a fetcharg from text, with ParseFetch or ReadFetch, each with the
// outside text it reads. Every other fetcharg is built as a Fetch and
// written with String: nothing parses back a fetcharg dwprobe rendered
// (issue 30). Tests and fuzz targets may parse freely.
var fetchReaders = map[string]string{
	"tracefs.ReadFetch":         "the reading of outside text itself",
	"probegen/grammar.ParseArg": "a spec's raw fetcharg, as the user wrote it, read once when the spec is parsed",
	"probegen.fprobeDef":        "a raw fetcharg this model does not break down (a typecast), rewritten as text for an fprobe",
	"cmd/dwprobe.listedArgs":    "a listed event's fetchargs: kprobe_events, a batch file, the journal",
}

// TestFetchReaders: ParseFetch and ReadFetch are called in non-test code
// only by fetchReaders, and each of those still calls one.
func TestFetchReaders(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, fn := range fetchReadersIn(t, path) {
			key := filepath.ToSlash(rel) + "." + fn
			found[key] = append(found[key], filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := fetchReaders[k]; !ok {
			t.Errorf("%s (%s) reads a fetcharg from text: build a tracefs.Fetch instead, or list it in fetchReaders with the outside text it reads", k, strings.Join(found[k], ", "))
		}
	}
	for k := range fetchReaders {
		if _, ok := found[k]; !ok {
			t.Errorf("fetchReaders lists %s, which no longer calls ParseFetch or ReadFetch: remove it", k)
		}
	}
}

// fetchReadersIn names the functions of file path that call ParseFetch
// or ReadFetch (as tracefs.X, or X inside package tracefs).
func fetchReadersIn(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		calls := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && x.Name == "tracefs" {
					name = fn.Sel.Name
				}
			case *ast.Ident:
				if f.Name.Name == "tracefs" {
					name = fn.Name
				}
			}
			if name == "ParseFetch" || name == "ReadFetch" {
				calls = true
			}
			return true
		})
		if calls {
			out = append(out, fd.Name.Name)
		}
	}
	return out
}

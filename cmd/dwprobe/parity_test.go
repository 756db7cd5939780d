package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// parityFlags is one set of options, as the command line takes them and
// as a Go program gives them to the library.
type parityFlags struct {
	name string
	args []string
	opts probegen.ResolveOptions
}

// userParityFlags apply to user binaries.
var userParityFlags = []parityFlags{
	{"plain", nil, probegen.ResolveOptions{}},
	{"max-probes", []string{"--max-probes", "2"}, probegen.ResolveOptions{MaxProbes: 2}},
	{"no-inlines", []string{"--no-inlines"}, probegen.ResolveOptions{NoInlines: true}},
	{"nearest", []string{"--nearest"}, probegen.ResolveOptions{Nearest: true}},
}

// Specs of each fixture family: entries, lines, returns, arguments,
// inline instances, lazy patterns, absolute addresses, SDT markers and
// specs that fail.
var (
	appParitySpecs = []string{
		"compute c", "item_score", "compute%return $retval", "work p->name:string total",
		"work p->count", "sum_list", "work:3", "report", "geometry", "main", "app_util.c:40",
		"work;*total*", "compute+4", "0x1460", "g1:e1=compute c:x32", "nosuch_fn", "work p->nosuch",
		"work%return $retval", "item_score%return $retval", "work $vars", "compute $params",
	}
	familySpecs = map[string][]string{
		"app":    appParitySpecs,
		"views":  {"vw_fixup", "vw_fixup off phys", "vw_fixup%return $retval", "main", "main $vars", "nosuch_fn"},
		"lib":    {"fix_add a b", "fix_strsum s:string", "fix_mix", "fix_add%return $retval", "fix_mix $params", "nosuch_fn"},
		"user":   {"main", "main $vars", "main%return $retval", "nosuch_fn"},
		"sdt":    {"%dwfix:tick", "%dwfix:total", "%dwfix:*", "%dwfix:tick arg1 arg3:x64", "main", "guarded_tick i big", "%nosuch:x"},
		"dwzapp": {"scale_a", "scale_a k", "scale_a p->x", "scale_a%return $retval", "main", "nosuch_fn"},
	}
	// userParityFixtures are the C fixtures of testdata/scripts/fixtures.sh
	// a user probes, by family.
	userParityFixtures = map[string][]string{
		"app": {"app-gcc-O0-dwarf4", "app-gcc-O0-dwarf5", "app-gcc-O2-dwarf4", "app-gcc-O2-dwarf5",
			"app-gcc-O2-dwarf4-dwz", "app-gcc-O2-dwarf5-dwz", "app-gcc-O2-nopie", "app-gcc-O2-pie",
			"app-gcc-O2-zlib", "app-gcc-O2-zlib-gnu", "app-gcc-O2-zstd-objcopy", "app_nodbg",
			"app-clang-O0-dwarf4", "app-clang-O0-dwarf5", "app-clang-O2-dwarf4", "app-clang-O2-dwarf5", "app-clang-O2-dwarf4-dwz"},
		"views":  {"views-gcc-O2-dwarf4", "views-gcc-O2-dwarf5", "views-gcc-O2-incompat5"},
		"lib":    {"libfix-gcc-O2.so", "libfix-clang-O2.so"},
		"user":   {"libuser-gcc-O2", "libuser-clang-O2"},
		"sdt":    {"sdt-gcc-O0", "sdt-gcc-O2"},
		"dwzapp": {"dwzapp-gcc-O2-dwarf4", "dwzapp-gcc-O2-dwarf4-dwz", "dwzapp-gcc-O2-dwarf5", "dwzapp-gcc-O2-dwarf5-dwz", "dwzapp-clang-O2-dwarf4", "dwzapp-clang-O2-dwarf4-dwz"},
	}
)

// TestLibraryParity: for every C fixture and each set of flags, the
// library's answer (probegen.Open, Target.Resolver) is what dwprobe -D
// --json prints, field for field: the probes of each spec (address, ELF
// symbol, source, inline site, event, definition, each argument's name,
// fetcharg, types and read plan), its notes, or that it fails.
func TestLibraryParity(t *testing.T) {
	for family, names := range userParityFixtures {
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				bin, err := filepath.EvalSymlinks(fixture(t, name))
				if err != nil {
					t.Fatal(err)
				}
				checkParity(t, probegen.OpenOptions{Binary: bin}, []string{"-x", bin}, familySpecs[family], userParityFlags)
			})
		}
	}
}

// TestLibraryParityKernel is TestLibraryParity on the corpus's 6.12
// amd64 vmlinux (which takes fprobes), with the kernel's flags.
func TestLibraryParityKernel(t *testing.T) {
	vmlinux := dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")
	specs := []string{"vfs_read:12 file->f_mode buf", "vfs_write%return $retval", "do_sys_openat2 how->flags",
		"fsnotify_access", "vfs_read file->f_path.dentry->d_name.name:string", "ksys_read fd count",
		"vfs_read+4", "nosuch_function", "t:sched_switch next->pid", "vfs_read $params", "tcp_v4_connect sk->__sk_common.skc_daddr"}
	flags := []parityFlags{
		{"plain", nil, probegen.ResolveOptions{}},
		{"no-inlines", []string{"--no-inlines"}, probegen.ResolveOptions{NoInlines: true}},
		{"max-probes", []string{"--max-probes", "3"}, probegen.ResolveOptions{MaxProbes: 3}},
		{"fprobe", []string{"--fprobe"}, probegen.ResolveOptions{FProbe: true}},
	}
	checkParity(t, probegen.OpenOptions{Kernel: vmlinux}, []string{"-k", vmlinux}, specs, flags)
}

// checkParity resolves specs with each of flags through the library and
// through the command line, and compares.
func checkParity(t *testing.T, open probegen.OpenOptions, target []string, specs []string, flags []parityFlags) {
	t.Helper()
	tgt, err := probegen.Open(open)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	file := filepath.Join(t.TempDir(), "specs")
	if err := os.WriteFile(file, []byte(strings.Join(specs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fl := range flags {
		out, _, _ := dw(append(append(append([]string{}, target...), "-D", "@"+file, "--json"), fl.args...)...)
		var got []jsonSpec
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var js jsonSpec
			if err := json.Unmarshal([]byte(l), &js); err != nil {
				t.Fatalf("%s: line %q: %v", fl.name, l, err)
			}
			got = append(got, js)
		}
		if len(got) != len(specs) {
			t.Fatalf("%s: %d objects for %d specs:\n%s", fl.name, len(got), len(specs), out)
		}
		src, err := sources.New("", nil)
		if err != nil {
			t.Fatal(err)
		}
		o := fl.opts
		o.LazyLines, o.DeclText, o.LineText = src.LazyLines, src.DeclText, src.LineText
		r := tgt.Resolver(o)
		for i, spec := range specs {
			_, res, err := r.Resolve(spec)
			for _, d := range parityDiffs(res, err, got[i]) {
				t.Errorf("%s %q: %s", fl.name, spec, d)
			}
		}
	}
}

// parityDiffs are the fields in which the library's answer (res, err)
// and the command line's JSON object js differ.
func parityDiffs(res *answer.Resolution, err error, js jsonSpec) []string {
	switch {
	case err != nil && js.Error == nil:
		return []string{fmt.Sprintf("library: %v; command line: %d points", err, len(js.Points))}
	case err == nil && js.Error != nil:
		return []string{fmt.Sprintf("library: %d probes; command line: %s", len(res.Probes), js.Error.Message)}
	case err != nil:
		return nil
	}
	var out []string
	diff := func(i int, field string, lib, cli any) {
		if fmt.Sprint(lib) != fmt.Sprint(cli) {
			out = append(out, fmt.Sprintf("point %d %s: library %v, command line %v", i, field, lib, cli))
		}
	}
	diff(-1, "notes", answer.NoteTexts(res.Notes), js.Notes)
	if len(res.Probes) != len(js.Points) {
		return append(out, fmt.Sprintf("library: %d probes; command line: %d points", len(res.Probes), len(js.Points)))
	}
	for i, p := range res.Probes {
		j := js.Points[i]
		if p.Addr != 0 || p.Kind == answer.ProbeAddress {
			diff(i, "address", "0x"+strconv.FormatUint(p.Addr, 16), j.Address)
		} else {
			diff(i, "address", "", j.Address)
		}
		diff(i, "symbol", p.ELFSymbol, j.Symbol)
		diff(i, "offset", p.ELFOffset, j.Offset)
		diff(i, "source_file", p.File, j.SourceFile)
		diff(i, "source_line", p.Line, j.SourceLine)
		if p.Addr != 0 || p.Kind == answer.ProbeAddress {
			diff(i, "function", p.Function, j.Function)
		}
		diff(i, "inlined_into", p.InlinedInto, j.InlinedInto)
		diff(i, "event", p.Group+":"+p.Name, j.Event)
		diff(i, "definition", p.Definition().String(), j.Definition)
		if len(p.Args) != len(j.Args) {
			diff(i, "args", len(p.Args), len(j.Args))
			continue
		}
		def := p.Definition()
		for k, a := range p.Args {
			ja := j.Args[k]
			f := "arg " + a.Name + " "
			diff(i, f+"name", a.Name, ja.Name)
			diff(i, f+"fetcharg", a.Fetcharg, ja.Fetcharg)
			// The definition's type: a BTF kernel types $argN and $retval
			// itself, which a.Type.Fetch says and the definition leaves out.
			diff(i, f+"type", def.Args[k].Type, ja.Type)
			diff(i, f+"c_type", a.Type.Name, ja.CType)
			if ja.Read == nil {
				out = append(out, fmt.Sprintf("point %d %sread: none on the command line", i, f))
				continue
			}
			l, r := a.Loc, ja.Read
			diff(i, f+"read.kind", l.Kind.String(), r.Kind)
			diff(i, f+"read.register", l.Register, r.Register)
			dreg := -1
			if r.DWARFRegister != nil {
				dreg = *r.DWARFRegister
			}
			diff(i, f+"read.dwarf_register", l.DWARFRegister, dreg)
			diff(i, f+"read.symbol", l.Symbol, r.Symbol)
			if l.Kind == answer.LocAddress {
				diff(i, f+"read.address", "0x"+strconv.FormatUint(l.Address, 16), r.Address)
			}
			diff(i, f+"read.file_offset", l.FileOffset, r.FileOffset)
			var loads []jsonLoad
			for _, ld := range l.Loads {
				loads = append(loads, jsonLoad{Offset: int(ld.Offset), User: ld.User})
			}
			diff(i, f+"read.loads", loads, r.Loads)
			if l.Kind == answer.LocConst && l.Text == "" {
				c := -1 << 62
				if r.Const != nil {
					c = *r.Const
				}
				diff(i, f+"read.const", l.Const, c)
			}
			diff(i, f+"read.text", l.Text, r.Text)
			diff(i, f+"read.reason", l.Reason, r.Reason)
		}
	}
	return out
}

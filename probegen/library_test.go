package probegen_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	kbtf "github.com/dwprobe/dwprobe/dwarfres/btf"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// appSource is the program the library's tests and examples probe: a
// loop calling work with a structure whose name member is a string.
const appSource = `#include <stdio.h>
#include <string.h>

struct item {
	char *name;
	int count;
};

int work(struct item *p, int n)
{
	int total = p->count * n;
	total += (int)strlen(p->name);
	printf("%s %d %d\n", p->name, n, total);
	return total;
}

int main(void)
{
	struct item it = { "alpha", 3 };
	int sum = 0;
	for (int i = 1; i <= 3; i++)
		sum += work(&it, i);
	return sum == 0;
}
`

func openApp(t *testing.T, flags ...string) *probegen.Target {
	bin := dwarftest.Compile(t, "gcc", "app.c", appSource, append([]string{"-g"}, flags...)...)
	tgt, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

// TestLibraryLine resolves FUNC:LINE with a member string, a local and a
// parameter at -O0 and checks each point's placement and plans against
// its definition.
func TestLibraryLine(t *testing.T) {
	tgt := openApp(t, "-O0")
	if tgt.Source != probegen.SourceDWARF {
		t.Fatalf("Source = %v", tgt.Source)
	}
	spec, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("work:3 p->name:string total n")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Point.Function != "work" || len(res.Probes) == 0 || res.Spec != spec {
		t.Fatalf("spec %+v, %d probes, Resolution.Spec %+v", spec.Point, len(res.Probes), res.Spec)
	}
	for i, p := range res.Probes {
		d := p.Definition()
		path, off, ok := tracefs.UprobeTarget(d.Target)
		if !ok || p.Attach.FileOffset != off || p.Attach.Binary != path || !filepath.IsAbs(p.Attach.Binary) || d.Kind != tracefs.UProbe || p.EventKind != tracefs.UProbe {
			t.Errorf("probe %d at %s+%#x, definition %s", i, p.Attach.Binary, p.Attach.FileOffset, d)
		}
		if p.Kind != answer.ProbeLine || !p.User || p.Function != "work" || p.ELFSymbol != "work" || p.Attach.Symbol != "" || p.Line != 12 || filepath.Base(p.File) != "app.c" {
			t.Errorf("probe %d = %+v", i, p)
		}
		var got []string
		for _, a := range p.Args {
			got = append(got, a.String())
		}
		want := "name (char*) = string at *(*(%bp-24)); total (int) = *(%bp-4); n (int) = *(%bp-28)"
		if strings.Join(got, "; ") != want {
			t.Errorf("probe %d reads %q, want %q", i, strings.Join(got, "; "), want)
		}
		if a := p.Args[1]; a.Type.Size != 4 || !a.Type.Signed || a.Loc.DWARFRegister != 6 {
			t.Errorf("total: %+v", a)
		}
	}
}

// TestLibraryInlined: at -O2 work is inlined into main, where p has no
// location a probe can read; the point says so, and the out-of-line copy
// reads the member from the argument register.
func TestLibraryInlined(t *testing.T) {
	tgt := openApp(t, "-O2")
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("work p->count")
	if err != nil {
		t.Fatal(err)
	}
	var inlined, outOfLine bool
	for _, p := range res.Probes {
		a := p.Args[0]
		switch {
		case p.InlinedInto == "main" && a.Loc.Kind == answer.LocUnreadable && a.Loc.Reason != "":
			inlined = true
		case p.InlinedInto == "" && p.ELFSymbol == "work" && a.Loc.String() == "*(%di+8)" && a.Type.Name == "int":
			outOfLine = true
		default:
			t.Errorf("probe %+v reads %s", p, a)
		}
	}
	if !inlined || !outOfLine {
		t.Errorf("inlined %v, out of line %v", inlined, outOfLine)
	}
	var filled bool
	for _, n := range res.Notes {
		filled = filled || n.Kind == answer.NoteArgFilled
	}
	if !filled {
		t.Errorf("notes %v: want one of kind %v", res.Notes, answer.NoteArgFilled)
	}
}

// TestLibraryBatch: a batch goes on past a failing spec, which says
// where it failed.
func TestLibraryBatch(t *testing.T) {
	tgt := openApp(t, "-O0")
	rs := tgt.Resolver(probegen.ResolveOptions{}).ResolveAll([]string{"work:3 p->", "work%return $retval", "nosuch"})
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	if e := rs[0].Err; e == nil || e.Col != 8 || !errors.Is(e, grammar.ErrSyntax) {
		t.Errorf("spec 1: %#v", e)
	}
	if r := rs[1]; r.Err != nil || r.Resolution.Probes[0].Kind != answer.ProbeReturn || r.Resolution.Probes[0].Args[0].String() != "arg1 (int) = %ax" {
		t.Errorf("spec 2: %+v", r)
	}
	if rs[2].Err == nil || rs[2].Resolution != nil {
		t.Errorf("spec 3: %+v", rs[2])
	}
	if err := probegen.FirstError(rs); err != rs[0].Err {
		t.Errorf("FirstError = %v", err)
	}
}

// TestLibraryVmlinux is ExampleOpen_vmlinux on the corpus's 6.1 vmlinux.
func TestLibraryVmlinux(t *testing.T) {
	vmlinux := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	tgt, err := probegen.Open(probegen.OpenOptions{Kernel: vmlinux})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("vfs_read:12 file->f_mode buf")
	if err != nil {
		t.Fatal(err)
	}
	p := onlyProbe(t, res)
	if got, want := describe(p), "line vfs_read+114 fs/read_write.c:462 f_mode (fmode_t) = *(%bp+68); buf (char*) = %r12"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d := p.Definition(); p.User || p.Attach.Binary != "" || p.Attach.FileOffset != 0 || p.ELFSymbol != "vfs_read" || p.ELFOffset != 114 || d.String() != "p:probe/vfs_read_L12 vfs_read+114 f_mode=+68(%bp):x32 buf=%r12:x64" {
		t.Errorf("probe %+v, definition %s", p, d)
	}
}

// TestLibraryBTF: a kernel known from BTF alone resolves to Probes too,
// its arguments read from the calling convention's registers.
func TestLibraryBTF(t *testing.T) {
	vmlinux := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	f, err := dwarfres.Open(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	types, err := kbtf.FromFile(kbtf.ELF{Object: f.Object, Image: f.Image})
	if err != nil {
		t.Fatal(err)
	}
	r := &probegen.Resolver{BTF: &probegen.BTFTarget{Types: types, Machine: f.Machine, Major: 6, Minor: 1, Syms: kbtf.ELFSyms{F: kbtf.ELF{Object: f.Object, Image: f.Image}}}}
	_, res, err := r.Resolve("vfs_read count file->f_mode")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(onlyProbe(t, res)), "entry vfs_read+0 :0 count = %dx; f_mode = *(%di+68)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// onlyProbe is the one probe of res.
func onlyProbe(t *testing.T, res *answer.Resolution) answer.Probe {
	t.Helper()
	if len(res.Probes) != 1 {
		t.Fatalf("%d probes", len(res.Probes))
	}
	return res.Probes[0]
}

// describe is p in one line: kind, symbol+offset, source, arguments.
func describe(p answer.Probe) string {
	var args []string
	for _, a := range p.Args {
		args = append(args, a.String())
	}
	return fmt.Sprintf("%s %s+%d %s:%d %s", p.Kind, p.Attach.Symbol, p.Attach.Offset, p.File, p.Line, strings.Join(args, "; "))
}

// TestResolverWithoutTarget: a zero Resolver says so rather than panic.
func TestResolverWithoutTarget(t *testing.T) {
	if _, _, err := new(probegen.Resolver).Resolve("vfs_read"); !errors.Is(err, probegen.ErrNoTarget) {
		t.Errorf("Resolve on a zero Resolver: %v", err)
	}
}

// TestLibraryBatchConcurrent: ResolveAll, which resolves specs on every
// core, answers as Resolve does one spec after another (run with -race,
// it checks that the File's shared caches are safe to share).
func TestLibraryBatchConcurrent(t *testing.T) {
	vmlinux := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	tgt, err := probegen.Open(probegen.OpenOptions{Kernel: vmlinux})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	tgt.UseIndex(dwarfres.IndexOptions{Dir: t.TempDir()}, dwarfres.ManySpecs)
	specs := []string{
		"vfs_read:12 file->f_mode buf", "vfs_write%return $retval", "getname_flags filename:ustring",
		"do_sys_openat2 how->flags", "kmalloc_trace", "fs/read_write.c:470", "vfs_rea*",
		"do_sysinfo.isra.0", "tcp_v4_connect sk->__sk_common.skc_daddr", "nosuch_function",
		"submit_bio:7", "schedule", "t:sched/sched_switch", "ksys_read:3 fd", "vfs_read;*pos",
	}
	specs = append(specs, specs...) // the same specs at once: shared units
	seq := tgt.Resolver(probegen.ResolveOptions{})
	want := make([]string, len(specs))
	for i, s := range specs {
		_, res, err := seq.Resolve(s)
		want[i] = resultText(res, err)
	}
	for i, r := range tgt.Resolver(probegen.ResolveOptions{}).ResolveAll(specs) {
		var err error
		if r.Err != nil {
			err = r.Err.Err
		}
		if got := resultText(r.Resolution, err); got != want[i] {
			t.Errorf("%s:\nResolveAll %s\nResolve    %s", specs[i], got, want[i])
		}
	}
}

// resultText is a resolution's definitions and notes, or its error.
func resultText(res *answer.Resolution, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, d := range res.Definitions() {
		fmt.Fprintln(&b, d.String())
	}
	fmt.Fprintln(&b, answer.NoteTexts(res.Notes))
	return b.String()
}

// TestLibraryErrorsAs: the refusals a program can act on are typed and
// reached with errors.As through the *SyntaxError that words them: a
// member the structure lacks and a variable the function lacks, each with
// the nearest names, beside ErrSyntax for errors.Is.
func TestLibraryErrorsAs(t *testing.T) {
	r := openApp(t, "-O0").Resolver(probegen.ResolveOptions{})
	_, _, err := r.Resolve("work:3 p->nam")
	var me *probegen.MemberError
	if !errors.As(err, &me) || me.Member != "nam" || me.Type != "struct item" || strings.Join(me.Closest, ",") != "name" || !errors.Is(err, grammar.ErrSyntax) {
		t.Errorf("p->nam: %v; MemberError %+v", err, me)
	}
	_, _, err = r.Resolve("work:3 totl")
	var ve *probegen.VarError
	if !errors.As(err, &ve) || ve.Name != "totl" || ve.Function != "work" || len(ve.Closest) == 0 || ve.Closest[0] != "total" || !errors.Is(err, grammar.ErrSyntax) {
		t.Errorf("totl: %v; VarError %+v", err, ve)
	}
	_, _, err = r.Resolve("work:3 p->name->x")
	if errors.As(err, &me) || errors.As(err, &ve) || !errors.Is(err, grammar.ErrSyntax) {
		t.Errorf("a member of a char: %v, want a syntax error of another kind", err)
	}
}

// TestSDTMaxProbes: the resolver holds an SDT spec's markers
// (probegen/sdtprobe resolves them) to ResolveOptions.MaxProbes.
func TestSDTMaxProbes(t *testing.T) {
	const py = "/usr/bin/python3.11"
	if _, err := os.Stat(py); err != nil {
		dwarftest.Skip(t, "%s missing (Debian 12's python3.11)", py)
		return
	}
	tg, err := probegen.Open(probegen.OpenOptions{Binary: py})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, _, err = tg.Resolver(probegen.ResolveOptions{MaxProbes: 2}).Resolve("%sdt_python:*")
	var tm *probegen.TooManyError
	if !errors.As(err, &tm) || tm.Max != 2 || tm.N <= 2 {
		t.Errorf("--max-probes 2: got %v", err)
	}
	_, res, err := tg.Resolver(probegen.ResolveOptions{}).Resolve("%sdt_python:*")
	if err != nil || len(res.Probes) <= 2 {
		t.Errorf("no limit: got %v, %v", res, err)
	}
}

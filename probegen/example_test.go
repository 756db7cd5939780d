package probegen_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
)

// buildApp compiles appSource with gcc -g and flags, for the examples
// (which have no *testing.T to skip with: gcc is one of make test's
// dependencies).
func buildApp(flags ...string) (bin string, cleanup func()) {
	dir, err := os.MkdirTemp("", "dwprobe-example")
	if err != nil {
		panic(err)
	}
	bin, err = dwarftest.CompileIn(dir, "gcc", "app.c", appSource, append([]string{"-g"}, flags...)...)
	if err != nil {
		panic(err)
	}
	return bin, func() { os.RemoveAll(dir) }
}

// Resolve FUNC:LINE in a user binary: where to attach a uprobe (the
// binary and its file offset), and how to read each argument there.
func ExampleTarget_Resolver() {
	bin, cleanup := buildApp("-O0")
	defer cleanup()

	t, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	r := t.Resolver(probegen.ResolveOptions{})
	_, res, err := r.Resolve("work:3 p->name:string total n")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := res.Probes[0]
	fmt.Printf("%s probe in %s at %s:%d: %s+%d, file offset %#x of %s\n",
		p.Kind, p.Function, filepath.Base(p.File), p.Line, p.ELFSymbol, p.ELFOffset, p.Attach.FileOffset, filepath.Base(p.Attach.Binary))
	for _, a := range p.Args {
		fmt.Println(a)
	}
	// Output:
	// line probe in work at app.c:12: work+31, file offset 0x1168 of app
	// name (char*) = string at *(*(%bp-24))
	// total (int) = *(%bp-4)
	// n (int) = *(%bp-28)
}

// A batch of specs: each resolves or says why not, and the others go on.
func ExampleResolver_ResolveAll() {
	bin, cleanup := buildApp("-O2")
	defer cleanup()

	t, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	for _, r := range t.Resolver(probegen.ResolveOptions{}).ResolveAll([]string{"work p->count", "work p->nosuch"}) {
		if r.Err != nil {
			fmt.Printf("%q fails at column %d: %v\n", r.Spec, r.Err.Col, errors.Is(r.Err, grammar.ErrSyntax))
			continue
		}
		for _, p := range r.Resolution.Probes {
			fmt.Printf("%q: %s in %q: %s\n", r.Spec, p.Function, p.InlinedInto, p.Args[0].Loc.Kind)
		}
	}
	// Output:
	// "work p->count": work in "main": unreadable
	// "work p->count": work in "": register
	// "work p->nosuch" fails at column 6: true
}

// One record per execution of a line: at -O2 gcc inlines work into main
// and keeps an out-of-line copy, and spreads "return total;" over two
// rows of the inlined copy, in one straight-line run: the line is probed
// where each run starts, once per copy here. Each point says which copy
// it is in and whether it is its copy's First for the line (a copy whose
// line runs again on another path has more points); a tool that wants
// about one record per execution attaches the First points only.
func ExampleResolver_Resolve_copies() {
	bin, cleanup := buildApp("-O2")
	defer cleanup()

	t, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	_, res, err := t.Resolver(probegen.ResolveOptions{}).Resolve("work:5 total")
	if err != nil {
		fmt.Println(err)
		return
	}
	var first []answer.Probe
	for _, p := range res.Probes {
		fmt.Printf("line %d of %s in %q: copy %d, first %v\n", p.Line, p.Function, p.InlinedInto, p.Copy, p.First)
		if p.First {
			first = append(first, p)
		}
	}
	fmt.Printf("%d points, %d to attach for one record per execution\n", len(res.Probes), len(first))
	// Output:
	// line 14 of work in "main": copy 0, first true
	// line 14 of work in "": copy 1, first true
	// 2 points, 2 to attach for one record per execution
}

// List a function's probeable source lines, as dwprobe -L does.
func ExampleListLines() {
	bin, cleanup := buildApp("-O0")
	defer cleanup()

	t, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	l, err := probegen.ListLines(t.File, "work", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range l.Lines {
		if line.Probeable {
			fmt.Printf("%d: %s\n", line.Num, strings.TrimSpace(line.Text))
		}
	}
	// Output:
	// 0: int work(struct item *p, int n)
	// 2: int total = p->count * n;
	// 3: total += (int)strlen(p->name);
	// 4: printf("%s %d %d\n", p->name, n, total);
	// 5: return total;
	// 6: }
}

// Resolve a kernel spec offline against a vmlinux with debuginfo (here
// Debian's; TestLibraryVmlinux runs it on the corpus): the symbol and
// offset a kprobe takes, and where each argument is at that point.
func ExampleOpen_vmlinux() {
	t, err := probegen.Open(probegen.OpenOptions{Kernel: "/usr/lib/debug/boot/vmlinux-6.1.0-28-cloud-amd64"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	_, res, err := t.Resolver(probegen.ResolveOptions{}).Resolve("vfs_read:12 file->f_mode buf")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Probes {
		fmt.Printf("kprobe at %s+%d (%s:%d)\n", p.Attach.Symbol, p.Attach.Offset, p.File, p.Line)
		for _, a := range p.Args {
			fmt.Println(a)
		}
	}
	// On Debian's 6.1 cloud kernel:
	// kprobe at vfs_read+114 (fs/read_write.c:462)
	// f_mode (fmode_t) = *(%bp+68)
	// buf (char*) = %r12
}

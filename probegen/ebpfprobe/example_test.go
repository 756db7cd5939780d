package ebpfprobe_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// buildFixture compiles testdata/visit.c with gcc -g and flags, for the
// examples (which have no *testing.T to skip with: gcc is one of make
// test's dependencies).
func buildFixture(flags ...string) (bin string, cleanup func()) {
	dir, err := os.MkdirTemp("", "ebpfprobe-example")
	if err != nil {
		panic(err)
	}
	code, err := os.ReadFile("testdata/visit.c")
	if err != nil {
		panic(err)
	}
	bin, err = dwarftest.CompileIn(dir, "gcc", "visit.c", string(code), append([]string{"-g"}, flags...)...)
	if err != nil {
		panic(err)
	}
	return bin, func() { os.RemoveAll(dir) }
}

// Where cilium/ebpf attaches a uprobe at a line: the file offset, which
// link.UprobeOptions.Address takes.
func ExampleUprobeOf() {
	bin, cleanup := buildFixture("-O0")
	defer cleanup()
	t, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	_, res, err := t.Resolver(probegen.ResolveOptions{}).Resolve("visit:4")
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := ebpfprobe.UprobeOf(res.Probes[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("link.OpenExecutable(%q).Uprobe(%q, prog, &link.UprobeOptions{Address: %#x})\n", filepath.Base(u.Path), u.Symbol, u.Options.Address)
	// Output:
	// link.OpenExecutable("visit").Uprobe("visit", prog, &link.UprobeOptions{Address: 0x117a})
}

// The instructions reading two arguments at an arm64 point, whatever the
// host: p->name as a string through x19 and an int in x2, into the buffer
// at R7 from the pt_regs at R6.
func ExampleGenerate() {
	args := []answer.ArgRead{
		{Name: "name", Type: answer.CType{Name: "char*", Pointer: true, FetchType: tracefsString},
			Loc: answer.Location{Kind: answer.LocRegister, Register: "x19", Loads: loads(8, 0)}},
		{Name: "scale", Type: answer.CType{Name: "int", FetchType: tracefsS32},
			Loc: answer.Location{Kind: answer.LocRegister, Register: "x2"}},
	}
	insns, layout, err := ebpfprobe.Generate(arch.ARM64, args, ebpfprobe.Options{User: true, MaxString: 32})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d instructions; fault mask at %d, %d bytes\n", len(insns), layout.Mask, layout.Size)
	for _, f := range layout.Fields {
		fmt.Printf("%s (%s): %d bytes at %d\n", f.Name, f.Type.Name, f.Size, f.Offset)
	}
	fmt.Println(insns[2])
	// Output:
	// 27 instructions; fault mask at 0, 48 bytes
	// name (char*): 32 bytes at 8
	// scale (int): 8 bytes at 40
	// LdXMemDW dst: r3 src: r6 off: 152 imm: 0
}

// Read two arguments at a line of a user binary with a cilium/ebpf uprobe
// program: resolve the line, load and attach a program per point, print
// each hit. It needs root (the BPF syscall), so it only compiles here;
// TestLiveBPFReadsAsPrintedAndTraced runs the same on this fixture.
func ExampleTrace() {
	t, err := probegen.Open(probegen.OpenOptions{Binary: "./visit"})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	_, res, err := t.Resolver(probegen.ResolveOptions{}).Resolve("visit:4 p->name:string local")
	if err != nil {
		log.Fatal(err)
	}
	a, _ := t.Arch()
	tr, err := ebpfprobe.Trace(a, res.Probes, ebpfprobe.ProgramOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	for {
		rec, err := tr.Read()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("pid %d: name=%s local=%d\n", rec.PID, rec.Values[0].Str, rec.Values[1].Int())
	}
}

// Trace a kernel function's arguments for ten seconds, one process only,
// printing each hit as the kernel's trace line of the same definition
// (a kernel with kprobes, as root): what dwprobe trace does.
func ExampleTracer_Run() {
	t, err := probegen.Open(probegen.OpenOptions{Kernel: "/usr/lib/debug/boot/vmlinux-6.1.0-28-cloud-amd64"})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	_, res, err := t.Resolver(probegen.ResolveOptions{}).Resolve("vfs_read file->f_path.dentry->d_name.name:string count")
	if err != nil {
		log.Fatal(err)
	}
	a, _ := t.Arch()
	tr, err := ebpfprobe.Trace(a, res.Probes, ebpfprobe.ProgramOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	err = tr.Run(context.Background(), ebpfprobe.RunOptions{PID: 4242, Duration: 10 * time.Second}, func(r ebpfprobe.Record) error {
		fmt.Println(tr.Line(r))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}

var (
	tracefsString = tracefs.FetchType{String: true}
	tracefsS32    = tracefs.FetchType{Size: 4, Signed: true}
)

func loads(offs ...int64) []tracefs.Load {
	var l []tracefs.Load
	for _, o := range offs {
		l = append(l, tracefs.Load{Offset: o})
	}
	return l
}

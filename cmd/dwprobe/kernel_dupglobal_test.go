package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// dupGlobalSpec reads mm/util.c's __func__ in __vm_enough_memory (called
// on every private writable mmap, so by any exec): gcc names it
// __func__.3 on 6.1 amd64, one of 157 symbols of that name. Written
// @__func__.3+0 (as perf writes it), the kernel reads whichever
// kallsyms_lookup_name finds: another function's name.
const dupGlobalSpec = "jd_dupfunc=__vm_enough_memory __func__:string"

// dupGlobalKernels are the corpus kernels TestNonUniqueGlobalAnchor reads.
var dupGlobalKernels = []string{"amd64", "arm64", "6.12/amd64", "6.12/arm64", "7.3/amd64", "7.3/arm64"}

// TestNonUniqueGlobalAnchor: a global whose symbol name is not unique is
// read from _text (kallsyms lists data: amd64) or _stext (it does not:
// Debian's arm64), never through its own name, and the bytes at that
// anchor plus the offset, in the vmlinux, are the function's name.
func TestNonUniqueGlobalAnchor(t *testing.T) {
	for _, arch := range dupGlobalKernels {
		t.Run(arch, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			out, stderr, err := dw("-k", vml, "-D", dupGlobalSpec)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			anchor, off := dupGlobalAnchor(t, out)
			if got := cStringAt(t, vml, anchor, off); got != "__vm_enough_memory" {
				t.Errorf("%s: @%s+%d holds %q in the vmlinux, want __vm_enough_memory", out, anchor, off, got)
			}
			if anchor == "_text" && !strings.Contains(stderr, "is not unique in the kernel's symbol table") {
				t.Errorf("stderr %q: want a note saying why @_text", stderr)
			}
		})
	}
}

// dupGlobalAnchor takes the @ANCHOR+OFF of the one definition in out,
// which must name _text or _stext.
func dupGlobalAnchor(t *testing.T, out string) (string, uint64) {
	t.Helper()
	_, arg, ok := strings.Cut(strings.TrimSpace(out), "=@")
	sym, rest, ok2 := strings.Cut(arg, "+")
	offs, _, _ := strings.Cut(rest, ":")
	off, err := strconv.ParseUint(offs, 10, 64)
	if !ok || !ok2 || err != nil || sym != "_text" && sym != "_stext" || strings.Count(out, "\n") != 1 {
		t.Fatalf("definition %q: want one, reading @_text+OFF or @_stext+OFF", out)
	}
	return sym, off
}

// cStringAt reads the NUL-terminated string at sym+off in the ELF file.
func cStringAt(t *testing.T, path, sym string, off uint64) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	for _, s := range syms {
		if s.Name == sym && s.Section != elf.SHN_UNDEF {
			addr = s.Value + off
			break
		}
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || addr < s.Addr || addr >= s.Addr+s.Size {
			continue
		}
		b := make([]byte, 64)
		n, _ := s.ReadAt(b, int64(addr-s.Addr))
		if i := bytes.IndexByte(b[:n], 0); i >= 0 {
			return string(b[:i])
		}
		return fmt.Sprintf("%q (unterminated)", b[:n])
	}
	t.Fatalf("%s+%d (%#x) is in no section with bytes", sym, off, addr)
	return ""
}

// TestQEMUNonUniqueGlobal boots the corpus kernels: dwprobe's __func__ of
// __vm_enough_memory, read through @_text+OFF (amd64) or @_stext+OFF
// (arm64), is "__vm_enough_memory" on every call; perf's way of writing
// it, @__func__.N+0, is logged for comparison. The same boot traces the
// members of return values (retvalSpecs), and on arm64 counts the line
// probes' hits (lineHitCasesFor, as TestQEMULineHits* on amd64).
func TestQEMUNonUniqueGlobal(t *testing.T) {
	for _, arch := range dupGlobalKernels {
		t.Run(arch, func(t *testing.T) {
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			args := []string{"-k", vml, "-D", dupGlobalSpec}
			for _, s := range retvalSpecs {
				args = append(args, "-D", s)
			}
			defs := dwprobeDefs(t, args...)
			if arch == "amd64" {
				defs = append(defs, "p:jp/dupfunc_named __vm_enough_memory+0 f=@__func__.3+0:string")
			}
			// arm64's line hits (amd64's boot in TestQEMULineHits*).
			workload, lineCases := retvalWorkload, []lineHitCase(nil)
			if strings.HasSuffix(arch, "arm64") {
				lineCases = lineHitCasesArm64(arch)
				defs = append(defs, lineHitDefs(t, vml, lineCases)...)
				workload += lineHitWorkload
			}
			t.Logf("definitions:\n%s", strings.Join(defs, "\n"))
			g := qemutest.Boot(t, arch, defs, workload, nil)
			if g.WorkloadExit != 0 {
				t.Errorf("workload exit %d:\n%s", g.WorkloadExit, g.Workload)
			}
			checkLineHits(t, g, lineCases)
			if len(g.Rejected) != 0 {
				t.Errorf("rejected %q", g.Rejected)
			}
			recs := qemutest.FilterEvent(g.Trace, "probe/jd_dupfunc")
			if len(recs) == 0 {
				t.Fatalf("__vm_enough_memory never fired:\n%s", qemutest.TraceText(g.Trace))
			}
			for _, r := range recs {
				if got := r.Args["__func___string"]; got != `"__vm_enough_memory"` {
					t.Errorf("%s: __func__ %s, want \"__vm_enough_memory\"", r.Raw, got)
				}
			}
			checkRetvalMembers(t, g)
			if named := qemutest.FilterEvent(g.Trace, "jp/dupfunc_named"); len(named) > 0 {
				t.Logf("perf's @__func__.3+0 read %s", named[0].Args["f"])
			}
		})
	}
}

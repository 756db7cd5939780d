package probegen

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/answer"
)

// objdumpStarts returns the offsets from start of the instructions
// llvm-objdump finds in [start, start+size) of the ELF file at path, and
// whether it decoded all of them (no "<unknown>").
func objdumpStarts(t *testing.T, objdump, path string, start, size uint64) ([]uint64, bool) {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn",
		fmt.Sprintf("--start-address=%#x", start), fmt.Sprintf("--stop-address=%#x", start+size), path).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	var starts []uint64
	known := true
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		addr, rest, ok := strings.Cut(l, ":")
		if !ok || strings.HasSuffix(l, ">:") {
			continue
		}
		a, err := strconv.ParseUint(addr, 16, 64)
		if err != nil || a < start || a >= start+size {
			continue
		}
		if strings.Contains(rest, "<unknown>") {
			known = false
		}
		starts = append(starts, a-start)
	}
	return starts, known
}

// TestBoundaryMachines checks FUNC+OFFS at every byte of a sample of
// functions of the 6.12 ppc64el, s390x and riscv64 vmlinux files (and
// riscv64's 7.x, built with other extensions and ftrace NOPs) against
// llvm-objdump's instructions: every instruction start accepted, every
// other offset refused as the middle of an instruction. The sample is
// every 2500th function symbol up to 400 bytes long whose instructions
// llvm-objdump all decodes.
func TestBoundaryMachines(t *testing.T) {
	objdump := dwarftest.NeedTool(t, "llvm-objdump")
	for _, arch := range []string{"6.12/ppc64el", "6.12/s390x", "6.12/riscv64", "7.3/riscv64"} {
		t.Run(arch, func(t *testing.T) {
			path := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			ef, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := ef.Symbols()
			ef.Close()
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
			f, err := dwarfres.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			funcs, offsets, accepted := 0, 0, 0
			n := 0
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Size > 400 {
					continue
				}
				if n++; n%2500 != 0 {
					continue
				}
				starts, known := objdumpStarts(t, objdump, path, s.Value, s.Size)
				if !known || len(starts) == 0 {
					continue
				}
				funcs++
				n, a := checkEveryOffset(t, f, s.Name, s.Value, s.Size, starts, "middle of an instruction")
				offsets, accepted = offsets+n, accepted+a
			}
			t.Logf("%s: %d functions, %d offsets: %d instruction starts accepted, %d refused", arch, funcs, offsets, accepted, offsets-accepted)
			if funcs < 8 {
				t.Errorf("only %d functions sampled", funcs)
			}
		})
	}
}

// TestFtraceSiteNoteRISCV: a kretprobe of a traceable riscv64 function
// (at +0, its ftrace site) gets the note that the Debian 6.12 kernel
// refuses it (seen booted); a notrace function's, and an entry past the
// NOPs, do not.
func TestFtraceSiteNoteRISCV(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "6.12/riscv64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ks := f.Symbols().Lookup("ksys_read")
	if len(ks) != 1 {
		t.Fatalf("ksys_read: %v", ks)
	}
	at := ks[0].Start
	if n, ok := ftraceSiteNote(f, point{at: answer.Attach{Symbol: "ksys_read"}, addr: at, ret: true}); !ok || !strings.Contains(n, "kretprobe") {
		t.Errorf("ksys_read%%return: %q, %v", n, ok)
	}
	if n, ok := ftraceSiteNote(f, point{at: answer.Attach{Symbol: "ksys_read", Offset: 8}, addr: at + 8}); ok {
		t.Errorf("ksys_read+8: %q", n)
	}
}

// TestFtraceSiteNoteRISCVCallOps: riscv64's 7.x kernel (CALL_OPS, four
// NOPs before each symbol) records its ftrace sites 8 bytes before the
// symbols, so ksys_read is traceable (no notrace note), and its kretprobe
// at +0 gets no note: the booted 7.2.11 takes it (TestKernelMachines).
func TestFtraceSiteNoteRISCVCallOps(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "7.3/riscv64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if l := f.FtraceLead(); l != 8 {
		t.Errorf("ftrace lead %d, want 8", l)
	}
	ks := f.Symbols().Lookup("ksys_read")
	if len(ks) != 1 {
		t.Fatalf("ksys_read: %v", ks)
	}
	at := ks[0].Start
	if nt, known := f.Notrace(at + 8); nt || !known {
		t.Errorf("ksys_read: notrace %v, known %v; want traceable", nt, known)
	}
	if n, ok := ftraceSiteNote(f, point{at: answer.Attach{Symbol: "ksys_read"}, addr: at, ret: true}); ok {
		t.Errorf("ksys_read%%return: %q", n)
	}
}

// checkEveryOffset checks FUNC+OFFS at every byte [0, end) of the function
// name at addr against starts, llvm-objdump's instruction starts: accepted
// exactly there, refused elsewhere with an error holding one of refusals.
// It returns how many offsets it checked and how many were accepted.
func checkEveryOffset(t *testing.T, f *dwarfres.File, name string, addr, end uint64, starts []uint64, refusals ...string) (offsets, accepted int) {
	t.Helper()
	isStart := map[uint64]bool{}
	for _, o := range starts {
		isStart[o] = true
	}
	for off := uint64(0); off < end; off++ {
		pr := dwarfres.Probe{Addr: addr + off, Symbol: name, Offset: off, InText: true}
		err := checkBoundary(f, pr, name, off, true)
		offsets++
		switch {
		case isStart[off] && err != nil:
			t.Errorf("%s+%d starts an instruction (llvm-objdump) but is refused: %v", name, off, err)
		case !isStart[off] && err == nil:
			t.Errorf("%s+%d is inside an instruction (llvm-objdump) but is accepted", name, off)
		case err == nil:
			accepted++
		case !slices.ContainsFunc(refusals, func(r string) bool { return strings.Contains(err.Error(), r) }):
			t.Errorf("%s+%d: %v", name, off, err)
		}
	}
	return offsets, accepted
}

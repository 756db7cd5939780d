package probegen

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// appFuncs are the app fixture's own functions (gcc -O2 renames some
// clones: .isra, .constprop, .part).
var appFuncs = []string{"main", "work", "compute", "sum_list", "util_checksum", "checksum", "item_score",
	"geometry", "report", "histogram", "util2_checksum", "rect_area", "scale_sum", "describe", "build_list", "bad_input"}

// TestBoundaryUserMachines checks FUNC+OFFS at every byte of the app's own
// functions in its ppc64el, s390x and riscv64 builds (-O0, -O2) against
// llvm-objdump's instructions, as TestBoundaryMachines does on their
// kernels: riscv64's mix of 2- and 4-byte instructions, s390x's 2, 4 and
// 6, ppc64's 4, up to ppc64's traceback table (data past the blr, in the
// symbol's size).
func TestBoundaryUserMachines(t *testing.T) {
	objdump := dwarftest.NeedTool(t, "llvm-objdump")
	for _, machine := range []string{"ppc64el", "s390x", "riscv64"} {
		for _, opt := range []string{"O0", "O2"} {
			t.Run(machine+"-"+opt, func(t *testing.T) {
				path := dwarftest.CrossFixture(t, "..", machine, opt)
				ef, err := elf.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				syms, err := ef.Symbols()
				ef.Close()
				if err != nil {
					t.Fatal(err)
				}
				f, err := dwarfres.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				funcs, offsets, accepted := 0, 0, 0
				for _, s := range syms {
					base, _, _ := strings.Cut(s.Name, ".")
					if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || !isAppFunc(base) {
						continue
					}
					starts, end := objdumpCode(t, objdump, path, s.Value, s.Size, machine)
					if len(starts) == 0 {
						t.Errorf("%s: llvm-objdump decodes none of it", s.Name)
						continue
					}
					funcs++
					n, a := checkEveryOffset(t, f, s.Name, s.Value, end, starts, "middle of an instruction", "not on an instruction")
					offsets, accepted = offsets+n, accepted+a
				}
				t.Logf("%s %s: %d functions, %d offsets: %d instruction starts accepted, %d refused", machine, opt, funcs, offsets, accepted, offsets-accepted)
				if funcs < 12 {
					t.Errorf("only %d functions", funcs)
				}
			})
		}
	}
}

// objdumpCode returns the offsets from start of the instructions
// llvm-objdump finds in [start, start+size) of path (-z: zeros too), up to the first it
// does not decode (ppc64's traceback table), and where that is (size if
// none): s390x is decoded for z15 (LLVM 14 knows no z16), where gcc 12's default z196 code
// (ark, say) decodes.
func objdumpCode(t *testing.T, objdump, path string, start, size uint64, machine string) (starts []uint64, end uint64) {
	t.Helper()
	args := []string{"-d", "-z", "--no-show-raw-insn", fmt.Sprintf("--start-address=%#x", start), fmt.Sprintf("--stop-address=%#x", start+size), path}
	if machine == "s390x" {
		args = append([]string{"--mcpu=z15"}, args...)
	}
	out, err := exec.Command(objdump, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		addr, rest, ok := strings.Cut(l, ":")
		if !ok || strings.HasSuffix(l, ">:") {
			continue
		}
		a, err := strconv.ParseUint(addr, 16, 64)
		if err != nil || a < start || a >= start+size {
			continue
		}
		if strings.Contains(rest, "<unknown>") {
			return starts, a - start
		}
		starts = append(starts, a-start)
	}
	return starts, size
}

func isAppFunc(name string) bool {
	for _, f := range appFuncs {
		if f == name {
			return true
		}
	}
	return false
}

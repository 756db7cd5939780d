package arch

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"testing"

	"golang.org/x/arch/ppc64/ppc64asm"
	"golang.org/x/arch/riscv64/riscv64asm"
	"golang.org/x/arch/s390x/s390xasm"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// xarchLen decodes one instruction with golang.org/x/arch's decoder of
// a's machine: the decoders dwprobe does not use for boundaries (the
// length rules of InsnLen are the ISAs' own), measured here against them.
func xarchLen(a *Arch, code []byte) (int, string, error) {
	switch a {
	case PPC64LE:
		in, err := ppc64asm.Decode(code, binary.LittleEndian)
		return in.Len, in.Op.String(), err
	case S390X:
		in, err := s390xasm.Decode(code)
		return in.Len, in.Op.String(), err
	case RISCV64:
		in, err := riscv64asm.Decode(code)
		return in.Len, in.Op.String(), err
	}
	return 0, "", fmt.Errorf("no x/arch decoder for %s", a.Name)
}

// xarchReport is what x/arch's decoder made of every instruction the
// length rule found: how many, how many it refused (by their first
// bytes' pattern), and where its length differs from the rule's.
type xarchReport struct {
	insns, refused, mislen int
	refusedBy              map[string]int
	mislenBy               map[string]int
}

// measureXArch decodes every every'th function.
func measureXArch(t *testing.T, path string, a *Arch, every int) xarchReport {
	t.Helper()
	r := xarchReport{refusedBy: map[string]int{}, mislenBy: map[string]int{}}
	eachFuncCode(t, path, func(nth int, _ elf.Symbol, code []byte) {
		if nth%every != 0 {
			return
		}
		for pc := 0; pc < len(code); {
			n, err := a.InsnLen(code[pc:])
			if err != nil || n == 0 {
				break
			}
			r.insns++
			xn, op, xerr := xarchLen(a, code[pc:min(pc+8, len(code))])
			key := insnKey(a, code[pc:pc+n])
			switch {
			case xerr != nil || xn == 0:
				r.refused++
				r.refusedBy[key]++
			case xn != n:
				r.mislen++
				r.mislenBy[fmt.Sprintf("%s %s: x/arch %d, rule %d", key, op, xn, n)]++
			}
			pc += n
		}
	})
	return r
}

// insnKey groups instructions by what selects them: ppc64's primary
// opcode (and the extended opcode of 31 and 19), s390's first byte (and
// the second for the two-byte-opcode families), riscv's opcode field
// (the quadrant and funct3 of a compressed one).
func insnKey(a *Arch, c []byte) string {
	switch a {
	case PPC64LE:
		w := binary.LittleEndian.Uint32(c)
		if op := w >> 26; op == 31 || op == 19 || op == 63 || op == 59 || op == 4 || op == 60 {
			return fmt.Sprintf("op %d/%d", op, w>>1&0x3ff)
		}
		return fmt.Sprintf("op %d", w>>26)
	case S390X:
		switch c[0] {
		case 0xa5, 0xa7, 0xc0, 0xc2, 0xc4, 0xc6, 0xc8, 0xcc:
			return fmt.Sprintf("%02x.%x", c[0], c[1]&0xf)
		case 0xb2, 0xb3, 0xb9, 0x01, 0xe3, 0xe5, 0xe6, 0xe7, 0xeb, 0xec, 0xed:
			return fmt.Sprintf("%02x..%02x", c[0], c[len(c)-1])
		}
		return fmt.Sprintf("%02x", c[0])
	case RISCV64:
		if len(c) == 2 {
			h := binary.LittleEndian.Uint16(c)
			return fmt.Sprintf("c q%d f%d", h&3, h>>13)
		}
		w := binary.LittleEndian.Uint32(c)
		return fmt.Sprintf("op %#02x f3 %d", w&0x7f, w>>12&7)
	}
	return ""
}

func logXArch(t *testing.T, name string, r xarchReport) {
	t.Logf("%s: %d instructions; x/arch refuses %d (%.3f%%), gives another length for %d",
		name, r.insns, r.refused, 100*float64(r.refused)/float64(max(r.insns, 1)), r.mislen)
	for _, m := range []map[string]int{r.refusedBy, r.mislenBy} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
		for i, k := range keys {
			if i == 12 {
				t.Logf("  ... %d more kinds", len(keys)-12)
				break
			}
			t.Logf("  %7d  %s", m[k], k)
		}
	}
}

// TestDecodeCorpusMachines walks every function of the 6.12 ppc64el, s390x
// and riscv64 vmlinux files by the length rules (every function must
// walk to its last byte exactly, as checkBoundary walks to an offset),
// and measures golang.org/x/arch's decoders on the instructions of every
// 16th function: where they refuse one, and whether any length differs
// from the rule's (none may: the rule is the ISA's). On every function of
// the 6.12 builds (make test samples, for time): ppc64le 4,250,906
// instructions, x/arch refuses 0.375% (15,316 zero words, which no
// instruction is, and POWER9 floating-point ones of opcode 63); s390x
// 2,368,950, refused 0.008% (system instructions b2xx, b9xx, diagnose);
// riscv64 3,947,873, refused 0.003% (116 system instructions of opcode
// 0x73, 6 vendor ones of custom-0); no length differs anywhere.
func TestDecodeCorpusMachines(t *testing.T) {
	for _, c := range []struct {
		rel string
		a   *Arch
	}{
		{"6.12/ppc64el/vmlinux", PPC64LE}, {"6.12/s390x/vmlinux", S390X}, {"6.12/riscv64/vmlinux", RISCV64},
	} {
		t.Run(c.a.Name, func(t *testing.T) {
			path := dwarftest.NeedCorpus(t, c.rel)
			r := decodeFuncs(t, path, c.a)
			logReport(t, c.rel, r)
			if r.failed != 0 {
				t.Errorf("%d of %d functions do not walk to their end", r.failed, r.funcs)
			}
			x := measureXArch(t, path, c.a, 16)
			logXArch(t, c.rel, x)
			if x.mislen != 0 {
				t.Errorf("x/arch and the length rule disagree on %d instructions", x.mislen)
			}
		})
	}
}

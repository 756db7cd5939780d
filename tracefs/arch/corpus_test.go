package arch

import (
	"debug/elf"
	"fmt"
	"sort"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// decodeReport is what decoding every function of an ELF file found: how
// many functions were decoded, the functions that failed grouped by the
// bytes where decoding stopped, and (where instruction sizes are fixed)
// how many instructions the decoder does not know.
type decodeReport struct {
	funcs, failed int
	groups        map[string][]string // failing bytes → functions
	unknown       int
}

// decodeFuncs decodes every function symbol of the file at path with a,
// instruction by instruction from the symbol's start to its end: the walk
// checkBoundary makes up to a FUNC+OFFS. A function fails where an
// instruction does not decode or runs past the symbol's end; where
// instruction sizes are fixed, where it is not aligned to them (the only
// rule checkBoundary applies there).
func decodeFuncs(t *testing.T, path string, a *Arch) decodeReport {
	t.Helper()
	r := decodeReport{groups: map[string][]string{}}
	eachFuncCode(t, path, func(_ int, s elf.Symbol, code []byte) {
		r.funcs++
		pc, bad, ok := decodeFunc(a, code)
		if a.InsnSize != 0 {
			r.unknown += unknownInsns(a, code)
			pc, bad, ok = 0, "misaligned", s.Value%uint64(a.InsnSize) == 0 && s.Size%uint64(a.InsnSize) == 0
		}
		if !ok {
			r.failed++
			r.groups[bad] = append(r.groups[bad], fmt.Sprintf("%s+%d", s.Name, pc))
		}
	})
	return r
}

// eachFuncCode calls fn with the code of each function symbol of path in
// an executable section, and n, the symbol's number among the sized
// functions (counted before the section is checked), for sampling.
func eachFuncCode(t *testing.T, path string, fn func(n int, s elf.Symbol, code []byte)) {
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
	text := map[elf.SectionIndex][]byte{} // executable sections' bytes, read once
	n := 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		n++
		sec := f.Sections[s.Section]
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		if _, ok := text[s.Section]; !ok {
			if text[s.Section], err = sec.Data(); err != nil {
				t.Fatal(err)
			}
		}
		off := s.Value - sec.Addr
		if off+s.Size > uint64(len(text[s.Section])) {
			continue // not in the section's bytes: nothing to decode
		}
		fn(n, s, text[s.Section][off:off+s.Size])
	}
}

// decodeFunc decodes code from its start to its end; when it cannot, it
// returns the offset and the bytes where it stopped (at most 4, with
// "+past end" for an instruction that overruns the function).
func decodeFunc(a *Arch, code []byte) (int, string, bool) {
	for pc := 0; pc < len(code); {
		n, err := a.InsnLen(code[pc:])
		if err != nil || n == 0 {
			return pc, fmt.Sprintf("% x", code[pc:min(pc+4, len(code))]), false
		}
		if pc+n > len(code) {
			return pc, fmt.Sprintf("% x +past end", code[pc:]), false
		}
		pc += n
	}
	return 0, "", true
}

// unknownInsns counts the fixed-size instructions of code the decoder
// does not know (arm64asm: the LSE atomics, hvc, ...). They do not move a
// boundary, and none is a return: Rets steps over them.
func unknownInsns(a *Arch, code []byte) int {
	n := 0
	for pc := 0; pc+a.InsnSize <= len(code); pc += a.InsnSize {
		if _, err := a.InsnLen(code[pc : pc+a.InsnSize]); err != nil {
			n++
		}
	}
	return n
}

// logReport logs the counts, and each group of failures with an example
// function.
func logReport(t *testing.T, name string, r decodeReport) {
	t.Logf("%s: %d functions, %d do not decode to their end", name, r.funcs, r.failed)
	if r.unknown > 0 {
		t.Logf("%s: %d fixed-size instructions the decoder does not know (boundaries by alignment)", name, r.unknown)
	}
	keys := make([]string, 0, len(r.groups))
	for k := range r.groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(r.groups[keys[i]]) > len(r.groups[keys[j]]) })
	for _, k := range keys {
		t.Logf("  %5d  %-24s e.g. %s", len(r.groups[k]), k, r.groups[k][0])
	}
}

// TestDecodeCorpusKernels decodes every function of the reference
// kernels, as checkBoundary would up to its last byte: the x86_64 ones
// (6.1, GCC 12; 6.12, GCC 14 with IBT: endbr64 at most symbols) and the
// arm64 ones, whose fixed size needs no decoding for a boundary but whose
// return instructions (FUNC%ret) are found by decoding.
func TestDecodeCorpusKernels(t *testing.T) {
	for _, c := range []struct {
		rel string
		a   *Arch
	}{
		{"amd64/vmlinux", X86_64}, {"6.12/amd64/vmlinux", X86_64},
		{"arm64/vmlinux", ARM64}, {"6.12/arm64/vmlinux", ARM64},
	} {
		t.Run(c.rel, func(t *testing.T) {
			r := decodeFuncs(t, dwarftest.NeedCorpus(t, c.rel), c.a)
			logReport(t, c.rel, r)
			if r.failed != 0 {
				t.Errorf("%d of %d functions do not decode", r.failed, r.funcs)
			}
		})
	}
}

// cetProgram holds what -fcf-protection=full and the CET flags put in a
// user program: endbr64 at every function whose address may be taken, a
// notrack jump table, the shadow stack's rdssp and incssp, and AVX2 code
// that ends with vzeroupper.
const cetProgram = `#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

/* A vectorised loop (AVX2, ending with vzeroupper), a function pointer
   call (an indirect branch to an endbr64), a switch (a notrack jump
   table), and the shadow stack's own instructions (rdssp, incssp). */
__attribute__((noinline)) void scale(float *a, const float *b, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = a[i] * 2.0f + b[i];
}

__attribute__((noinline)) int pick(int k, int x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x / 3;
	default: return 0;
	}
}

__attribute__((noinline)) unsigned long long ssp(void)
{
	unsigned long long p = _get_ssp();
	if (p)
		_inc_ssp(0);
	return p;
}

static int twice(int x) { return 2 * x; }
int (*volatile op)(int) = twice;

int main(int argc, char **argv)
{
	float a[64], b[64];
	for (int i = 0; i < 64; i++)
		a[i] = i, b[i] = 64 - i;
	scale(a, b, 64);
	printf("%g %d %d %llu\n", a[5], pick(argc, 9), op(argc), ssp());
	return 0;
}
`

// TestDecodeCFProtectionPrograms decodes every function of cetProgram as
// gcc and clang build it, with the C runtime's functions linked in.
func TestDecodeCFProtectionPrograms(t *testing.T) {
	for _, cc := range []string{"gcc", "clang"} {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(cc+opt, func(t *testing.T) {
				prog := dwarftest.Compile(t, cc, "cet.c", cetProgram, opt, "-g", "-fcf-protection=full", "-mavx2", "-mshstk")
				r := decodeFuncs(t, prog, X86_64)
				logReport(t, cc+" "+opt, r)
				if r.failed != 0 || r.funcs < 5 {
					t.Errorf("%d of %d functions do not decode", r.failed, r.funcs)
				}
			})
		}
	}
}

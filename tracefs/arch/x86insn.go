package arch

import "golang.org/x/arch/x86/x86asm"

// x86InsnLen decodes one instruction of 64-bit code with x86asm, and
// where x86asm does not know it, finds its length by the encoding rules
// of the opcode spaces it misses (x86Extra). vzeroupper, which x86asm
// decodes with the wrong length, is read first (x86VZero).
func x86InsnLen(code []byte) (int, bool, error) {
	if n, ok := x86VZero(code); ok {
		return n, false, nil
	}
	in, err := x86asm.Decode(code, 64)
	if err == nil && in.Op == 0 {
		// x86asm's answer for prefixes before an opcode it does not
		// know is the first prefix alone, as a one-byte instruction
		// without an opcode (objdump's "rep" line): endbr64 (f3 0f 1e
		// fa) becomes "rep" and "0f 1e fa", which fails.
		err = x86asm.ErrUnrecognized
	}
	if err == nil && in.Len > 0 {
		return in.Len, in.Op == x86asm.RET, nil
	}
	if n, ok := x86Extra(code); ok {
		return n, false, nil
	}
	return 0, false, err
}

// x86Extra returns the length of an instruction of 64-bit code in the
// opcode spaces x86asm does not decode (whole or in part) that the
// compilers and the kernel emit, from the Intel SDM volume 2, appendix A
// (opcode maps) and 2.1 (instruction format): legacy prefixes, a REX
// prefix, the opcode, then ModRM, SIB and displacement, and no immediate
// in any of these spaces. ok is false for any other instruction.
//
//   - 0f 18-1f /r, the hint NOPs: endbr64 (f3 0f 1e fa) and endbr32 (fb)
//     of IBT (-fcf-protection, CONFIG_X86_KERNEL_IBT), rdssp (f3 0f 1e
//     /1), MPX's bnd* (0f 1a, 0f 1b), cldemote (0f 1c /0), nop with a
//     ModRM reg other than 0.
//   - 0f 00 /r, group 6: lkgs (f2 0f 00 /6) besides sldt, ltr, verw, ... .
//   - 0f 01 /r, group 7: the register forms (mod 11) are three bytes:
//     vmcall, vmmcall, vmgexit, encls, serialize, rdpkru, wrpkru, stgi,
//     clac, stac, monitorx, pvalidate, rmpadjust, ... .
//   - 0f ae /r (group 15: tpause, umwait, umonitor, incssp, clwb, ...) and
//     0f c7 /r (group 9: rdseed, rdpid, xsaves, vmptrld, ...).
//   - the three-byte map 0f 38 (wrss, wruss, movdiri, enqcmd, ...), whose
//     instructions all take a ModRM byte and no immediate, and its VEX
//     form (c4 with map 2: the AMX tile instructions, ...).
func x86Extra(code []byte) (int, bool) {
	i := x86Prefixes(code)
	if i+1 < len(code) && code[i] == 0xc4 {
		// Three-byte VEX: c4, RXBmmmmm, WvvvvLpp, opcode, ModRM. In
		// 64-bit mode c4 is always VEX (LES is not encodable).
		if code[i+1]&0x1f != 2 {
			return 0, false
		}
		return x86ModRM(code, i+4)
	}
	if i < len(code) && code[i]&0xf0 == 0x40 {
		i++ // REX
	}
	if i+1 >= len(code) || code[i] != 0x0f {
		return 0, false
	}
	switch op := code[i+1]; {
	case op >= 0x18 && op <= 0x1f, op == 0x00, op == 0x01, op == 0xae, op == 0xc7:
		return x86ModRM(code, i+2)
	case op == 0x38:
		return x86ModRM(code, i+3)
	}
	return 0, false
}

// x86VZero returns the length of vzeroupper or vzeroall (VEX 0f 77, SDM
// 2.3: the VEX prefix and the opcode, without ModRM): the compilers end
// AVX code with vzeroupper, and x86asm (v0.32.0, avx.go) reads the byte
// after it as a ModRM, which makes vzeroupper followed by ret four bytes
// long and hides the ret.
func x86VZero(code []byte) (int, bool) {
	i := x86Prefixes(code)
	switch {
	case i+2 < len(code) && code[i] == 0xc5 && code[i+2] == 0x77:
		return i + 3, true
	case i+3 < len(code) && code[i] == 0xc4 && code[i+1]&0x1f == 1 && code[i+3] == 0x77:
		return i + 4, true
	}
	return 0, false
}

// x86Prefixes returns how many legacy prefixes code starts with (SDM
// 2.1.1: lock, rep, segment overrides, operand and address size).
func x86Prefixes(code []byte) int {
	i := 0
	for i < len(code) {
		switch code[i] {
		case 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0x66, 0x67:
			i++
		default:
			return i
		}
	}
	return i
}

// x86ModRM returns the length of an instruction whose ModRM byte is
// code[at] and which ends with its memory operand (SDM 2.1.5, tables 2-2
// and 2-3; in 64-bit mode the 0x67 prefix selects 32-bit addressing,
// which has the same ModRM and SIB shapes). ok is false where code ends
// first or the instruction would be longer than x86's 15 bytes.
func x86ModRM(code []byte, at int) (int, bool) {
	if at >= len(code) {
		return 0, false
	}
	m := code[at]
	mod, rm := m>>6, m&7
	n := at + 1
	if mod != 3 && rm == 4 { // SIB
		if n >= len(code) {
			return 0, false
		}
		if mod == 0 && code[n]&7 == 5 {
			n += 4 // no base: disp32
		}
		n++
	}
	switch {
	case mod == 0 && rm == 5:
		n += 4 // rip+disp32
	case mod == 1:
		n++
	case mod == 2:
		n += 4
	}
	if n > len(code) || n > 15 {
		return 0, false
	}
	return n, true
}

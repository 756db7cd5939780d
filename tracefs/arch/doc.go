// Package arch is dwprobe's one model of a machine: every fact that
// differs between the architectures it writes probes for is reached from
// one Arch value per architecture, chosen from the ELF machine of the file
// probed (For), never from the host's (Host is for the running kernel
// only).
//
// An Arch holds the DWARF register numbers and the kernel's names for them
// (DWARFRegister), the names the kernel's regs_query_register_offset
// accepts and their byte offsets in struct pt_regs (HasRegister,
// PtRegsOffset), assembler spellings of registers (RegisterHint for a
// user's "%rax", AsmRegister for an SDT note's operands), the C and Go
// calling conventions (IntArgRegs, StackArgOffset, GoIntResultRegs) and
// the instruction rules (InsnSize, InsnLen, Rets, EntryNOPs, IsNOP,
// MappingSymbols).
//
// arch.go holds the type and what is common; x86_64.go and arm64.go hold
// one architecture each, with links to the ABI documents and kernel files
// their tables come from. x86insn.go holds x86_64's instruction lengths:
// x86asm, and the encodings it misses or mis-sizes (endbr64 of IBT and
// -fcf-protection, the system instructions of groups 6, 7, 9 and 15, the
// 0f 38 map, vzeroupper), measured on every function of the reference
// kernels by corpus_test.go. The file names avoid Go's _amd64/_arm64
// suffixes, which would make them build constraints: every table is
// present on every host. Register names are the kernel's, without a
// fetcharg's '%'.
//
// Its place in dwprobe's import order (probegen/layers_test.go): a leaf,
// importing no dwprobe package; tracefs, probegen and above use it. It was
// probegen/arch, moved below tracefs (issue 30), which checks register
// names with it. It stays a leaf on purpose: tracefs (the register names
// of a definition line), dwarfres (StepAt, a function's control flow for
// a line's runs) and probegen (locations, conventions) all read one model,
// and dwarfres and tracefs sit below probegen, so a model inside probegen
// would be a second copy or an upward import.
package arch

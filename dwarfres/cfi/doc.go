// Package cfi reads call-frame information (.debug_frame, .eh_frame) to
// say where the canonical frame address is at a pc: the rule a probe
// needs to turn a DW_OP_call_frame_cfa frame base into a stack-relative
// fetcharg. It parses a section's bytes (Parse) with delve's frame
// package, sorts the entries for its binary search, and hides from its
// interpreter the vendor opcode arm64 kernels use around every frame
// (DW_CFA_AARCH64_negate_ra_state), which does not move the CFA.
//
//   - cfi.go: Table, Parse, Table.CFA, ErrExpression.
//   - vendor.go: the vendor opcode made a DW_CFA_nop (vendorCFAAsNop).
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 3,
// importing elfobj only (its sentinel and DecodeError), never dwarfres
// itself.
package cfi

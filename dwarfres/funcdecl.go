package dwarfres

import (
	"debug/dwarf"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// FuncDecl is the out-of-line function containing an address, as DWARF
// declares it.
type FuncDecl struct {
	Name    string
	File    string // the declaration's file
	CompDir string // its unit's DW_AT_comp_dir, to find the file
	Line    int    // the declaration's line, 0 when unknown
	// Inline: DW_AT_inline of its abstract instance says the source
	// declares it inline, so this is an out-of-line copy of an inline
	// function. gcc writes no DW_AT_inline for an inline function it
	// never inlined in the unit: false then says nothing (read the
	// declaration's source line).
	Inline bool
}

// FuncAt is the function whose code holds addr; ok is false when no
// debuginfo covers it. It tells which copy of a non-unique name an
// address is in, and whether it is the copy of an inline function.
func (f *File) FuncAt(addr uint64) (fd FuncDecl, ok bool, err error) {
	defer f.nameMalformed(&err)
	defer elfobj.Guard(&err, f.Path)
	if a, ok := f.asked.get(addr); ok {
		return a.fd, a.fdOK, nil
	}
	t, err := f.NewPointMapper().treeAt(addr)
	if t == nil || err != nil {
		return fd, false, err
	}
	fd, ok = addrIn{t, addr}.funcDecl()
	return fd, ok, nil
}

// funcDecl is FuncAt in the unit holding the address.
func (a addrIn) funcDecl() (fd FuncDecl, ok bool) {
	t, addr := a.t, a.addr
	sp := t.realFunc(addr)
	if sp < 0 {
		return fd, false
	}
	fd.Name, fd.File, fd.CompDir = t.name(sp), t.declFile(sp), t.u.compDir
	fd.Line, _ = t.declLine(sp)
	if j := t.integrated(sp, func(d *die) bool { return d.Inline }); j >= 0 {
		// DW_INL_declared_not_inlined (2) or DW_INL_declared_inlined (3):
		// the source says inline. DW_INL_inlined (1) is a function the
		// compiler inlined somewhere on its own (arch/x86's sched_clock).
		if v, ok := t.attrsGet(j, dwarf.AttrInline); ok {
			fd.Inline = v.v == 2 || v.v == 3
		}
	}
	return fd, fd.Name != ""
}

// FuncScope is the scope of the out-of-line function whose code holds
// addr, at addr: for a return probe, which the symbol table places, to
// read the function's return type (FuncDIE). ok is false when no
// debuginfo covers addr.
func (f *File) FuncScope(addr uint64) (sc *Scope, ok bool, err error) {
	defer elfobj.Guard(&err, f.Path)
	t, err := f.NewPointMapper().treeAt(addr)
	if t == nil || err != nil {
		return nil, false, err
	}
	sp := t.realFunc(addr)
	if sp < 0 {
		return nil, false, nil
	}
	return newScope(t, sp, sp, addr), true, nil
}

package elfsym

import (
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// Image is the symbol facts of one ELF object: perf's symbol map
// (Symbols), data symbols and addresses by name, the function symbol
// covering an address, and for a kernel image its ftrace call sites,
// kallsyms and version. Each is read once, when first asked. An Image is
// safe for concurrent use.
type Image struct {
	obj *elfobj.Object
	// source, when not nil, gives the symbol map before the object's
	// own table is read: a separate debuginfo's, or an index's.
	source func() *Symtab

	sourceOnce sync.Once
	sourced    *Symtab // source's answer, maybe nil
	symOnce    sync.Once
	syms       *Symtab

	kallsymsOnce sync.Once
	kallsymsData bool
	kernelData   func() bool // a module's kernel: whether its kallsyms lists data (SetKernelData)

	ftraceOnce  sync.Once
	mcountStart uint64
	mcountStop  uint64
	ftraceLead  uint64 // how far before its function a site lies (preEntrySites)
	ftraceSites afterScans[[]uint64]
	funcSyms    afterScans[funcSymTable]

	symAddrs symbolAddrs // SymbolAddr's answers

	jumpOnce sync.Once
	jumps    *jumpTable // static branches, by code and by target
}

// NewImage is the symbol facts of obj. source, when not nil, is asked
// first for the symbol map; a nil answer reads obj's own table.
func NewImage(obj *elfobj.Object, source func() *Symtab) *Image {
	return &Image{obj: obj, source: source}
}

// Symbols loads the symbol map once: source's, else the object's table.
func (im *Image) Symbols() *Symtab {
	im.symOnce.Do(func() {
		im.syms = im.sourcedSymbols()
		if im.syms == nil {
			im.syms = Load(im.obj)
		}
	})
	return im.syms
}

// sourcedSymbols is source's symbol map, asked once; nil when there is no
// source or it has none. SymbolAddr asks it instead of Symbols, which
// would load the whole map from the table (38 ms on a vmlinux) to answer
// one name a scan answers in 2.
func (im *Image) sourcedSymbols() *Symtab {
	im.sourceOnce.Do(func() {
		if im.source != nil {
			im.sourced = im.source()
		}
	})
	return im.sourced
}

// IsKernel reports whether the file looks like a vmlinux.
func (im *Image) IsKernel() bool { return im.Symbols().kernel }

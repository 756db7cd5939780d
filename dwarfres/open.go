package dwarfres

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// File is an opened ELF with its DWARF. Sections are mapped, not copied, so a
// query on a 600 MB vmlinux touches only the pages it reads. A File is safe
// for concurrent use by several goroutines.
type File struct {
	Path    string
	ELF     *elf.File
	Machine elf.Machine
	Order   binary.ByteOrder

	data []byte // the whole file, mapped read-only
	f    *os.File

	secMu sync.Mutex
	secs  map[string][]byte

	unitsOnce sync.Once
	splitOnce sync.Once // skeleton units replaced by split units
	units     []unit
	unitsErr  error
	headers   []unit // units as their headers say, before splitUnits

	symOnce      sync.Once
	kallsymsOnce sync.Once
	ftraceOnce   sync.Once
	mcountStart  uint64
	mcountStop   uint64
	ftraceSites  afterScans[[]uint64]
	funcSyms     afterScans[funcSymTable]
	kallsymsData bool
	kernelData   func() bool // a module's kernel: whether its kallsyms lists data (SetKernelData)
	syms         *Symtab

	cfiOnce sync.Once
	fdes    frame.FrameDescriptionEntries
	cfiErr  error

	arOnce  sync.Once
	aranges []arange

	dbg  *File   // separate debuginfo (by build-id), when attached
	altf altLink // the dwz supplementary file the DWARF links to
	// missing says where debuginfo was looked for, for a file opened for
	// its symbol table alone (Locator.OpenOrSymbols).
	missing *NotFoundError

	abbrevMu sync.Mutex
	abbrevs  map[uint64]abbrevTable

	// foreign caches units decoded for references into them from other
	// units (DW_FORM_ref_addr: Go's types live in a unit of their own,
	// dwz's shared DIEs in partial units).
	foreign sync.Map // unit index -> *cuTree

	trees    treeCache   // decoded units, shared by queries
	symAddrs symbolAddrs // SymbolAddr's answers

	// The index (index*.go), when UseIndex attached one.
	idxMu   sync.Mutex
	idxOpts *IndexOptions
	idxOnce sync.Once
	idx     *Index
}

// Open maps path and parses its ELF headers. It does not read DWARF yet;
// queries read what they need. Errors wrap ErrNotELF or ErrNoDebugInfo.
func Open(path string) (f *File, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("%s: %w (not a regular file)", path, ErrNotELF)
	}
	if st.Size() < 64 {
		fh.Close()
		return nil, fmt.Errorf("%s: %w (only %d bytes)", path, ErrNotELF, st.Size())
	}
	data, err := syscall.Mmap(int(fh.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: map: %w", path, err)
	}
	return openMapped(path, data, fh)
}

// openMapped parses the ELF in data, a mapping that Close unmaps (of the
// file fh, or anonymous when fh is nil: a decompressed module).
func openMapped(path string, data []byte, fh *os.File) (f *File, err error) {
	nf := &File{Path: path, data: data, f: fh, secs: map[string][]byte{}, abbrevs: map[uint64]abbrevTable{}}
	defer func() {
		if err != nil {
			nf.Close()
			f = nil
		}
	}()
	f = nf
	// debug/elf can panic on hostile headers; turn that into an error.
	defer recoverTo(&err, path)
	if !bytes.HasPrefix(data, []byte(elf.ELFMAG)) {
		if what := sniff(data); what != "" {
			return nil, fmt.Errorf("%s: %w: it is %s", path, ErrNotELF, what)
		}
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotELF, err)
	}
	if ef.Type == elf.ET_REL {
		// Debug sections are relocated in place (reloc.go): the
		// mapping is private, so the file is never written.
		if err := syscall.Mprotect(data, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil, fmt.Errorf("%s: map: %w", path, err)
		}
		layoutSections(ef)
	}
	nf.ELF = ef
	nf.Machine = ef.Machine
	nf.Order = ef.ByteOrder
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOBITS && s.Offset+s.FileSize > uint64(len(data)) {
			return nil, fmt.Errorf("%s: %w: section %s extends past the end of the file (truncated?)", path, ErrNotELF, s.Name)
		}
	}
	return nf, nil
}

// recoverTo converts a panic inside debug/elf or debug/dwarf (they panic on
// some malformed inputs) into an error wrapping ErrMalformed.
func recoverTo(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: %w: %v", what, ErrMalformed, r)
	}
}

// attachDebug uses the DWARF of the separate debuginfo file at path, which
// must carry the same build-id; symbols, segments and code stay the
// binary's own (a .debug file has neither code nor meaningful offsets).
func (f *File) attachDebug(path string) error {
	d, err := Open(path)
	if err != nil {
		return err
	}
	if !d.HasDWARF() {
		d.Close()
		return fmt.Errorf("%s: %w", path, ErrNoDebugInfo)
	}
	if a, b := f.BuildID(), d.BuildID(); a != b {
		d.Close()
		return &BuildIDMismatchError{Path: path, Binary: f.Path, Got: b, Want: a}
	}
	f.dbg = d
	return nil
}

// Close unmaps the file.
func (f *File) Close() error {
	if f.dbg != nil {
		f.dbg.Close()
	}
	if f.altf.file != nil {
		f.altf.file.Close()
	}
	if f.data != nil {
		syscall.Munmap(f.data)
		f.data = nil
	}
	if f.f != nil {
		return f.f.Close()
	}
	return nil
}

// ReleasePages gives back the pages of the mapped file (and of its
// separate debuginfo) that queries have touched: a run of many queries
// reads much of the debuginfo through the mapping, and its pages would
// otherwise stay in the process's RSS. They stay in the page cache, and
// the next access maps them again; the mapping is read-only and private,
// so nothing is lost. Call it between queries, not during one.
func (f *File) ReleasePages() {
	if f.dbg != nil {
		f.dbg.ReleasePages()
	}
	if f.data != nil {
		syscall.Madvise(f.data, syscall.MADV_DONTNEED)
	}
}

// HasDWARF reports whether the file carries .debug_info.
func (f *File) HasDWARF() bool {
	if f.dbg != nil {
		return f.dbg.HasDWARF()
	}
	s := f.ELF.Section(".debug_info")
	if s == nil {
		s = f.zdebugSection(".debug_info")
	}
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

// BuildID returns the GNU build-id as hex, or "".
func (f *File) BuildID() string {
	for _, s := range f.ELF.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		if id := buildIDNote(f.data[s.Offset:s.Offset+s.FileSize], f.Order); id != "" {
			return id
		}
	}
	return ""
}

// buildIDNote finds the NT_GNU_BUILD_ID note among ELF notes (a note
// section, or the kernel's /sys/kernel/notes) and returns its
// descriptor as hex, or "".
func buildIDNote(b []byte, order binary.ByteOrder) string {
	for len(b) >= 12 {
		nsz, dsz, typ := order.Uint32(b), order.Uint32(b[4:]), order.Uint32(b[8:])
		n := 12 + align4(nsz)
		if uint64(len(b)) < uint64(n)+uint64(align4(dsz)) {
			break
		}
		if typ == ntGNUBuildID && nsz == 4 && string(b[12:15]) == "GNU" {
			return hex.EncodeToString(b[n : n+dsz])
		}
		b = b[n+align4(dsz):]
	}
	return ""
}

// ntGNUBuildID is NT_GNU_BUILD_ID, which debug/elf does not name.
const ntGNUBuildID = 3

func align4(n uint32) uint32 { return (n + 3) &^ 3 }

// section returns the contents of a section, decompressing SHF_COMPRESSED
// sections once; nil if absent.
func (f *File) section(name string) ([]byte, error) {
	if f.dbg != nil && strings.HasPrefix(name, ".debug_") {
		return f.dbg.section(name)
	}
	f.secMu.Lock()
	defer f.secMu.Unlock()
	if b, ok := f.secs[name]; ok {
		return b, nil
	}
	s := f.ELF.Section(name)
	if s == nil {
		if z := f.zdebugSection(name); z != nil && z.Type != elf.SHT_NOBITS {
			b, err := inflateZdebug(f.data[z.Offset : z.Offset+z.FileSize])
			if err != nil {
				return nil, &DecodeError{Section: z.Name, Offset: 0, Msg: "cannot decompress: " + err.Error()}
			}
			f.secs[name] = b
			return b, nil
		}
	}
	if s == nil || s.Type == elf.SHT_NOBITS {
		f.secs[name] = nil
		return nil, nil
	}
	var b []byte
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		var err error
		func() {
			defer recoverTo(&err, name)
			b, err = s.Data()
		}()
		if err != nil {
			return nil, &DecodeError{Section: name, Offset: 0, Msg: "cannot decompress: " + err.Error()}
		}
	} else {
		b = f.data[s.Offset : s.Offset+s.FileSize]
	}
	if f.IsModule() && relocatedSection(name) {
		if err := f.relocate(sectionIndex(f.ELF, s), b); err != nil {
			return nil, err
		}
	}
	f.secs[name] = b
	return b, nil
}

// sec is section for the sections whose absence is not an error: a
// decompression failure reads as absence too.
func (f *File) sec(name string) []byte {
	b, _ := f.section(name)
	return b
}

// unitData builds a debug/dwarf view of one unit only. debug/dwarf parses
// every unit's abbreviations up front (150 ms on a vmlinux), so giving it one
// unit keeps a query proportional to what it reads. Offsets inside the
// returned Data are relative to the unit start.
func (f *File) unitData(u *unit) (d *dwarf.Data, err error) {
	defer recoverTo(&err, ".debug_info")
	if u.splitCU() { // the line table is the skeleton's
		u = &u.split.skel.u
	}
	info := f.sec(".debug_info")
	d, err = dwarf.New(f.sec(".debug_abbrev"), nil, nil, info[u.off:u.end], f.sec(".debug_line"), nil, f.sec(".debug_ranges"), f.sec(".debug_str"))
	if err != nil {
		return nil, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: err.Error()}
	}
	for _, n := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b := f.sec(n); b != nil {
			if err := d.AddSection(n, b); err != nil {
				return nil, &DecodeError{Section: n, Offset: 0, Msg: err.Error()}
			}
		}
	}
	return d, nil
}

// readInfo copies .debug_info bytes at off into b and returns how many. It
// reads with pread when the section is stored uncompressed, so scans do not
// leave the mapped section resident.
func (f *File) readInfo(b []byte, off uint64) int {
	if f.dbg != nil {
		return f.dbg.readInfo(b, off)
	}
	info := f.sec(".debug_info")
	if off >= uint64(len(info)) {
		return 0
	}
	if n := uint64(len(info)) - off; uint64(len(b)) > n {
		b = b[:n]
	}
	if f.f != nil && !f.IsModule() { // a module's is relocated: read the copy
		if s := f.ELF.Section(".debug_info"); s != nil && s.Flags&elf.SHF_COMPRESSED == 0 {
			if n, err := f.f.ReadAt(b, int64(s.Offset+off)); err == nil {
				return n
			}
		}
	}
	return copy(b, info[off:])
}

var errShort = errors.New("unexpected end of data")

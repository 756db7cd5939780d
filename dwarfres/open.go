package dwarfres

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// File is an ELF object (elfobj.Object, whose methods it has) with its
// DWARF state: the separate debuginfo and dwz file attached to it, and the
// caches of its decoded units, abbreviations, symbols and index. A File is
// safe for concurrent use by several goroutines.
type File struct {
	*elfobj.Object
	*elfsym.Image // its symbols: the separate debuginfo's or the index's when they have them

	unitsOnce sync.Once
	splitOnce sync.Once // skeleton units replaced by split units
	units     []unit
	unitsErr  error
	headers   []unit // units as their headers say, before splitter.units

	frames cfiTable // .debug_frame or .eh_frame, parsed once (cfa.go)

	aranges arangeMap // address -> unit (aranges.go)

	dbg  *File   // separate debuginfo (by build-id), when attached
	altf altLink // the dwz supplementary file the DWARF links to
	// missing says where debuginfo was looked for, for a file opened for
	// its symbol table alone (Locator.OpenOrSymbols).
	missing *NotFoundError

	abbrevs abbrevCache // .debug_abbrev's tables (abbrev.go)

	// foreign caches units decoded for references into them from other
	// units (DW_FORM_ref_addr: Go's types live in a unit of their own,
	// dwz's shared DIEs in partial units).
	foreign sync.Map // unit index -> *cuTree

	trees treeCache    // decoded units, shared by queries
	asked askedAnswers // FuncAt and ProbePointAt answered early (asked.go)
	refs  refMemo      // refScan's answers by name (scan.go)

	ix attachedIndex // the index (index*.go), when UseIndex attached one

	ctx context.Context // ends long walks (SetContext, cancel.go); nil: never
}

// Open maps path and parses its ELF headers. It does not read DWARF yet;
// queries read what they need. Errors wrap ErrNotELF or ErrNoDebugInfo.
func Open(path string) (*File, error) {
	o, err := elfobj.Open(path)
	if err != nil {
		return nil, err
	}
	return newFile(o), nil
}

// OpenAny opens path as Open does, decompressing it first into memory when
// it is gzip, xz or zstd compressed (elfobj.OpenAny): a module installed as
// .ko.gz, .ko.xz or .ko.zst.
func OpenAny(path string) (*File, error) {
	return OpenAnyContext(context.Background(), path)
}

// OpenAnyContext is OpenAny with a decompression that stops once ctx is
// done (elfobj.OpenAnyContext); the File's long walks stop with it too
// (SetContext).
func OpenAnyContext(ctx context.Context, path string) (*File, error) {
	o, err := elfobj.OpenAnyContext(ctx, path)
	if err != nil {
		return nil, err
	}
	f := newFile(o)
	f.SetContext(ctx)
	return f, nil
}

// newFile is the File of an opened object, its DWARF not read yet.
func newFile(o *elfobj.Object) *File {
	f := &File{Object: o}
	f.abbrevs = abbrevCache{f: f, tabs: map[uint64]abbrevTable{}}
	f.Image = elfsym.NewImage(o, f.symbolSource)
	return f
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
	d.ctx = f.ctx
	f.dbg = d
	return nil
}

// Close unmaps the file and what is attached to it.
func (f *File) Close() error {
	if f.dbg != nil {
		f.dbg.Close()
	}
	if f.altf.file != nil {
		f.altf.file.Close()
	}
	return f.Object.Close()
}

// ReleasePages gives back the pages of the mapped file (and of its
// separate debuginfo) that queries have touched: a run of many queries
// reads much of the debuginfo through the mapping, and its pages would
// otherwise stay in the process's RSS. They stay in the page cache, and
// the next access maps them again; pages written since mapping (a
// module's relocated debug sections) are kept (elfobj.Object.ReleasePages).
func (f *File) ReleasePages() {
	if f.dbg != nil {
		f.dbg.ReleasePages()
	}
	f.Object.ReleasePages()
}

// HasDWARF reports whether the file carries .debug_info.
func (f *File) HasDWARF() bool {
	if f.dbg != nil {
		return f.dbg.HasDWARF()
	}
	s := f.SectionHeader(".debug_info")
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

// section returns the contents of a section (elfobj.Object.Section): the
// separate debuginfo's for a .debug_ one when it is attached.
func (f *File) section(name string) ([]byte, error) {
	if f.dbg != nil && strings.HasPrefix(name, ".debug_") {
		return f.dbg.section(name)
	}
	return f.Section(name)
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
	defer elfobj.Guard(&err, ".debug_info")
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
	if f.Mapped() && !f.IsModule() { // a module's is relocated: read the copy
		if s := f.ELF.Section(".debug_info"); s != nil && s.Flags&elf.SHF_COMPRESSED == 0 {
			if n, err := f.ReadAt(b, int64(s.Offset+off)); err == nil {
				return n
			}
		}
	}
	return copy(b, info[off:])
}

var errShort = errors.New("unexpected end of data")

// elfFile is a debug/elf file that closes the file it reads.
type elfFile struct {
	*elf.File
	fh interface{ Close() error }
}

func (e elfFile) Close() error {
	e.File.Close()
	return e.fh.Close()
}

// openELF is elf.Open through elfobj.OpenRegular: a .dwo or .dwp that is
// a FIFO is refused, not waited on.
func openELF(path string) (elfFile, error) {
	fh, err := elfobj.OpenRegular(path)
	if err != nil {
		return elfFile{}, err
	}
	ef, err := elf.NewFile(fh)
	if err != nil {
		fh.Close()
		return elfFile{}, err
	}
	return elfFile{ef, fh}, nil
}

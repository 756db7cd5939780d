package elfobj

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
)

// Object is an opened ELF file. The file is mapped, not copied, so a
// query on a 600 MB vmlinux touches only the pages it reads. An Object is
// safe for concurrent use by several goroutines.
type Object struct {
	Path    string
	ELF     *elf.File
	Machine elf.Machine
	Order   binary.ByteOrder

	data []byte // the whole file, mapped read-only (private)
	f    *os.File

	secMu sync.Mutex
	secs  map[string][]byte
}

// Open maps path and parses its ELF headers; sections are read when asked
// for. Errors wrap ErrNotELF or ErrMalformed.
func Open(path string) (*Object, error) {
	fh, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
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
	o, err := openMapped(path, data, fh)
	if err == nil {
		registerMapping(data, path)
	}
	return o, err
}

// FromSections is an Object whose sections are held in memory, not read
// from a file: ef gives its headers (an empty elf.File will do), secs the
// contents of each section by name (a nil entry: absent). Split DWARF's
// synthetic file is one; tests build others.
func FromSections(path string, ef *elf.File, order binary.ByteOrder, secs map[string][]byte) *Object {
	if secs == nil {
		secs = map[string][]byte{}
	}
	return &Object{Path: path, ELF: ef, Machine: ef.Machine, Order: order, secs: secs}
}

// openMapped parses the ELF in data, a mapping that Close unmaps (of the
// file fh, or anonymous when fh is nil: a decompressed module).
func openMapped(path string, data []byte, fh *os.File) (o *Object, err error) {
	no := &Object{Path: path, data: data, f: fh, secs: map[string][]byte{}}
	defer func() {
		if err != nil {
			no.Close()
			o = nil
		}
	}()
	defer Guard(&err, path)
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
	no.ELF, no.Machine, no.Order = ef, ef.Machine, ef.ByteOrder
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOBITS && s.Offset+s.FileSize > uint64(len(data)) {
			return nil, fmt.Errorf("%s: %w: section %s extends past the end of the file (truncated?)", path, ErrNotELF, s.Name)
		}
	}
	return no, nil
}

// Close unmaps the file.
func (o *Object) Close() error {
	if o.data != nil {
		unregisterMapping(o.data)
		syscall.Munmap(o.data)
		o.data = nil
	}
	if o.f != nil {
		return o.f.Close()
	}
	return nil
}

// ReleasePages gives back the pages of the mapped file that queries have
// touched: a run of many queries reads much of the debuginfo through the
// mapping, and its pages would otherwise stay in the process's RSS. They
// stay in the page cache, and the next access maps them again. Only pages
// that read back as they were are given back: a page of a private file
// mapping that was written (a relocatable object's debug sections,
// relocated in place when first read) would read back unrelocated, and
// an anonymous mapping (a decompressed module) as zeros, so those are
// kept. It is safe while queries run: no section is relocated while it
// gives pages back.
func (o *Object) ReleasePages() {
	if o.data == nil || o.f == nil {
		return
	}
	o.secMu.Lock()
	defer o.secMu.Unlock()
	for _, r := range releasable(uint64(len(o.data)), uint64(os.Getpagesize()), o.writtenRanges()) {
		syscall.Madvise(o.data[r[0]:r[1]], syscall.MADV_DONTNEED)
	}
}

// writtenRanges are the file ranges [off, end) of the sections Section
// has relocated in place in the mapping (a compressed one is relocated in
// its decompressed copy, not there). The caller holds secMu.
func (o *Object) writtenRanges() [][2]uint64 {
	if !o.IsModule() {
		return nil
	}
	var out [][2]uint64
	for name := range o.secs {
		s := o.ELF.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 || !relocatedSection(name) {
			continue
		}
		out = append(out, [2]uint64{s.Offset, s.Offset + s.FileSize})
	}
	return out
}

// releasable is the page-aligned ranges [lo, hi) of a mapping of size
// bytes that share no page with a range of keep, in order.
func releasable(size, pg uint64, keep [][2]uint64) [][2]uint64 {
	keep = slices.Clone(keep)
	slices.SortFunc(keep, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]uint64
	next := uint64(0) // the first byte not yet given back nor kept
	for _, k := range keep {
		if k[1] <= k[0] {
			continue
		}
		lo := k[0] / pg * pg                // the kept range's first page
		if hi := min(lo, size); hi > next { // the pages before it
			out = append(out, [2]uint64{next, hi})
		}
		next = max(next, (k[1]+pg-1)/pg*pg) // past its last page
	}
	if next < size {
		out = append(out, [2]uint64{next, size})
	}
	return out
}

// DropPages gives back the pages wholly inside the file range [off,
// off+n) once read: a page of a file mapping that is read again is read
// from the file. An anonymous mapping (a decompressed module) would read
// back zeros, and a relocated object's debug sections are rewritten in
// place: their pages are kept.
func (o *Object) DropPages(off, n uint64) {
	if o.f == nil {
		return
	}
	pg := uint64(os.Getpagesize())
	lo, hi := (off+pg-1)/pg*pg, (off+n)/pg*pg
	if hi > lo && hi <= uint64(len(o.data)) {
		syscall.Madvise(o.data[lo:hi], syscall.MADV_DONTNEED)
	}
}

// Mapped reports whether the object is a mapped file (not sections in
// memory, nor a decompressed copy), which ReadAt and Stat read.
func (o *Object) Mapped() bool { return o.f != nil }

// Stat is the opened file's; an error for an object not read from a file.
func (o *Object) Stat() (os.FileInfo, error) {
	if o.f == nil {
		return nil, fmt.Errorf("%s: %w: not a mapped file", o.Path, ErrNotFound)
	}
	return o.f.Stat()
}

// ReadAt reads the file's bytes at off with pread, so that a scan does not
// leave what it read resident in the mapping.
func (o *Object) ReadAt(b []byte, off int64) (int, error) {
	if o.f == nil {
		return 0, fmt.Errorf("%s: %w: not a mapped file", o.Path, ErrNotFound)
	}
	return o.f.ReadAt(b, off)
}

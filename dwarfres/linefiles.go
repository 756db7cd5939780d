package dwarfres

import (
	"bytes"
	"path"
)

// The file table of a line-table header, read without debug/dwarf:
// building the index reads the tables of every unit, and debug/dwarf's
// LineReader first parses the unit's abbreviations again and allocates a
// joined path per file (a fifth of the build). It reads exactly what
// debug/dwarf reads in the common case, and hands anything else (a DOS
// path, a form it does not read, a malformed header) back to fileNames's
// debug/dwarf path, which reads or refuses it as before.

// lineFileRef is one file of a header: its directory's index in
// lineFiles.dirs (-1: the name is used as it is) and its name.
type lineFileRef struct {
	dir  int32
	name []byte
}

// lineFiles is a header's file table, reused from unit to unit.
type lineFiles struct {
	dirs  []string // as debug/dwarf joins them
	files []lineFileRef
}

// dir is fr's directory, "" for none.
func (lf *lineFiles) dir(fr lineFileRef) string {
	if fr.dir < 0 {
		return ""
	}
	return lf.dirs[fr.dir]
}

// joinLineFile is the name debug/dwarf gives a file of directory dir
// ("": none) named name (pathJoin, for paths without a drive).
func joinLineFile(dir string, name []byte) string {
	if dir == "" || len(name) == 0 {
		return string(name)
	}
	return path.Join(dir, string(name))
}

// lineRef is what a unit's root says of its line table, for readLineFiles.
type lineRef struct {
	stmtForm    form
	stmt        uint64
	compDirForm form
	compDir     uint64
}

// readLineFiles reads u's line-table header's file table into lf. ok is
// false when it leaves the header to debug/dwarf (see above).
func (p lineProgram) readLineFiles(lf *lineFiles) (ok bool) {
	f, u := p.f, p.u
	lf.dirs, lf.files = lf.dirs[:0], lf.files[:0]
	if _, err := f.rootDIE(u); err != nil {
		return false
	}
	sec := f.sec(".debug_line")
	lr := u.lineRef
	if u.split != nil || sec == nil || !plainLineRef(u, lr) || lr.stmt >= uint64(len(sec)) {
		return false
	}
	compDir, ok := p.rootString(lr.compDirForm, lr.compDir)
	if !ok || hasDrive(compDir) {
		return false
	}
	b := buf{sec: ".debug_line", base: lr.stmt, data: sec[lr.stmt:], order: f.Order}
	l, offSize := uint64(b.u32()), 4
	if l == 0xffffffff {
		l, offSize = b.u64(), 8
	} else if l >= 0xfffffff0 {
		return false
	}
	if b.err != nil || l > uint64(len(b.data)-b.off) {
		return false
	}
	b.data = b.data[:b.off+int(l)] // checkLineHeader refuses what runs past
	version := b.u16()
	if version < 2 || version > 5 || !skipLineParams(&b, version, offSize) {
		return false
	}
	if version < 5 {
		return readFiles4(&b, compDir, lf)
	}
	return p.readFiles5(&b, offSize, lf)
}

// plainLineRef reports whether u's root gives its line table and
// compilation directory in forms debug/dwarf reads the same way.
func plainLineRef(u *unit, lr lineRef) bool {
	switch lr.stmtForm {
	case formSecOffset:
	case formData4, formData8:
		if u.version >= 4 {
			return false
		}
	default:
		return false
	}
	switch lr.compDirForm {
	case 0, formString, formStrp, formLineStrp:
		return true
	}
	return false
}

// rootString is a string attribute of a root in one of plainLineRef's
// forms; ok is false when it does not read.
func (p lineProgram) rootString(fm form, v uint64) (string, bool) {
	f := p.f
	var sec []byte
	switch fm {
	case 0:
		return "", true
	case formString:
		sec = f.sec(".debug_info")
	case formStrp:
		sec = f.sec(".debug_str")
	case formLineStrp:
		sec = f.sec(".debug_line_str")
	}
	return cstrAt(sec, v)
}

// hasDrive reports whether p may start with what debug/dwarf's splitDrive
// takes for a DOS drive or share, or is absolute the DOS way.
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' || len(p) > 0 && p[0] == '\\' || len(p) > 1 && p[0] == '/' && p[1] == '/'
}

func hasDriveBytes(p []byte) bool {
	return len(p) >= 2 && p[1] == ':' || len(p) > 0 && p[0] == '\\' || len(p) > 1 && p[0] == '/' && p[1] == '/'
}

// knownOpcodeLengths are the argument counts debug/dwarf requires of the
// standard opcodes 1 to 12 (index 0 unused; -1: not checked: set_column,
// fixed_advance_pc).
var knownOpcodeLengths = [...]int{-1, 0, 1, 1, 1, -1, 0, 0, 0, -1, 0, 0, 1}

// skipLineParams reads past the header's fields before its tables, false
// where debug/dwarf would refuse them.
func skipLineParams(b *buf, version uint16, offSize int) bool {
	if version >= 5 {
		b.skip(2) // address_size, segment_selector_size
	}
	hdrLen := b.uint(offSize)
	if b.err != nil || hdrLen > uint64(len(b.data)-b.off) {
		return false
	}
	b.u8() // minimum_instruction_length
	if version >= 4 && b.u8() == 0 {
		return false // maximum_operations_per_instruction
	}
	b.skip(2) // default_is_stmt, line_base
	if b.u8() == 0 {
		return false // line_range
	}
	opBase := int(b.u8())
	for i := 1; i < opBase; i++ {
		n := int(b.u8())
		if i < len(knownOpcodeLengths) && knownOpcodeLengths[i] >= 0 && n != knownOpcodeLengths[i] {
			return false
		}
	}
	return b.err == nil
}

// readFiles4 reads a DWARF 2-4 header's NUL-terminated tables.
func readFiles4(b *buf, compDir string, lf *lineFiles) bool {
	lf.dirs = append(lf.dirs, compDir)
	for {
		d := b.cstr()
		if b.err != nil || hasDriveBytes(d) {
			return false
		}
		if len(d) == 0 {
			break
		}
		lf.dirs = append(lf.dirs, joinLineFile(compDirUnlessAbs(compDir, d), d))
	}
	for {
		name := b.cstr()
		if b.err != nil || hasDriveBytes(name) {
			return false
		}
		if len(name) == 0 {
			return true
		}
		dir := int32(-1)
		if di := b.uleb(); name[0] != '/' {
			if di >= uint64(len(lf.dirs)) {
				return false
			}
			dir = int32(di)
		}
		b.uleb() // mtime
		b.uleb() // length
		if b.err != nil {
			return false
		}
		lf.files = append(lf.files, lineFileRef{dir: dir, name: name})
	}
}

// compDirUnlessAbs is the directory a relative include directory d is
// joined to: compDir, none for an absolute one.
func compDirUnlessAbs(compDir string, d []byte) string {
	if len(d) > 0 && d[0] == '/' {
		return ""
	}
	return compDir
}

// Content types of DWARF 5 line-header entries.
const (
	lnctPath     = 1
	lnctDirIndex = 2
)

// lnctField is one field of a DWARF 5 entry format.
type lnctField struct {
	lnct uint64
	fm   form
}

// readFiles5 reads a DWARF 5 header's described tables.
func (p lineProgram) readFiles5(b *buf, offSize int, lf *lineFiles) bool {
	f := p.f
	strs := lnctStrings{f.sec(".debug_str"), f.sec(".debug_line_str")} // a lookup takes the File's lock
	var fmtBuf [8]lnctField
	dirFmt, n, ok := readLNCTFormat(b, fmtBuf[:0])
	if !ok {
		return false
	}
	for _, fd := range dirFmt {
		if fd.lnct == lnctDirIndex {
			return false // a directory of a directory: left to debug/dwarf
		}
	}
	for i := uint64(0); i < n; i++ {
		p, _, ok := strs.readLNCT(b, dirFmt, offSize)
		if !ok || hasDriveBytes(p) {
			return false
		}
		lf.dirs = append(lf.dirs, string(p))
	}
	fileFmt, n, ok := readLNCTFormat(b, fmtBuf[len(dirFmt):len(dirFmt)])
	if !ok {
		return false
	}
	for i := uint64(0); i < n; i++ {
		p, di, ok := strs.readLNCT(b, fileFmt, offSize)
		if !ok || hasDriveBytes(p) || di >= 0 && int(di) >= len(lf.dirs) {
			return false
		}
		if di >= 0 && lf.dirs[di] == "" {
			di = -1
		}
		lf.files = append(lf.files, lineFileRef{dir: di, name: p})
	}
	return true
}

// readLNCTFormat reads an entry format and the count of entries after it;
// ok is false for a form readLNCT leaves to debug/dwarf, or a count the
// header cannot hold (checkLineHeader's refusals among them).
func readLNCTFormat(b *buf, out []lnctField) ([]lnctField, uint64, bool) {
	for n := b.u8(); n > 0 && b.err == nil; n-- {
		fd := lnctField{lnct: b.uleb(), fm: form(b.uleb())}
		switch fd.fm {
		case formString, formStrp, formLineStrp, formUdata, formData1, formData2, formData4, formData8, formData16, formBlock:
		default:
			return nil, 0, false
		}
		out = append(out, fd)
	}
	count := b.uleb()
	if b.err != nil || len(out) == 0 && count > 0 || count > uint64(len(b.data)-b.off) {
		return nil, 0, false
	}
	return out, count, true
}

// lnctStrings are the sections a line header's strings are in:
// .debug_str, .debug_line_str.
type lnctStrings struct{ str, lineStr []byte }

// readLNCT reads one entry as debug/dwarf's readLNCT does: its path and
// its directory index (-1: none).
func (strs lnctStrings) readLNCT(b *buf, fields []lnctField, offSize int) (p []byte, dir int32, ok bool) {
	dir = -1
	for _, fd := range fields {
		var str []byte
		var val uint64
		switch fd.fm {
		case formString:
			str = b.cstr()
		case formStrp, formLineStrp:
			sec := strs.str
			if fd.fm == formLineStrp {
				sec = strs.lineStr
			}
			if str, ok = cstrBytes(sec, b.uint(offSize)); !ok {
				return nil, 0, false
			}
		case formUdata:
			val = b.uleb()
		case formData1, formData2, formData4, formData8:
			val = b.uint(formFixedSize(fd.fm))
		case formData16:
			b.skip(16)
		case formBlock:
			b.skip(int(min(b.uleb(), uint64(len(b.data)+1))))
		}
		switch fd.lnct {
		case lnctPath:
			p = str
		case lnctDirIndex:
			if val > 1<<30 {
				return nil, 0, false
			}
			dir = int32(val)
		}
	}
	return p, dir, b.err == nil
}

// formFixedSize is the size of a DW_FORM_dataN value.
func formFixedSize(fm form) int {
	switch fm {
	case formData1:
		return 1
	case formData2:
		return 2
	case formData4:
		return 4
	}
	return 8
}

// cstrBytes is the NUL-terminated string at off in sec, uncopied; ok is
// false when off is out of range or the string unterminated.
func cstrBytes(sec []byte, off uint64) ([]byte, bool) {
	if off >= uint64(len(sec)) {
		return nil, false
	}
	s := sec[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return nil, false
	}
	return s[:i], true
}

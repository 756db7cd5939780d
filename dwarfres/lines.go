package dwarfres

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// lineRow is one row of a line-number program.
type lineRow struct {
	Addr   uint64
	File   int32 // index into lineTable.files; -1: the row names no file the table has
	Line   int32
	Stmt   bool
	EndSeq bool
	PEnd   bool // prologue_end
}

// lineTable is a unit's line program with rows ordered as libdw orders them
// (sequences by start address, rows in program order within a sequence),
// since perf's answers depend on that order.
type lineTable struct {
	rows  []lineRow
	files []string // full paths as debug/dwarf joins them; index = file number
	fidx  map[*dwarf.LineFile]int32
}

func (t *cuTree) lineTable() (*lineTable, error) {
	t = t.unitTree()
	t.linesOnce.Do(func() { t.lines, t.linesErr = lineProgram{t.f, t.u}.readLines() })
	return t.lines, t.linesErr
}

// lineInfo is cu_find_lineinfo.
func (t *cuTree) lineInfo(addr uint64) (string, int, bool) {
	if sp := t.realFunc(addr); sp >= 0 {
		if e, ok := t.dieEntryPC(sp); ok && e == addr {
			l, _ := t.declLine(sp)
			f := t.declFile(sp)
			return f, l, l != 0 && f != ""
		}
	}
	lt, err := t.lineTable()
	if err != nil {
		return "", 0, false
	}
	i := lt.stmtRowAt(addr)
	if i < 0 {
		return "", 0, false
	}
	r := lt.rows[i]
	f := lt.fileOf(r)
	return f, int(r.Line), f != "" && r.Line != 0
}

// realPath is perf's cu_find_realpath: the first file of lt that names
// src, or "".
func (lt *lineTable) realPath(src sourceName) string {
	for _, n := range lt.files {
		if n != "" && src.matches(n) {
			return n
		}
	}
	return ""
}

// lineProgram reads unit u's line program (.debug_line), checking its
// header first (checkLineHeader): its file table (fileNames, read
// without debug/dwarf by readLineFiles when it can, linefiles.go) or all
// of it, rows ordered as libdw orders them (readLines; a cuTree keeps
// its unit's, lineTable).
type lineProgram struct {
	f *File
	u *unit
}

// fileNames returns the file table of a unit's line program without
// decoding the program: enough to decide whether a unit names a file.
func (p lineProgram) fileNames() (names []string, err error) {
	defer elfobj.Guard(&err, ".debug_line")
	var lf lineFiles
	if p.readLineFiles(&lf) {
		names = make([]string, len(lf.files))
		for i, fr := range lf.files {
			names[i] = joinLineFile(lf.dir(fr), fr.name)
		}
		return names, nil
	}
	return p.fileNamesDWARF()
}

// fileNamesDWARF is fileNames through debug/dwarf, for the headers
// readLineFiles leaves to it.
func (p lineProgram) fileNamesDWARF() (names []string, err error) {
	defer elfobj.Guard(&err, ".debug_line")
	f, u := p.f, p.u
	d, err := f.unitData(u)
	if err != nil {
		return nil, err
	}
	cu, err := d.Reader().Next()
	if err != nil || cu == nil {
		return nil, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: "cannot read unit root"}
	}
	if err := p.checkLineHeader(cu); err != nil {
		return nil, err
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil, err
	}
	for _, lf := range lr.Files() {
		if lf != nil {
			names = append(names, lf.Name)
		}
	}
	return names, nil
}

func (p lineProgram) readLines() (lt *lineTable, err error) {
	defer elfobj.Guard(&err, ".debug_line")
	f, u := p.f, p.u
	d, err := f.unitData(u)
	if err != nil {
		return nil, err
	}
	r := d.Reader()
	cu, err := r.Next()
	if err != nil || cu == nil {
		return nil, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: "cannot read unit root"}
	}
	if err := p.checkLineHeader(cu); err != nil {
		return nil, err
	}
	lr, err := d.LineReader(cu)
	if err != nil {
		return nil, &DecodeError{Section: ".debug_line", Offset: 0, Msg: err.Error()}
	}
	lt = &lineTable{fidx: map[*dwarf.LineFile]int32{}}
	if lr == nil {
		return lt, nil
	}
	for i, lf := range lr.Files() {
		if lf == nil {
			lt.files = append(lt.files, "")
			continue
		}
		lt.files = append(lt.files, lf.Name)
		lt.fidx[lf] = int32(i)
	}
	var e dwarf.LineEntry
	for {
		err := lr.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &DecodeError{Section: ".debug_line", Offset: 0, Msg: err.Error()}
		}
		fi, ok := lt.fidx[e.File]
		if e.File == nil {
			fi = -1
		} else if !ok {
			fi = int32(len(lt.files))
			lt.files = append(lt.files, e.File.Name)
			lt.fidx[e.File] = fi
		}
		lt.rows = append(lt.rows, lineRow{Addr: e.Address, File: fi, Line: int32(e.Line), Stmt: e.IsStmt, EndSeq: e.EndSequence, PEnd: e.PrologueEnd})
	}
	// libdw's compare_lines: by address, an end of sequence before other
	// rows at the same address, otherwise program order.
	sort.SliceStable(lt.rows, func(i, j int) bool {
		a, b := &lt.rows[i], &lt.rows[j]
		if a.Addr != b.Addr {
			return a.Addr < b.Addr
		}
		return a.EndSeq && !b.EndSeq
	})
	return lt, nil
}

// checkLineHeader refuses a DWARF 5 line program header (the one cu's
// DW_AT_stmt_list names) whose directory or file count is more than its
// bytes can hold: debug/dwarf allocates a table of that count before
// reading it, and a corrupt count exhausts memory, a fatal error no
// recover catches (or, for a count of millions, takes seconds). So are
// the headers whose counts debug/dwarf reads elsewhere than this check
// does: a form it does not decode, a table past the unit. Other
// malformations are left to debug/dwarf to report.
func (p lineProgram) checkLineHeader(cu *dwarf.Entry) error {
	f := p.f
	off, ok := cu.Val(dwarf.AttrStmtList).(int64)
	sec := f.sec(".debug_line")
	if !ok || off < 0 || off >= int64(len(sec)) {
		return nil
	}
	b := buf{sec: ".debug_line", base: uint64(off), data: sec[off:], order: f.Order}
	l, offSize := uint64(b.u32()), 4
	if l == 0xffffffff {
		l, offSize = b.u64(), 8
	}
	if b.err != nil || l > uint64(len(b.data)-b.off) {
		return nil
	}
	b.data = b.data[:b.off+int(l)]
	if b.u16() < 5 {
		return nil // NUL-terminated tables: they grow with their bytes
	}
	u := &unit{version: 5, addrSize: int(b.u8()), offSize: offSize}
	b.skip(1 + offSize + 5) // segment_selector_size, header_length, minimum_instruction_length .. line_range
	b.skip(int(b.u8()) - 1) // standard_opcode_lengths
	r := &reader{f: f, u: u, b: b}
	for _, table := range []string{"directory", "file name"} {
		if msg := r.skipLineEntries(table); msg != "" {
			return &DecodeError{Section: ".debug_line", Offset: uint64(off), Msg: msg}
		}
	}
	return nil
}

// skipLineEntries reads past one entry table of a DWARF 5 line header (its
// format, count and entries) and says why the table is refused, or "".
func (r *reader) skipLineEntries(table string) string {
	var forms []abbrevAttr
	for n := r.b.u8(); n > 0 && r.b.err == nil; n-- {
		r.b.uleb() // content type
		fm := form(r.b.uleb())
		if r.b.err == nil && !lineHeaderForm(fm) {
			return fmt.Sprintf("%s entry form %#x", table, fm)
		}
		forms = append(forms, abbrevAttr{form: fm})
	}
	count := r.b.uleb()
	if r.b.err == nil && len(forms) == 0 && count > 0 {
		// As libdw refuses them: nothing to tell the entries apart, and
		// nothing bounds their count.
		return fmt.Sprintf("%d %s entries without content", count, table)
	}
	if r.b.err == nil && count > uint64(len(r.b.data)-r.b.off)/uint64(max(len(forms), 1)) {
		return fmt.Sprintf("%s count %d exceeds the header", table, count)
	}
	for i := uint64(0); i < count && r.b.err == nil; i++ {
		for j := range forms {
			r.value(&forms[j])
		}
	}
	if r.b.err != nil {
		// debug/dwarf reads the header on past its unit, where a count
		// would be unchecked.
		return fmt.Sprintf("%s table runs past the unit", table)
	}
	return ""
}

// lineHeaderForm tells whether fm is one of the forms debug/dwarf decodes in
// a line header's entries. It reads any other form as zero bytes, so from
// there on it and checkLineHeader would read the counts at different
// places, and a count this check never saw could be huge.
func lineHeaderForm(fm form) bool {
	switch fm {
	case formString, formStrp, formLineStrp, formStrpSup,
		formStrx, formStrx1, formStrx2, formStrx3, formStrx4,
		formData1, formData2, formData4, formData8, formData16,
		formBlock, formUdata:
		return true
	}
	return false
}

// fileOf is the name of row r's file, "" when the table has none.
func (lt *lineTable) fileOf(r lineRow) string {
	if r.File >= 0 && int(r.File) < len(lt.files) {
		return lt.files[r.File]
	}
	return ""
}

// stmtRowAt is perf's cu_getsrc_die: the first statement row among those
// at the highest address not above addr, or -1; unlike perf, never an end
// of sequence.
func (lt *lineTable) stmtRowAt(addr uint64) int {
	rows := lt.rows
	if len(rows) == 0 {
		return -1
	}
	l, u := 0, len(rows)-1
	for l < u {
		n := u - (u-l)/2
		if addr < rows[n].Addr {
			u = n - 1
		} else {
			l = n
		}
	}
	for {
		l--
		if l < 0 {
			return -1
		}
		if rows[l].Addr != addr {
			break
		}
	}
	for l++; l < len(rows); l++ {
		if rows[l].Addr > addr {
			return -1
		}
		// An end of sequence is the address after the sequence's last
		// instruction and describes none: at a section's first byte (a
		// .cold part starting right after the previous section's code)
		// the row is the next sequence's (perf takes the line before).
		if rows[l].Stmt && !rows[l].EndSeq {
			return l
		}
	}
	return -1
}

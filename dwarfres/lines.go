package dwarfres

import (
	"debug/dwarf"
	"errors"
	"io"
	"sort"
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
	t.linesOnce.Do(func() { t.lines, t.linesErr = t.f.readLines(t.u) })
	return t.lines, t.linesErr
}

// fileNames returns the file table of a unit's line program without
// decoding the program: enough to decide whether a unit names a file.
func (f *File) fileNames(u *unit) (names []string, err error) {
	defer recoverTo(&err, ".debug_line")
	d, err := f.unitData(u)
	if err != nil {
		return nil, err
	}
	cu, err := d.Reader().Next()
	if err != nil || cu == nil {
		return nil, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: "cannot read unit root"}
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

func (f *File) readLines(u *unit) (lt *lineTable, err error) {
	defer recoverTo(&err, ".debug_line")
	d, err := f.unitData(u)
	if err != nil {
		return nil, err
	}
	r := d.Reader()
	cu, err := r.Next()
	if err != nil || cu == nil {
		return nil, &DecodeError{Section: ".debug_info", Offset: u.off, Msg: "cannot read unit root"}
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

// fileOf is the name of row r's file, "" when the table has none.
func (lt *lineTable) fileOf(r lineRow) string {
	if r.File >= 0 && int(r.File) < len(lt.files) {
		return lt.files[r.File]
	}
	return ""
}

// stmtRowAt is perf's cu_getsrc_die: the first statement row among those
// at the highest address not above addr, or -1.
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
		if rows[l].Stmt {
			return l
		}
	}
	return -1
}

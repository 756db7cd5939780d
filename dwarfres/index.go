package dwarfres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
)

// An Index tells a query which units to decode: the units naming each
// function (its own DW_AT_name, or the name its abstract origin or
// specification gives it: inlined-only functions and clones are found as
// the functions they are instances of), each global variable, and each
// source file of the line tables. It answers exactly what the scans of
// scan.go answer, from a file built once per binary (indexfile.go).
//
// An Index is read-only and safe for concurrent use. Its tables stay in
// the mapped file (sorted fixed-size entries, binary-searched), so
// loading is mapping and checksumming the file, nothing more.
type Index struct {
	units    int    // units in .debug_info: postings index into them
	infoSize uint64 // size of .debug_info the index was built from
	byteScan bool   // built from a file refScan can scan (see exact)
	// onlyC: no unit but C (and assembler) ones has functions or
	// variables. Elsewhere (C++, Rust, Go) scopes, nesting and linkage
	// names decide what a name matches, and name queries are left to
	// the scans.
	onlyC bool
	strs  []byte
	tabs  [numTabs]indexTable
	syms  []byte // the symbol map's record (elfsym/encode.go)
	hdrs  []byte // the unit headers' record (indexunits.go)
	// bad is why a lookup found the file inconsistent (a posting list
	// that does not fill the space up to the next, a unit past the
	// last): the first reason, once; File.index then stops using it.
	bad atomic.Pointer[string]
}

// corrupt records why a lookup cannot trust the index; every later
// lookup answers ok=false and the queries scan.
func (ix *Index) corrupt(why string) { ix.bad.CompareAndSwap(nil, &why) }

// failed is the error of the first inconsistency a lookup found, or nil.
func (ix *Index) failed() error {
	if why := ix.bad.Load(); why != nil {
		return fmt.Errorf("%w: %s", ErrIndexCorrupt, *why)
	}
	return nil
}

// The tables of an Index.
const (
	tabFunc   = iota // own names of top-level subprograms
	tabOrigin        // names of unnamed top-level subprograms, through their origin
	tabVar           // own names of top-level variables
	tabFile          // file names of each unit's line table
	numTabs
)

// hasDefFlags reports whether the postings of table tab flag the units
// that define the name (a subprogram of that name that is not a
// declaration), where the table also names every caller's unit.
func hasDefFlags(tab int) bool { return tab == tabFunc || tab == tabOrigin }

// Which units of a name's postings a lookup wants.
const (
	allUnits     = false
	definingOnly = true
)

// indexTable is one sorted table: entries of four uint32 (name offset and
// length in strs, postings offset and count in posts); postings are the
// ascending unit numbers, delta-coded as uvarints, shifted left by one
// for the flag of a table with hasDefFlags.
type indexTable struct {
	ents  []byte
	posts []byte
}

const entSize = 16

// Sentinels for an index that cannot be used; IndexError wraps one.
var (
	// ErrIndexCorrupt: the file is truncated, fails its checksum or does
	// not decode.
	ErrIndexCorrupt = errors.New("index corrupt")
	// ErrIndexForeign: the file is an index of another binary, or of
	// another build of it.
	ErrIndexForeign = errors.New("index of another binary")
	// ErrIndexVersion: the file was written by another index format.
	ErrIndexVersion = errors.New("index of another format version")
	// ErrIndexUnwritable: the index directory cannot take the file
	// (read-only, full): queries scan the debuginfo instead.
	ErrIndexUnwritable = errors.New("index directory not writable")
	// ErrIndexUntrusted: the index directory or file could have been
	// written by another user (safefs's rule): it is neither read nor
	// written, and queries scan the debuginfo.
	ErrIndexUntrusted = errors.New("index cache not trusted")
	// ErrIndexNotDir: the index directory, or a directory on the way to
	// it, is another kind of file (a regular file, a FIFO): nothing is
	// read or written, and queries scan the debuginfo.
	ErrIndexNotDir = errors.New("index path not a directory")
	// ErrIndexNotRegular: the index file is not a regular file (a FIFO,
	// a device): it is not read, and a build replaces it.
	ErrIndexNotRegular = errors.New("not a regular file")
	// ErrIndexNoDir: there is no place for indexes (no
	// DWPROBE_INDEX_DIR or XDG_CACHE_HOME, and HOME is no directory):
	// none is created, and queries scan the debuginfo.
	ErrIndexNoDir = errors.New("no index directory")
)

// IndexError says why an index file was not used.
type IndexError struct {
	Path string
	Err  error // wraps one of the ErrIndex sentinels
}

func (e *IndexError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *IndexError) Unwrap() error { return e.Err }

func (t *indexTable) len() int { return len(t.ents) / entSize }

// tiled reports whether the entries' posting lists start where the build
// puts them: the first at 0, each at or after the one before, within the
// postings (empty for a table without entries). What each list holds is
// checked as it is read (entry, postings).
func (t *indexTable) tiled() bool {
	n := t.len()
	if n == 0 {
		return len(t.posts) == 0
	}
	prev := uint32(0)
	for i := range n {
		po := binary.LittleEndian.Uint32(t.ents[i*entSize+8:])
		if po < prev || i == 0 && po != 0 {
			return false
		}
		prev = po
	}
	return uint64(prev) < uint64(len(t.posts))
}

// entry returns entry i's name and postings, ok=false if they point
// outside the file (only a corrupt file that passed its checksum). The
// postings of an entry are the bytes up to the next entry's (the build
// writes them in entry order, back to back), which postings must use
// up exactly: a count cut or raised in a file whose checksum was
// recomputed is caught there, not answered from.
func (ix *Index) entry(t *indexTable, i int) (name, posts []byte, n int, ok bool) {
	e := t.ents[i*entSize : (i+1)*entSize]
	no, nl := binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:])
	po, pn := binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])
	end := uint64(len(t.posts))
	if i+1 < t.len() {
		end = uint64(binary.LittleEndian.Uint32(t.ents[(i+1)*entSize+8:]))
	}
	if uint64(no)+uint64(nl) > uint64(len(ix.strs)) || uint64(po) > end || end > uint64(len(t.posts)) {
		ix.corrupt(fmt.Sprintf("table entry %d points outside the file", i))
		return nil, nil, 0, false
	}
	return ix.strs[no : no+nl], t.posts[po:end], int(pn), true
}

// postings appends the n unit numbers coded in p, for table tab, to out:
// all of them, or with defs (definingOnly) those flagged as defining. p
// must hold exactly n ascending unit numbers of the binary.
func (ix *Index) postings(tab int, p []byte, n int, defs bool, out []int) ([]int, bool) {
	out, ok := ix.decodePostings(tab, p, n, defs, out)
	if !ok {
		ix.corrupt(fmt.Sprintf("a posting list of table %d does not hold the %d units its entry counts", tab, n))
	}
	return out, ok
}

func (ix *Index) decodePostings(tab int, p []byte, n int, defs bool, out []int) ([]int, bool) {
	if n > len(p) { // a unit number takes a byte at least
		return out, false
	}
	flagged := hasDefFlags(tab)
	u := -1
	for k := 0; k < n; k++ {
		d, w := binary.Uvarint(p)
		if w <= 0 {
			return out, false
		}
		p = p[w:]
		def := true
		if flagged {
			def, d = d&1 != 0, d>>1
		}
		if d > uint64(ix.units) {
			return out, false
		}
		u += int(d) + 1
		if u >= ix.units {
			return out, false
		}
		if def || !defs {
			out = append(out, u)
		}
	}
	return out, len(p) == 0
}

// lookup returns the units of name in table tab (defs: see postings).
func (ix *Index) lookup(tab int, name string, defs bool) ([]int, bool) {
	if ix.bad.Load() != nil {
		return nil, false
	}
	t := &ix.tabs[tab]
	var bad bool
	i := sort.Search(t.len(), func(i int) bool {
		n, _, _, ok := ix.entry(t, i)
		bad = bad || !ok
		return bytes.Compare(n, []byte(name)) >= 0
	})
	if bad {
		return nil, false
	}
	if i == t.len() {
		return nil, true
	}
	n, p, cnt, ok := ix.entry(t, i)
	if !ok || string(n) != name {
		return nil, ok
	}
	return ix.postings(tab, p, cnt, defs, nil)
}

// matching returns the units of every name of table tab that match, in
// order, and with names the distinct matching names.
func (ix *Index) matching(tab int, match func(string) bool, defs bool) (units []int, names []string, ok bool) {
	if ix.bad.Load() != nil {
		return nil, nil, false
	}
	t := &ix.tabs[tab]
	for i := 0; i < t.len(); i++ {
		n, p, cnt, ok := ix.entry(t, i)
		if !ok {
			return nil, nil, false
		}
		if !match(string(n)) {
			continue
		}
		names = append(names, string(n))
		if units, ok = ix.postings(tab, p, cnt, defs, units); !ok {
			return nil, nil, false
		}
	}
	return sortedUnique(units), names, true
}

// sortedUnique sorts us and drops repeats.
func sortedUnique(us []int) []int {
	sort.Ints(us)
	out := us[:0]
	for i, u := range us {
		if i == 0 || u != us[i-1] {
			out = append(out, u)
		}
	}
	return out
}

// funcUnits is candidates' answer for a function query. An exact name is
// what refScan would find where it can scan the file's bytes: the units
// naming the function directly or through an origin; elsewhere the scan
// of top-level names, which sees own names only.
func (ix *Index) funcUnits(q Query) ([]int, bool) {
	if q.Function.IsGlob() {
		us, _, ok := ix.matching(tabFunc, q.Function.Match, allUnits)
		return us, ok
	}
	own, ok := ix.lookup(tabFunc, q.fn(), allUnits)
	if !ok || !ix.byteScan {
		return own, ok
	}
	via, ok := ix.lookup(tabOrigin, q.fn(), allUnits)
	return sortedUnique(append(own, via...)), ok
}

// definingUnits is the units of cands that define a function q names,
// as definesFunc tells unit by unit: ok is false when the index cannot
// say (units other than C's, scoped or mangled names, where definesFunc
// decodes every candidate, or a corrupt posting).
func (ix *Index) definingUnits(q Query, cands []int) ([]int, bool) {
	if !ix.onlyC || needsDecodedUnit(q.fn()) || isMangled(q.fn()) {
		return nil, false
	}
	var defs []int
	for _, tab := range []int{tabFunc, tabOrigin} {
		var us []int
		var ok bool
		if q.Function.IsGlob() {
			us, _, ok = ix.matching(tab, q.Function.Match, definingOnly)
		} else {
			us, ok = ix.lookup(tab, q.fn(), definingOnly)
		}
		if !ok {
			return nil, false
		}
		defs = append(defs, us...)
	}
	defs = sortedUnique(defs)
	var out []int
	for _, u := range cands {
		if _, found := slices.BinarySearch(defs, u); found {
			out = append(out, u)
		}
	}
	return out, true
}

// nameUnits is refScan's answer from the index: the units naming name as a
// function or a global variable.
func (ix *Index) nameUnits(name string) ([]int, bool) {
	if !ix.onlyC {
		return nil, false
	}
	var all []int
	for _, tab := range []int{tabFunc, tabOrigin, tabVar} {
		us, ok := ix.lookup(tab, name, allUnits)
		if !ok {
			return nil, false
		}
		all = append(all, us...)
	}
	return sortedUnique(all), true
}

// fileUnits is candidates' answer for a file query: the units whose line
// table names a file src matches, and the distinct names that matched.
func (ix *Index) fileUnits(src sourceName) ([]int, []string, bool) {
	return ix.matching(tabFile, func(n string) bool { return n != "" && src.matches(n) }, allUnits)
}

// candidates is File.candidates from the index: ok=false if the index
// cannot answer (a corrupt posting), and the caller scans.
func (ix *Index) candidates(q Query, src sourceName) ([]int, []string, bool) {
	if q.fn() != "" {
		if !ix.onlyC || needsDecodedUnit(q.fn()) {
			return nil, nil, false
		}
		us, ok := ix.funcUnits(q)
		return us, nil, ok
	}
	return ix.fileUnits(src)
}

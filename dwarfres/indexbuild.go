package dwarfres

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// unitNames is what one unit contributes to an index, as ids into the
// building worker's name table.
type unitNames struct {
	worker int
	tabs   [numTabs][]int32
	defs   [numTabs][]int32 // of tabs, the names the unit defines (hasDefFlags)
	nonC   bool             // a unit of another language, with functions or variables
}

// nameTable interns names for one worker: the lookup by []byte does not
// allocate, so only a name's first sighting costs a string. last[tab][id]
// is the last unit (plus one) that added the name to table tab, so each
// unit lists a name once.
type nameTable struct {
	ids     map[string]int32
	names   []string
	last    [numTabs][]int32
	lastDef [numTabs][]int32 // the same for unitNames.defs
	// files interns line-table file names by directory and name as
	// written: a header lists the same files unit after unit, joined
	// (and allocated) once here. lf is readLineFiles's buffer.
	files map[string]map[string]int32
	lf    lineFiles
	// info and str are .debug_info and .debug_str, looked up once (a
	// lookup takes the File's lock).
	info, str []byte
	// abbrevs holds the unit's abbreviations, tab, while it is indexed:
	// parsed once, not kept.
	abbrevs abbrevScratch
	tab     *abbrevTable
}

func (nt *nameTable) id(b []byte) int32 {
	if id, ok := nt.ids[string(b)]; ok {
		return id
	}
	return nt.newID(string(b))
}

// idString is id for a name already a string.
func (nt *nameTable) idString(s string) int32 {
	if id, ok := nt.ids[s]; ok {
		return id
	}
	return nt.newID(s)
}

// newID adds s, not yet in the table.
func (nt *nameTable) newID(s string) int32 {
	id := int32(len(nt.names))
	nt.ids[s] = id
	nt.names = append(nt.names, s)
	for tab := range nt.last {
		nt.last[tab] = append(nt.last[tab], 0)
		nt.lastDef[tab] = append(nt.lastDef[tab], 0)
	}
	return id
}

// add lists name b in table tab of unit ui, once, and among the names it
// defines when def is set.
func (nt *nameTable) add(out *unitNames, ui, tab int, b []byte, def bool) {
	nt.addID(out, ui, tab, nt.id(b), def)
}

// addID is add for the name of id.
func (nt *nameTable) addID(out *unitNames, ui, tab int, id int32, def bool) {
	if nt.last[tab][id] != int32(ui+1) {
		nt.last[tab][id] = int32(ui + 1)
		out.tabs[tab] = append(out.tabs[tab], id)
	}
	if def && nt.lastDef[tab][id] != int32(ui+1) {
		nt.lastDef[tab][id] = int32(ui + 1)
		out.defs[tab] = append(out.defs[tab], id)
	}
}

// indexer builds a File's index: the walk over every unit that names
// what each holds, and the merge of what the workers found.
type indexer struct{ f *File }

// buildIndex reads every unit once, in parallel, and returns its index.
// progress, if set, is called with the units done so far. A unit that does
// not decode fails the build: the scans then report it as they do today.
func (b indexer) buildIndex(progress func(done, total int)) (*Index, error) {
	units, err := b.f.unitsList()
	if err != nil {
		return nil, err
	}
	tabs := make([]nameTable, workers())
	// A guess at the names a worker meets, to size its table once: a
	// vmlinux's come to about one for 32 bytes of .debug_str.
	hint := len(b.f.sec(".debug_str")) / 32
	for w := range tabs {
		tabs[w].ids = make(map[string]int32, hint)
		tabs[w].names = make([]string, 0, hint)
		for tab := range numTabs {
			tabs[w].last[tab] = make([]int32, 0, hint)
			tabs[w].lastDef[tab] = make([]int32, 0, hint)
		}
		tabs[w].files = map[string]map[string]int32{}
		tabs[w].info, tabs[w].str = b.f.sec(".debug_info"), b.f.sec(".debug_str")
	}
	per := make([]unitNames, len(units))
	var done atomic.Int64
	var progMu sync.Mutex
	var syms []byte
	// Job 0, taken first, records the symbol map (not Symbols: it may be
	// what asked for the index) on one worker while the others start on
	// the units: alone after the walk, it was a tenth of the build.
	err = parallel(b.f.context(), len(units)+1, func(w, job int) error {
		if job == 0 {
			syms = elfsym.EncodeTable(b.f.Object)
			return nil
		}
		ui := job - 1
		per[ui].worker = w
		if units[ui].holdsCode() {
			if err := b.indexUnit(ui, &units[ui], &tabs[w], &per[ui]); err != nil {
				return err
			}
			b.dropInfoPages(&units[ui])
		}
		if n := done.Add(1); progress != nil {
			progMu.Lock()
			progress(int(n), len(units))
			progMu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ix := b.mergeIndex(units, tabs, per)
	ix.syms = syms
	ix.hdrs = b.unitsRecord(units)
	return ix, nil
}

// indexUnit collects one unit's names: the same top-level DIEs
// unitMatches looks at, and the file table fileNames reads.
func (b indexer) indexUnit(ui int, u *unit, nt *nameTable, out *unitNames) error {
	abbrevs := b.f.sec(".debug_abbrev")
	if u.abbrevOff >= uint64(len(abbrevs)) {
		_, err := b.f.abbrevs.table(u.abbrevOff) // its error
		return err
	}
	tab, err := nt.abbrevs.parse(&buf{sec: ".debug_abbrev", base: u.abbrevOff, data: abbrevs[u.abbrevOff:], order: b.f.Order}, 0)
	if err != nil {
		return err
	}
	nt.tab = &tab
	if _, err := b.f.rootDIETab(u, nt.tab); err != nil {
		return err
	}
	r := b.f.newReaderTab(u, nt.tab)
	var d die
	if !r.next(&d) {
		return r.err
	}
	add := func(tab int, b []byte) { nt.add(out, ui, tab, b, false) }
	// A subprogram that is not a declaration defines its name in the unit.
	addFunc := func(tab int, b []byte, d *die) { nt.add(out, ui, tab, b, !d.Declaration) }
	if !u.cOnly() && u.root.Lang != langMipsAssembler {
		if out.nonC = hasNames(r, &d); r.err != nil {
			return r.err
		}
		return b.indexFiles(ui, u, nt, out)
	}
	for r.next(&d) {
		if d.Depth < 1 {
			break
		}
		switch {
		case d.Tag == tagSubprogram && d.HasName():
			addFunc(tabFunc, b.nameBytes(nt, u, &d), &d)
		case d.Tag == tagSubprogram && d.HasOrigin:
			if n, ok := b.originName(nt, u, d); ok {
				addFunc(tabOrigin, n, &d)
			}
		case d.Tag == tagVariable && d.HasName():
			add(tabVar, b.nameBytes(nt, u, &d))
		}
		r.skipChildren(&d)
	}
	if r.err != nil {
		return r.err
	}
	return b.indexFiles(ui, u, nt, out)
}

// indexFiles adds the names of u's line table, unit ui.
func (b indexer) indexFiles(ui int, u *unit, nt *nameTable, out *unitNames) error {
	if lf := &nt.lf; (lineProgram{b.f, u}).readLineFiles(lf) {
		for _, fr := range lf.files {
			if len(fr.name) > 0 { // else joinLineFile's ""
				nt.addID(out, ui, tabFile, nt.fileID(lf.dir(fr), fr.name), false)
			}
		}
		return nil
	}
	names, err := lineProgram{b.f, u}.fileNamesDWARF()
	if err != nil {
		return err
	}
	for _, n := range names {
		if n != "" {
			nt.addID(out, ui, tabFile, nt.idString(n), false)
		}
	}
	return nil
}

// fileID is the id of the file name joinLineFile makes of dir and name.
func (nt *nameTable) fileID(dir string, name []byte) int32 {
	m := nt.files[dir]
	if m == nil {
		m = map[string]int32{}
		nt.files[dir] = m
	}
	if id, ok := m[string(name)]; ok {
		return id
	}
	id := nt.idString(joinLineFile(dir, name))
	m[string(name)] = id
	return id
}

// dropInfoPages gives back the mapped pages of u's DIEs once indexed: they
// stay in the page cache, but a build reading all of .debug_info through
// the mapping would otherwise keep it all resident. Pages shared with a
// neighbour unit are kept (rounded inwards).
func (b indexer) dropInfoPages(u *unit) {
	df := b.f.dwarfFile()
	s := df.ELF.Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED != 0 || df.IsModule() { // a module's is a relocated copy
		return
	}
	df.DropPages(s.Offset+u.off, u.end-u.off)
}

const (
	tagVariable = 0x34 // DW_TAG_variable
	// langMipsAssembler is gas's language for every architecture: its
	// units (a vmlinux's .S files) list their functions flat, as C units
	// do, so the index names them as it does C's.
	langMipsAssembler = 0x8001
)

// hasNames reports whether the rest of the unit r reads has a function or
// a variable, at any depth.
func hasNames(r *reader, d *die) bool {
	for r.next(d) {
		if d.Tag == tagSubprogram || d.Tag == tagVariable {
			return true
		}
	}
	return false
}

// nameBytes is rawName without allocating for .debug_str names.
func (b indexer) nameBytes(nt *nameTable, u *unit, d *die) []byte {
	var sec []byte
	switch d.nameForm {
	case formString: // its offset in .debug_info
		sec = nt.info
	case formStrp:
		sec = nt.str
	default:
		return []byte(b.f.rawName(u, d))
	}
	if d.nameVal < uint64(len(sec)) {
		b := sec[d.nameVal:]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return b[:i]
		}
	}
	return nil
}

// originName is the name cuTree.name gives an unnamed DIE: its abstract
// origin's or specification's, followed within the unit.
func (b indexer) originName(nt *nameTable, u *unit, d die) ([]byte, bool) {
	for n := 0; n < 8; n++ {
		if d.HasName() {
			return b.nameBytes(nt, u, &d), true
		}
		if !d.HasOrigin || d.Origin < u.dieOff || d.Origin >= u.end {
			return nil, false
		}
		r := b.f.newReaderTab(u, nt.tab)
		r.seek(d.Origin, 1)
		if !r.next(&d) {
			return nil, false
		}
	}
	return nil, false
}

// mergeIndex turns the workers' names and the units' ids into one Index:
// strings deduplicated, each table sorted by name, postings ascending.
func (b indexer) mergeIndex(units []unit, tabs []nameTable, per []unitNames) *Index {
	ix := &Index{units: len(units), infoSize: uint64(len(b.f.sec(".debug_info"))), byteScan: b.byteScannable(units), onlyC: true}
	for i := range per {
		ix.onlyC = ix.onlyC && !per[i].nonC
	}
	names, remap := globalNames(tabs)
	// Strings sorted once; every table then lists names in that order.
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	strOff := make([]uint32, len(names))
	for _, g := range order {
		strOff[g] = uint32(len(ix.strs))
		ix.strs = append(ix.strs, names[g]...)
	}
	for tab := 0; tab < numTabs; tab++ {
		post := postingsOf(per, remap, len(names), func(n *unitNames) []int32 { return n.tabs[tab] })
		defs := postingsOf(per, remap, len(names), func(n *unitNames) []int32 { return n.defs[tab] })
		t := &ix.tabs[tab]
		t.ents = make([]byte, 0, entSize*len(names))
		for _, g := range order {
			units := post.of(g)
			if len(units) == 0 {
				continue
			}
			t.ents = binary.LittleEndian.AppendUint32(t.ents, strOff[g])
			t.ents = binary.LittleEndian.AppendUint32(t.ents, uint32(len(names[g])))
			t.ents = binary.LittleEndian.AppendUint32(t.ents, uint32(len(t.posts)))
			t.ents = binary.LittleEndian.AppendUint32(t.ents, uint32(len(units)))
			t.posts = appendPostings(t.posts, units, defs.of(g), hasDefFlags(tab))
		}
	}
	return ix
}

// globalNames merges the workers' name tables: every distinct name, and
// per worker its ids' global ids. Worker 0's ids are kept as they are
// (its table grows into the global one).
func globalNames(tabs []nameTable) (names []string, remap [][]int32) {
	global, names := tabs[0].ids, tabs[0].names
	remap = make([][]int32, len(tabs))
	remap[0] = make([]int32, len(names))
	for i := range remap[0] {
		remap[0][i] = int32(i)
	}
	for w := 1; w < len(tabs); w++ {
		remap[w] = make([]int32, len(tabs[w].names))
		for i, s := range tabs[w].names {
			g, ok := global[s]
			if !ok {
				g = int32(len(names))
				global[s] = g
				names = append(names, s)
			}
			remap[w][i] = g
		}
	}
	return names, remap
}

// postings is, per global name id, the units (ascending) listing it: the
// units of id g are units[start[g]:start[g+1]].
type postings struct {
	start []int32
	units []int32
}

func (p *postings) of(g int32) []int32 { return p.units[p.start[g]:p.start[g+1]] }

// postingsOf lists, per global name id, the units (ascending) whose list
// of ids (ids of a unitNames) holds it: counted, then placed, in one
// array.
func postingsOf(per []unitNames, remap [][]int32, n int, ids func(*unitNames) []int32) postings {
	p := postings{start: make([]int32, n+1)}
	for ui := range per {
		for _, id := range ids(&per[ui]) {
			p.start[remap[per[ui].worker][id]+1]++
		}
	}
	for g := 0; g < n; g++ {
		p.start[g+1] += p.start[g]
	}
	p.units = make([]int32, p.start[n])
	next := slices.Clone(p.start[:n])
	for ui := range per {
		for _, id := range ids(&per[ui]) {
			g := remap[per[ui].worker][id]
			p.units[next[g]] = int32(ui)
			next[g]++
		}
	}
	return p
}

// appendPostings codes units, ascending, as deltas; with flagged, each
// shifted left by one for the flag of the units also in defs (a subset,
// ascending too).
func appendPostings(b []byte, units, defs []int32, flagged bool) []byte {
	prev := int32(-1)
	for _, ui := range units {
		d := uint64(ui - prev - 1)
		if flagged {
			d <<= 1
			if len(defs) > 0 && defs[0] == ui {
				d |= 1
				defs = defs[1:]
			}
		}
		b = binary.AppendUvarint(b, d)
		prev = ui
	}
	return b
}

// byteScannable reports whether refScan can scan the bytes of b's file
// for name references (it answers ok for it).
func (b indexer) byteScannable(units []unit) bool {
	f := b.f
	if f.sec(".debug_str_offsets") != nil || f.hasAlt() {
		return false // names may be in another file's .debug_str
	}
	for i := range units {
		if units[i].offSize != 4 {
			return false
		}
	}
	return true
}

package dwarfres

import (
	"fmt"
	"os"
)

// CheckDownload checks a downloaded ELF file, read through fh (the
// debuginfod client's temporary, before it is cached: debuginfod.Client's
// Verify), as every query would first read it: the unit headers of its
// .debug_info and each unit's abbreviation table (checkDecodes). A file
// without DWARF (an executable) passes. A dwz common file it names is not
// looked for: that is the query's business, not the download's.
func CheckDownload(fh *os.File) error {
	f, err := Open(fmt.Sprintf("/proc/self/fd/%d", fh.Fd()))
	if err != nil {
		return err
	}
	defer f.Close()
	if !f.HasDWARF() {
		return nil
	}
	f.altf.once.Do(func() {}) // no common file: the own units are checked
	f.unitsOnce.Do(f.scanUnits)
	if f.unitsErr != nil {
		return f.unitsErr
	}
	return f.abbrevs.check(f.units)
}

// check reads the abbreviation table of every unit of units once, as
// parsing it would, keeping nothing (split units' tables are in their
// .dwo files and are left to the query): a table that does not decode
// would fail every query reaching its unit.
func (c *abbrevCache) check(units []unit) error {
	sec := c.sec()
	seen := make(map[uint64]bool)
	for _, u := range units {
		if u.split != nil || seen[u.abbrevOff] {
			continue
		}
		seen[u.abbrevOff] = true
		if u.abbrevOff >= uint64(len(sec)) {
			return &DecodeError{Section: ".debug_abbrev", Offset: u.abbrevOff, Msg: "abbreviation table offset out of range"}
		}
		b := buf{sec: ".debug_abbrev", base: u.abbrevOff, data: sec[u.abbrevOff:], order: c.f.Order}
		for b.uleb() != 0 && b.err == nil {
			skipAbbrev(&b) // what parse reads, without building the table
		}
		if b.err != nil {
			return b.err
		}
	}
	return nil
}

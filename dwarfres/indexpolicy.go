package dwarfres

import (
	"errors"
	"os"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// ManySpecs is the number of specs in one run from which building a
// missing index pays within that run. On the 6.1 amd64 vmlinux the build
// takes about 1.5 s of CPU; scanning takes about 0.1 s per -D spec
// (1.2 s for 16, 6.4 s for 64, growing faster than the count as decoded
// units pile up), and with the index 16 take 0.07 s: the two meet at
// about 16.
const ManySpecs = 16

// IndexPays reports whether a run of specs queries on f should go
// through its index, loading or building it, rather than scan: when the
// index is there already, the run has ManySpecs specs or more, or f was
// queried before. Otherwise it marks f as queried (an empty file beside
// where the index would be), so the next query builds the index and the
// first answers at the scan's speed. When the marker cannot be read or
// written (a directory not to be trusted, or not writable), the index
// decides: EnsureIndex reports why it is unusable.
func IndexPays(f *File, o IndexOptions, specs int) bool {
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultIndexDir(); err != nil {
			return true
		}
	}
	if !f.HasDWARF() {
		return true // EnsureIndex and the scan say why, quickly
	}
	_, name, err := indexer{f}.indexKey()
	if err != nil {
		return true
	}
	d, err := safefs.OpenDir(dir, true, 0o755)
	if err != nil {
		return true
	}
	defer d.Close()
	tidyIndexDir(d, time.Now(), tempsOnly)
	if s, err := d.Lstat(name); s != nil || err != nil || specs >= ManySpecs {
		return true
	}
	seen, err := markQueried(d, name+".seen")
	return seen || err != nil
}

// markQueried creates the empty marker name in d, and reports whether one
// was there already. An existing marker counts only when safefs trusts
// it (a regular file of the user's or root's): a link or another user's
// file marks nothing and is left alone. The marker is created whole or
// not at all (O_EXCL, never through a link); losing the race to a
// concurrent first query counts as not seen, so both scan.
func markQueried(d *safefs.Dir, name string) (seen bool, err error) {
	fi, err := d.Lstat(name)
	if fi != nil || err != nil {
		return fi != nil && err == nil, nil
	}
	fh, err := d.Create(name, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return false, fh.Close()
}

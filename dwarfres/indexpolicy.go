package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
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
// written, the index decides (and EnsureIndex reports why it is unusable).
func (f *File) IndexPays(o IndexOptions, specs int) bool {
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
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil || specs >= ManySpecs {
		return true
	}
	seen, err := markQueried(path + ".seen")
	return seen || err != nil
}

// markQueried creates the empty marker at path, and reports whether one
// was there already. An existing marker counts only when it is a regular
// file of this user's: another user's, or a link, marks nothing. The
// marker is created whole or not at all (O_EXCL, never through a link);
// losing the race to a concurrent first query counts as not seen, so
// both scan.
func markQueried(path string) (seen bool, err error) {
	if st, err := os.Lstat(path); err == nil {
		return ownRegular(st), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return false, fh.Close()
}

// ownRegular reports whether st is a regular file owned by this user.
func ownRegular(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return st.Mode().IsRegular() && ok && int(sys.Uid) == os.Getuid()
}

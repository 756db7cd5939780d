package dwarfres

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/dwarfres/internal/record"
	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// The index file:
//
//	magic "DWPRBIDX", u32 format version, u32 flags (bit 0: byteScan,
//	bit 1: onlyC),
//	u64 length of what follows the checksum, u32 CRC-32C of version,
//	flags and what follows the checksum, then:
//	u32 key length, key (whose binary: see indexKey), u32 units,
//	u64 .debug_info size, u32 strings length, strings, per table
//	u32 entries, u32 postings length, entries, postings, u32 length and
//	the symbol map's record (elfsym/encode.go), u32 length and the unit
//	headers' record (indexunits.go).
//
// All little-endian. A reader trusts nothing before the checksum and
// the key have matched; lookups still bound-check every offset.
const (
	indexMagic   = "DWPRBIDX"
	indexVersion = 4 // 2: definition flags, unit headers; 3: symbols name their table entry; 4: symbols are their table numbers only
	indexHdrSize = 8 + 4 + 4 + 8 + 4
)

// encodeIndex writes ix for the binary whose key is key.
func encodeIndex(ix *Index, key string) []byte {
	le := binary.LittleEndian
	size := 4 + len(key) + 4 + 8 + 4 + len(ix.strs) + 4 + len(ix.syms) + 4 + len(ix.hdrs)
	for i := range ix.tabs {
		size += 8 + len(ix.tabs[i].ents) + len(ix.tabs[i].posts)
	}
	out := make([]byte, indexHdrSize, indexHdrSize+size)
	body := le.AppendUint32(out[indexHdrSize:], uint32(len(key)))
	body = append(body, key...)
	body = le.AppendUint32(body, uint32(ix.units))
	body = le.AppendUint64(body, ix.infoSize)
	body = le.AppendUint32(body, uint32(len(ix.strs)))
	body = append(body, ix.strs...)
	for i := range ix.tabs {
		t := &ix.tabs[i]
		body = le.AppendUint32(body, uint32(t.len()))
		body = le.AppendUint32(body, uint32(len(t.posts)))
		body = append(body, t.ents...)
		body = append(body, t.posts...)
	}
	body = le.AppendUint32(body, uint32(len(ix.syms)))
	body = append(body, ix.syms...)
	body = le.AppendUint32(body, uint32(len(ix.hdrs)))
	body = append(body, ix.hdrs...)
	copy(out, indexMagic)
	le.PutUint32(out[8:], indexVersion)
	var flags uint32
	if ix.byteScan {
		flags |= 1
	}
	if ix.onlyC {
		flags |= 2
	}
	le.PutUint32(out[12:], flags)
	le.PutUint64(out[16:], uint64(len(body)))
	le.PutUint32(out[24:], indexSum(out, body))
	return out[:indexHdrSize+len(body)]
}

// indexSum is the checksum of the header's version and flags and of body.
func indexSum(hdr, body []byte) uint32 {
	return crc32.Update(crc32.Checksum(hdr[8:16], record.Castagnoli), record.Castagnoli, body)
}

// decodeIndex checks and decodes an index file for the binary whose key
// is key. Errors wrap ErrIndexCorrupt, ErrIndexVersion or ErrIndexForeign.
func decodeIndex(b []byte, key string) (*Index, error) {
	le := binary.LittleEndian
	if len(b) < indexHdrSize || string(b[:8]) != indexMagic {
		return nil, fmt.Errorf("%w: no index header", ErrIndexCorrupt)
	}
	if v := le.Uint32(b[8:]); v != indexVersion {
		return nil, fmt.Errorf("%w: format %d, want %d", ErrIndexVersion, v, indexVersion)
	}
	body := b[indexHdrSize:]
	if n := le.Uint64(b[16:]); n != uint64(len(body)) {
		return nil, fmt.Errorf("%w: %d bytes, header says %d (truncated?)", ErrIndexCorrupt, len(body), n)
	}
	if indexSum(b, body) != le.Uint32(b[24:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrIndexCorrupt)
	}
	d := &record.Decoder{B: body}
	if k := d.Bytes(int(d.U32())); d.Bad || string(k) != key {
		return nil, fmt.Errorf("%w (%s)", ErrIndexForeign, k)
	}
	flags := le.Uint32(b[12:])
	if flags&^3 != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrIndexCorrupt, flags)
	}
	ix := &Index{byteScan: flags&1 != 0, onlyC: flags&2 != 0}
	ix.units = int(d.U32())
	ix.infoSize = d.U64()
	ix.strs = d.Bytes(int(d.U32()))
	for i := range ix.tabs {
		n, pl := int(d.U32()), int(d.U32())
		if n > len(body)/entSize {
			d.Bad = true
			break
		}
		ix.tabs[i].ents = d.Bytes(n * entSize)
		ix.tabs[i].posts = d.Bytes(pl)
	}
	ix.syms = d.Bytes(int(d.U32()))
	ix.hdrs = d.Bytes(int(d.U32()))
	if d.Bad || len(d.B) != 0 {
		return nil, fmt.Errorf("%w: tables do not decode", ErrIndexCorrupt)
	}
	for i := range ix.tabs {
		if !ix.tabs[i].tiled() {
			return nil, fmt.Errorf("%w: the posting lists of table %d do not follow each other", ErrIndexCorrupt, i)
		}
	}
	return ix, nil
}

// indexKey names the debuginfo an index is for: its build-id (without
// one, its path), and the size and modification time of the file. A
// build-id alone names a link, not the bytes: a file rewritten after it
// (dwz, objcopy, a test corrupting a copy) keeps it, and must not be
// answered from the index of another state. name is the file name the
// index gets in its directory, distinct for each key.
func (b indexer) indexKey() (key, name string, err error) {
	df := b.f.dwarfFile()
	st, err := df.Stat()
	if err != nil {
		return "", "", err
	}
	stamp := strconv.FormatInt(st.Size(), 10) + " " + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	id := df.BuildID()
	if id != "" {
		key = "build-id " + id + " " + stamp
	} else {
		abs, err := filepath.Abs(df.Path)
		if err != nil {
			return "", "", err
		}
		key = "file " + abs + " " + stamp
		id = "path"
	}
	sum := sha256.Sum256([]byte(key))
	return key, id + "-" + hex.EncodeToString(sum[:8]) + ".idx", nil
}

// DefaultIndexDir is where indexes live: $DWPROBE_INDEX_DIR, else
// dwprobe/index under the user's cache directory ($XDG_CACHE_HOME, else
// ~/.cache when the home exists: with HOME=/nonexistent there is none,
// an error wrapping ErrIndexNoDir, and nothing is created).
func DefaultIndexDir() (string, error) {
	if d := os.Getenv("DWPROBE_INDEX_DIR"); d != "" {
		return d, nil
	}
	c, err := safefs.UserCacheDir()
	if err != nil {
		path := "index directory"
		var nh *safefs.NoHomeError
		if errors.As(err, &nh) && nh.Home != "" {
			path = filepath.Join(nh.Home, ".cache", "dwprobe", "index")
		}
		return "", &IndexError{Path: path, Err: fmt.Errorf("%w: %v (set XDG_CACHE_HOME or DWPROBE_INDEX_DIR)", ErrIndexNoDir, err)}
	}
	return filepath.Join(c, "dwprobe", "index"), nil
}

// readIndex loads and checks the index name in d for f; a missing file
// is (nil, nil). The index must also fit f's units.
func (x indexer) readIndex(d *safefs.Dir, name, key string) (*Index, error) {
	path := filepath.Join(d.Path, name)
	b, err := loadIndex(d, name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, openIndexError(path, err)
	}
	ix, err := decodeIndex(b, key)
	if err != nil {
		return nil, &IndexError{Path: path, Err: err}
	}
	if len(ix.hdrs) > 0 { // none where split units come from .dwo files
		if err := x.useIndexUnits(ix); err != nil {
			return nil, &IndexError{Path: path, Err: err}
		}
	}
	units, err := x.f.unitsList()
	if err != nil {
		return nil, nil // no index for debuginfo that does not read: the build says why
	}
	if ix.units != len(units) || ix.infoSize != uint64(len(x.f.sec(".debug_info"))) {
		return nil, &IndexError{Path: path, Err: fmt.Errorf("%w: %d units, the binary has %d", ErrIndexForeign, ix.units, len(units))}
	}
	return ix, nil
}

// loadIndex reads the index file into memory, through safefs (no link,
// regular, the user's or root's). A copy, not a mapping: a shared mapping
// of a file another process truncates faults (SIGBUS), and a private one
// still shows changes made in place to the pages not yet read, so an
// answer could come from two states of the file. The Index and the
// symbol map decoded from it point into the copy. Reading a vmlinux's
// 8 MB index costs about a millisecond more than mapping it (the
// checksum reads every page anyway). A file used is marked seen (its
// mtime), at most once a day, for the cache's eviction (evictIndexes).
func loadIndex(d *safefs.Dir, name string) ([]byte, error) {
	path := filepath.Join(d.Path, name)
	fh, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(fh, b); err != nil {
		return nil, fmt.Errorf("%s: %w (changed while read?)", path, err)
	}
	if time.Since(st.ModTime()) > 24*time.Hour {
		now := time.Now()
		tv := []syscall.Timeval{syscall.NsecToTimeval(now.UnixNano()), syscall.NsecToTimeval(now.UnixNano())}
		syscall.Futimes(int(fh.Fd()), tv) // best effort: a read-only cache still reads
	}
	return b, nil
}

// openIndexError is the IndexError of an index file that could not be
// opened: not trusted, not a regular file (a FIFO), or unreadable.
func openIndexError(path string, err error) error {
	var ue *safefs.UntrustedError
	var nr *elfobj.NotRegularError
	switch {
	case errors.As(err, &ue):
		return &IndexError{Path: path, Err: fmt.Errorf("%w: %s", ErrIndexUntrusted, ue.Why)}
	case errors.As(err, &nr):
		return &IndexError{Path: path, Err: fmt.Errorf("%w (%s)", ErrIndexNotRegular, safefs.KindOf(nr.Mode))}
	}
	return &IndexError{Path: path, Err: fmt.Errorf("%w: %v", ErrIndexCorrupt, err)}
}

// writeIndex stores b as the file name in d through a temporary file in
// d and a rename (both relative to d's descriptor), so a reader sees the
// old file or the whole new one, and concurrent writers of the same index
// each rename a complete file. Errors wrap ErrIndexUnwritable.
func writeIndex(d *safefs.Dir, name string, b []byte) error {
	path := filepath.Join(d.Path, name)
	tmp, tmpName, err := d.CreateTemp(".tmp-", ".idx")
	if err != nil {
		return &IndexError{Path: path, Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp's 0600 is for secrets
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Rename(tmpName, name)
	}
	if err != nil {
		d.Remove(tmpName)
		return &IndexError{Path: path, Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
	}
	return nil
}

package tracefs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The record of what was added: the binary under each uprobe as it was
// then (size and build-id), so that a listing can say when it has changed
// since. The kernel keeps only the path and offset, and a rebuilt binary
// leaves the probe on the old inode, or at an offset that is now
// elsewhere. The record is a file beside the lock (/run/dwprobe/added
// beside /run/dwprobe/lock: /run is emptied at boot, as the probes are),
// one line per event and binary:
//
//	GROUP/EVENT <TAB> PATH <TAB> SIZE <TAB> BUILD-ID
//
// It is rewritten under its own flock by each RecordAdded, keeping the
// lines of events that still exist. Kprobes are not recorded: the running
// kernel does not change under them.

// Binary is what the record keeps of the binary under a uprobe: its size
// and GNU build-id ("" for none).
type Binary struct {
	Size    int64
	BuildID string
}

// BuildIDFunc reads the GNU build-id of the binary at path, "" when it
// has none or cannot be read. tracefs reads no ELF: its caller does.
type BuildIDFunc func(path string) string

// AddedKey names a record: an event and the binary under it.
type AddedKey struct {
	Event string // GROUP/EVENT
	Path  string // the binary
}

// AddedKeyOf returns e's record key; false for a kprobe, or a uprobe
// whose target is not PATH:OFFSET[(REF_CTR_OFFSET)].
func AddedKeyOf(e Event) (AddedKey, bool) {
	if e.Kind != UProbe {
		return AddedKey{}, false
	}
	path, _, ok := UprobeTarget(e.Target)
	if !ok {
		return AddedKey{}, false
	}
	return AddedKey{Event: e.Group + "/" + e.Name, Path: path}, true
}

// UprobeTarget splits a uprobe's PATH:OFFSET[(REF_CTR_OFFSET)] target
// into its path and offset (as trace_uprobe_create reads them: the offset
// after the last ':', by C's strtoul with base 0); false when it is not
// of that form.
func UprobeTarget(target string) (path string, off uint64, ok bool) {
	if i := strings.IndexByte(target, '('); i > 0 && strings.HasSuffix(target, ")") {
		target = target[:i]
	}
	i := strings.LastIndexByte(target, ':')
	if i <= 0 {
		return "", 0, false
	}
	off, ok = strtoul(target[i+1:])
	return target[:i], off, ok
}

// UprobeRefCtr is the REF_CTR_OFFSET of a uprobe's
// PATH:OFFSET(REF_CTR_OFFSET) target (an SDT marker's semaphore); false
// when it has none.
func UprobeRefCtr(target string) (uint64, bool) {
	i := strings.IndexByte(target, '(')
	if i <= 0 || !strings.HasSuffix(target, ")") {
		return 0, false
	}
	return strtoul(target[i+1 : len(target)-1])
}

// KprobeTarget splits a kprobe's [MOD:]SYM[+OFFS] target (or an fprobe's
// SYM[%return]) into its module, symbol and offset; false for an address
// (0x…, or a number) and what is not of that form.
func KprobeTarget(target string) (module, sym string, off uint64, ok bool) {
	if j := strings.IndexByte(target, ':'); j >= 0 {
		module, target = target[:j], target[j+1:]
	}
	target = strings.TrimSuffix(target, "%return")
	if target == "" || isDigit(target[0]) {
		return "", "", 0, false
	}
	sym, offs, hasOff := strings.Cut(target, "+")
	if hasOff {
		if off, ok = strtoul(offs); !ok {
			return "", "", 0, false
		}
	}
	return module, sym, off, true
}

// strtoul reads s wholly as C's strtoul(s, &end, 0) does: decimal, 0x
// hexadecimal or 0 octal, no sign, within 64 bits.
func strtoul(s string) (uint64, bool) {
	digits, base := s, 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		digits, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		digits, base = s[1:], 8
	}
	// With an explicit base, ParseUint takes neither sign nor '_'.
	n, err := strconv.ParseUint(digits, base, 64)
	return n, err == nil
}

// Fingerprint reads the size and build-id of the binary at path; false
// when it cannot be read.
func Fingerprint(path string, buildID BuildIDFunc) (Binary, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return Binary{}, false
	}
	return Binary{Size: st.Size(), BuildID: buildID(path)}, true
}

// AddedPath returns the record's file, beside the lock.
func (t *FS) AddedPath() string {
	return strings.TrimSuffix(t.lockPath, "lock") + "added"
}

// RecordAdded notes the binaries under the uprobes of added, as
// buildID and the file system find them, dropping the records of events
// that are no longer listed. A failure costs only a listing's notes: the
// caller may ignore it.
func (t *FS) RecordAdded(added []Event, buildID BuildIDFunc) error {
	listed, err := t.List(UProbe)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(t.AddedPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	live := map[AddedKey]bool{}
	for _, e := range listed {
		if k, ok := AddedKeyOf(e); ok {
			live[k] = true
		}
	}
	recs := readAdded(f)
	for k := range recs {
		if !live[k] {
			delete(recs, k)
		}
	}
	// Each binary read once, however many probes a batch puts on it.
	seen := map[string]*Binary{}
	for _, e := range added {
		if k, ok := AddedKeyOf(e); ok {
			b, done := seen[k.Path]
			if !done {
				if fp, ok := Fingerprint(k.Path, buildID); ok {
					b = &fp
				}
				seen[k.Path] = b
			}
			if b != nil {
				recs[k] = *b
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	return writeAdded(f, recs)
}

// ReadAdded returns the record; empty when there is none. Malformed
// lines are skipped.
func (t *FS) ReadAdded() (map[AddedKey]Binary, error) {
	f, err := os.Open(t.AddedPath())
	if err != nil {
		return map[AddedKey]Binary{}, err
	}
	defer f.Close()
	return readAdded(f), nil
}

func readAdded(r io.Reader) map[AddedKey]Binary {
	recs := map[AddedKey]Binary{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		recs[AddedKey{Event: f[0], Path: f[1]}] = Binary{Size: size, BuildID: f[3]}
	}
	return recs
}

func writeAdded(w io.Writer, recs map[AddedKey]Binary) error {
	keys := make([]AddedKey, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	// The line's order: by "GROUP/EVENT\tPATH", as the file reads.
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].Event+"\t"+keys[i].Path < keys[j].Event+"\t"+keys[j].Path
	})
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s\t%s\t%d\t%s\n", k.Event, k.Path, recs[k].Size, recs[k].BuildID)
	}
	return bw.Flush()
}

// Change is how the binary under a uprobe differs from the record of
// when it was added.
type Change struct {
	Event Event
	Path  string
	Was   Binary
	Now   Binary // zero when Gone
	Gone  bool   // the binary can no longer be read
}

// ChangeCheck compares listed uprobes with the record, reading each
// binary once.
type ChangeCheck struct {
	recs    map[AddedKey]Binary
	now     map[string]Binary
	gone    map[string]bool
	seen    map[AddedKey]bool
	buildID BuildIDFunc
}

// NewChangeCheck reads t's record (none: nothing is reported changed).
func (t *FS) NewChangeCheck(buildID BuildIDFunc) *ChangeCheck {
	recs, _ := t.ReadAdded()
	return &ChangeCheck{recs: recs, now: map[string]Binary{}, gone: map[string]bool{}, seen: map[AddedKey]bool{}, buildID: buildID}
}

// Check returns how e's binary changed since e was added; false when it
// did not, e was not recorded, or e's event and binary were checked
// already.
func (c *ChangeCheck) Check(e Event) (Change, bool) {
	k, ok := AddedKeyOf(e)
	if !ok || c.seen[k] {
		return Change{}, false
	}
	c.seen[k] = true
	was, ok := c.recs[k]
	if !ok {
		return Change{}, false
	}
	now, ok := c.now[k.Path]
	if !ok && !c.gone[k.Path] {
		now, ok = Fingerprint(k.Path, c.buildID)
		c.now[k.Path], c.gone[k.Path] = now, !ok
	}
	ch := Change{Event: e, Path: k.Path, Was: was, Now: now, Gone: c.gone[k.Path]}
	if !ch.Gone && was == now {
		return Change{}, false
	}
	return ch, true
}

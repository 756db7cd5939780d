package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// What dwprobe added: the binary under each uprobe as it was then (size
// and build-id), so that -l can say when it has changed since. The kernel
// keeps only the path and offset, and a rebuilt binary leaves the probe on
// the old inode, or at an offset that is now elsewhere. The record is a
// file beside tracefs's lock (/run/dwprobe/added beside /run/dwprobe/lock:
// /run is emptied at boot, as the probes are), one line per event and binary:
//
//	GROUP/EVENT <TAB> PATH <TAB> SIZE <TAB> BUILD-ID
//
// It is rewritten under its own flock by each add, keeping the lines of
// events that still exist. Kprobes are not recorded: the running kernel
// does not change under them.

// fingerprint is what -l compares: a binary's size and GNU build-id.
type fingerprint struct {
	size    int64
	buildID string
}

// addedKey names a record: the event and the binary under it.
func addedKey(e tracefs.Event) (key, path string, ok bool) {
	if e.Kind != tracefs.UProbe {
		return "", "", false
	}
	tp, err := probegen.ParseTracePoint(e.Target, true, e.Type == 'r')
	if err != nil {
		return "", "", false
	}
	return e.Group + "/" + e.Name + "\t" + tp.Module, tp.Module, true
}

// fingerprintOf reads path's size and build-id; ok is false when it can't
// be read.
func fingerprintOf(path string) (fingerprint, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return fingerprint{}, false
	}
	fp := fingerprint{size: st.Size()}
	if f, err := dwarfres.Open(path); err == nil {
		fp.buildID = f.BuildID()
		f.Close()
	}
	return fp, true
}

func addedPath(fsys *tracefs.FS) string {
	return strings.TrimSuffix(fsys.LockPath(), "lock") + "added"
}

// recordAdded notes the binaries under the uprobes of added, dropping the
// records of events that no longer exist. A failure costs only -l's note,
// so it is not an error of the add.
func recordAdded(fsys *tracefs.FS, added []tracefs.Event) {
	listed, err := fsys.List(tracefs.UProbe)
	if err != nil {
		return
	}
	f, err := os.OpenFile(addedPath(fsys), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return
	}
	live := map[string]bool{}
	for _, e := range listed {
		if k, _, ok := addedKey(e); ok {
			live[k] = true
		}
	}
	recs := readAdded(f)
	for k := range recs {
		if !live[k] {
			delete(recs, k)
		}
	}
	for _, e := range added {
		if k, path, ok := addedKey(e); ok {
			if fp, ok := fingerprintOf(path); ok {
				recs[k] = fp
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	if err := f.Truncate(0); err == nil {
		writeAdded(f, recs)
	}
}

func readAdded(r io.Reader) map[string]fingerprint {
	recs := map[string]fingerprint{}
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
		recs[f[0]+"\t"+f[1]] = fingerprint{size: size, buildID: f[3]}
	}
	return recs
}

func writeAdded(w io.Writer, recs map[string]fingerprint) {
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s\t%d\t%s\n", k, recs[k].size, recs[k].buildID)
	}
	bw.Flush()
}

// changedBinaries is -l's check: for each listed uprobe whose binary is
// not what it was when dwprobe added the probe, a note (once per event
// and binary).
type changedBinaries struct {
	recs  map[string]fingerprint
	now   map[string]fingerprint
	seen  map[string]bool
	notes []string
}

func newChangedBinaries(fsys *tracefs.FS) *changedBinaries {
	c := &changedBinaries{now: map[string]fingerprint{}, seen: map[string]bool{}}
	if f, err := os.Open(addedPath(fsys)); err == nil {
		c.recs = readAdded(f)
		f.Close()
	}
	return c
}

// check notes e's binary if it has changed.
func (c *changedBinaries) check(e tracefs.Event) {
	k, path, ok := addedKey(e)
	if !ok || c.seen[k] {
		return
	}
	c.seen[k] = true
	was, ok := c.recs[k]
	if !ok {
		return
	}
	now, ok := c.now[path]
	if !ok {
		now, ok = fingerprintOf(path)
		if !ok {
			now = fingerprint{size: -1}
		}
		c.now[path] = now
	}
	if why := changeOf(was, now); why != "" {
		c.notes = append(c.notes, fmt.Sprintf("note: %s:%s: %s has changed since the probe was added (%s): the probe may no longer be where its line says; add it again",
			e.Group, e.Name, path, why))
	}
}

// changeOf says how a binary changed, or "" if it did not.
func changeOf(was, now fingerprint) string {
	switch {
	case now.size < 0:
		return "it is gone"
	case was.buildID != now.buildID:
		return fmt.Sprintf("build-id %s, was %s", orNone(now.buildID), orNone(was.buildID))
	case was.size != now.size:
		return fmt.Sprintf("%d bytes, was %d", now.size, was.size)
	}
	return ""
}

func orNone(id string) string {
	if id == "" {
		return "none"
	}
	return id
}

// write prints the notes.
func (c *changedBinaries) write(w io.Writer) {
	for _, n := range c.notes {
		fmt.Fprintln(w, n)
	}
}

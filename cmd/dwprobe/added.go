package main

import (
	"fmt"
	"io"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/tracefs"
)

// What dwprobe added: tracefs keeps the record of the binary under each
// uprobe as it was then (tracefs.RecordAdded, beside its lock), so that
// -l can say when it has changed since; here are its build-ids, read by
// probegen.BinaryBuildID, and -l's wording.

// recordAdded notes the binaries under the uprobes of added. A failure
// costs only -l's note, so it is not an error of the add.
func recordAdded(fsys *tracefs.FS, added []tracefs.Event) {
	_ = fsys.RecordAdded(added, probegen.BinaryBuildID)
}

// changedBinaries is -l's check: for each listed uprobe whose binary is
// not what it was when dwprobe added the probe, a note (once per event
// and binary).
type changedBinaries struct {
	cc    *tracefs.ChangeCheck
	notes []string
}

func newChangedBinaries(fsys *tracefs.FS) *changedBinaries {
	return &changedBinaries{cc: fsys.NewChangeCheck(probegen.BinaryBuildID)}
}

// check notes e's binary if it has changed.
func (c *changedBinaries) check(e tracefs.Event) {
	if ch, ok := c.cc.Check(e); ok {
		c.notes = append(c.notes, fmt.Sprintf("note: %s:%s: %s has changed since the probe was added (%s): the probe may no longer be where its line says; add it again",
			e.Group, e.Name, ch.Path, changeOf(ch)))
	}
}

// changeOf says how a binary changed.
func changeOf(ch tracefs.Change) string {
	switch {
	case ch.Gone:
		return "it is gone"
	case ch.Was.BuildID != ch.Now.BuildID:
		return fmt.Sprintf("build-id %s, was %s", orNone(ch.Now.BuildID), orNone(ch.Was.BuildID))
	}
	return fmt.Sprintf("%d bytes, was %d", ch.Now.Size, ch.Was.Size)
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

package tracefs

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// The live tests add uprobes on the host's tracefs. They skip, saying why,
// without root, uprobe_events or a C compiler, except under make test
// (DWPROBE_REQUIRE_ALL=1), where that is a failure.

// liveFS returns the host's tracefs and a group of this test's own, which
// is deleted when the test ends, whatever happened.
func liveFS(t *testing.T) (*FS, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		dwarftest.Skip(t, "live tracefs test: needs root to write uprobe_events")
	}
	fsys, err := Find()
	if err != nil {
		dwarftest.Skip(t, "live tracefs test: no tracefs: %v", err)
	}
	if _, err := fsys.List(UProbe); err != nil {
		dwarftest.Skip(t, "live tracefs test: no uprobes: %v", err)
	}
	group := fmt.Sprintf("dwprobe_test_%d", os.Getpid())
	t.Cleanup(func() {
		if _, err := fsys.Delete(UProbe, []string{group + ":*"}); err != nil && !errors.Is(err, ErrNoMatch) {
			t.Errorf("cleanup of group %s: %v", group, err)
		}
	})
	return fsys, group
}

const liveProgram = `#include <stdio.h>
__attribute__((noinline)) int work(int x) { return x * 2 + 1; }
int main(int argc, char **argv) { printf("%d\n", work(argc)); return 0; }
`

// buildTarget compiles liveProgram and returns its path and the file
// offset of work, where a uprobe goes.
func buildTarget(t *testing.T) (string, uint64) {
	t.Helper()
	bin := dwarftest.Compile(t, "gcc", "app.c", liveProgram, "-O0")
	off, err := fileOffset(bin, "work")
	if err != nil {
		t.Fatal(err)
	}
	return bin, off
}

// fileOffset maps symbol sym of the ELF file at path to its offset in the
// file through the PT_LOAD segment that holds it.
func fileOffset(path, sym string) (uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name != sym || elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Vaddr <= s.Value && s.Value < p.Vaddr+p.Filesz {
				return s.Value - p.Vaddr + p.Off, nil
			}
		}
		return 0, fmt.Errorf("%s: %s at %#x is in no PT_LOAD segment", path, sym, s.Value)
	}
	return 0, fmt.Errorf("%s: no function %s", path, sym)
}

func listed(t *testing.T, fsys *FS, group string) []string {
	t.Helper()
	evs, err := fsys.List(UProbe)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evs {
		if e.Group == group {
			names = append(names, e.PerfName())
		}
	}
	return names
}

func TestLiveUprobe(t *testing.T) {
	fsys, group := liveFS(t)
	bin, off := buildTarget(t)
	def := fmt.Sprintf("p:%s/fn %s:0x%x c=$comm", group, bin, off)
	evs, err := fsys.Add(parsed(t, UProbe, def))
	if err != nil {
		t.Fatal(err)
	}
	// The kernel prints the offset in full and keeps the argument as given.
	want := Event{Kind: UProbe, Type: 'p', Group: group, Name: "fn",
		Target: fmt.Sprintf("%s:0x%016x", bin, off), Args: []Arg{{Name: "c", Fetch: "$comm", Type: ""}}}
	want.Raw = fmt.Sprintf("p:%s/fn %s c=$comm", group, want.Target)
	if len(evs) != 1 || evs[0].Raw != want.Raw || evs[0].Target != want.Target || evs[0].Args[0].String() != want.Args[0].String() {
		t.Errorf("Add returned %+v\nwant %+v", evs, want)
	}
	if got := listed(t, fsys, group); len(got) != 1 || got[0] != group+":fn" {
		t.Errorf("listed %q", got)
	}
	if ok, err := fsys.exists(UProbe, group, "fn"); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	if _, err := fsys.Add(parsed(t, UProbe, def)); !errors.Is(err, ErrEventExists) {
		t.Errorf("adding it again: %v, want ErrEventExists", err)
	}

	if err := fsys.Enable(group, "fn", true); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	switch hits, ok := profileHits(t, fsys, bin, "fn"); {
	case !ok:
		t.Logf("uprobe_profile has no count for %s/fn", group)
	case hits < 1:
		t.Errorf("uprobe_profile: %d hits after running %s", hits, bin)
	default:
		t.Logf("uprobe_profile: %d hits", hits)
	}

	// Left enabled: Delete has to disable it first.
	deleted, err := fsys.Delete(UProbe, []string{group + ":f?"})
	if err != nil || len(deleted) != 1 || deleted[0] != group+":fn" {
		t.Fatalf("Delete = %q, %v", deleted, err)
	}
	if got := listed(t, fsys, group); got != nil {
		t.Errorf("still listed after Delete: %q", got)
	}
	if _, err := os.Stat(filepath.Join(fsys.Root(), "events", group, "fn")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("events/%s/fn after Delete: %v", group, err)
	}
	if _, err := fsys.Delete(UProbe, []string{group + ":*"}); !errors.Is(err, ErrNoMatch) {
		t.Errorf("second Delete: %v, want ErrNoMatch", err)
	}
}

// profileHits reads the hit count of a probe on path named event from
// uprobe_profile ("  PATH EVENT HITS", without the group); ok is false if
// the file has no such line.
func profileHits(t *testing.T, fsys *FS, path, event string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(fsys.Root(), "uprobe_profile"))
	if err != nil {
		t.Logf("no uprobe_profile: %v", err)
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == path && f[1] == event {
			n, err := strconv.Atoi(f[2])
			return n, err == nil
		}
	}
	return 0, false
}

func TestLiveRollback(t *testing.T) {
	fsys, group := liveFS(t)
	bin, off := buildTarget(t)
	target := fmt.Sprintf("%s:0x%x", bin, off)
	defs := []string{
		fmt.Sprintf("p:%s/a %s", group, target),
		fmt.Sprintf("r:%s/b %s c=$comm", group, target),
		fmt.Sprintf("p:%s/c  %s  x=%%nosuchreg", group, target),
	}
	_, err := fsys.Add(parsed(t, UProbe, defs...))
	var werr *WriteError
	if !errors.As(err, &werr) {
		t.Fatalf("Add = %v, want a *WriteError", err)
	}
	t.Logf("kernel said: %v", err)
	if werr.Index != 2 || werr.Errno != syscall.EINVAL || werr.Rollback != nil {
		t.Errorf("WriteError %+v", werr)
	}
	if werr.Log == nil {
		t.Fatal("no error_log entry found")
	}
	if werr.Log.Location != "trace_uprobe" || werr.Log.Reason != "Invalid register name" {
		t.Errorf("error_log entry %+v", werr.Log)
	}
	if werr.Log.Command != strings.Join(strings.Fields(defs[2]), " ") {
		t.Errorf("error_log command %q", werr.Log.Command)
	}
	if want := strings.Index(defs[2], "%nosuchreg"); werr.Pos != want {
		t.Errorf("Pos %d, want %d (%%nosuchreg)", werr.Pos, want)
	}
	if got := listed(t, fsys, group); got != nil {
		t.Errorf("left behind after rollback: %q", got)
	}
	if _, err := os.Stat(filepath.Join(fsys.Root(), "events", group)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("events/%s after rollback: %v", group, err)
	}
}

package tracefs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeTree lays out a directory like tracefs: README, kprobe_events,
// uprobe_events, error_log, plus files (paths relative to the root).
func fakeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	all := map[string]string{
		"README":        "tracing mini-HOWTO:\n",
		"kprobe_events": "",
		"uprobe_events": "",
		"error_log":     "",
	}
	for name, text := range files {
		all[name] = text
	}
	for name, text := range all {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// call is one FS.writeFile.
type call struct {
	file string // relative to the root
	flag int
	data string
}

// fakeKernel plays the kernel's part for FS.writeFile on a fake tree.
//
// With model false it only appends (or replaces) for real through
// sysWrite, so the file shows every byte that was written. With model true
// it behaves like tracefs: a definition also creates events/GROUP/EVENT,
// and "-:GROUP/EVENT" removes the event's lines and directory (refused
// with EBUSY while it is enabled).
type fakeKernel struct {
	t     *testing.T
	root  string
	model bool

	// rejectNth makes the kernel refuse the nth probe definition written
	// (1-based; 0: none) with EINVAL, logging reason at the first byte of
	// rejectAt in error_log.
	rejectNth int
	rejectAt  string
	reason    string

	mu     sync.Mutex
	calls  []call
	defs   int
	lastID int // of the events it made, each getting 2000+lastID
}

func newFake(t *testing.T, root string, model bool) (*FS, *fakeKernel) {
	t.Helper()
	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	k := &fakeKernel{t: t, root: root, model: model}
	fsys.writeFile = k.write
	return fsys, k
}

func (k *fakeKernel) write(path string, flag int, data []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	rel, err := filepath.Rel(k.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		k.t.Errorf("write outside the tree: %s", path)
		return syscall.EACCES
	}
	k.calls = append(k.calls, call{rel, flag, string(data)})
	line := strings.TrimSuffix(string(data), "\n")
	if !strings.HasSuffix(rel, "_events") {
		return sysWrite(path, flag, data)
	}
	if strings.HasPrefix(line, "-:") {
		if !k.model {
			return sysWrite(path, flag, data)
		}
		return k.delete(path, strings.TrimPrefix(line, "-:"))
	}
	k.defs++
	if k.defs == k.rejectNth {
		pos := strings.Index(line, k.rejectAt)
		entry := fmt.Sprintf("[ %5d.%06d] trace_uprobe: error: %s\n%s%s\n%s^\n",
			12, k.defs, k.reason, cmdPrefix, line, strings.Repeat(" ", len(cmdPrefix)+pos))
		if err := sysWrite(filepath.Join(k.root, "error_log"), appendFlag, []byte(entry)); err != nil {
			k.t.Error(err)
		}
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EINVAL}
	}
	if err := sysWrite(path, flag, data); err != nil {
		return err
	}
	if k.model {
		ev, ok := parseLine(UProbe, line)
		if !ok {
			k.t.Errorf("fake kernel can't parse %q", line)
			return syscall.EINVAL
		}
		dir := filepath.Join(k.root, "events", ev.Group, ev.Name)
		if _, err := os.Stat(dir); err == nil {
			return nil // a probe appended to the event
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		k.lastID++
		if err := os.WriteFile(filepath.Join(dir, "id"), []byte(fmt.Sprintf("%d\n", 2000+k.lastID)), 0o444); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "enable"), []byte("0\n"), 0o644)
	}
	return nil
}

// delete is the modelled kernel's "-:GROUP/EVENT", and "-:GROUP/EVENT
// TARGET ARGS", which deletes the one probe listed so.
func (k *fakeKernel) delete(path, id string) error {
	id, probe, one := strings.Cut(id, " ")
	dir := filepath.Join(k.root, "events", id)
	if b, err := os.ReadFile(filepath.Join(dir, "enable")); err == nil && b[0] == '1' {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EBUSY}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var kept []string
	found, stays := false, false
	for _, l := range strings.SplitAfter(string(b), "\n") {
		ev, ok := parseLine(UProbe, strings.TrimSuffix(l, "\n"))
		if ok && ev.Group+"/"+ev.Name == id && (!one || strings.Join(strings.Fields(ev.Raw)[1:], " ") == probe) {
			found = true
			continue
		}
		if ok && ev.Group+"/"+ev.Name == id {
			stays = true
		}
		kept = append(kept, l)
	}
	if !found {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOENT}
	}
	if stays {
		return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
}

func (k *fakeKernel) takeCalls() []call {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.calls
	k.calls = nil
	return c
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parsed reads definitions for Add without validating them, so that Add's
// own checks are what refuses a bad one; what does not even split into
// fields becomes an event named after it.
func parsed(t *testing.T, kind Kind, defs ...string) []Event {
	t.Helper()
	var evs []Event
	for _, d := range defs {
		ev, err := parseDef(kind, d)
		if err != nil {
			ev = Event{Kind: kind, Type: 'p', Group: "dw", Name: d, Target: "/bin/x:0x10", Raw: d}
		}
		evs = append(evs, ev)
	}
	return evs
}

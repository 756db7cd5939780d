// Package tracefstest plays the kernel's part of tracefs on a plain
// directory, for tests of code that adds, lists and deletes probes through
// package tracefs without root or a kernel.
package tracefstest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// README is the part of the kernel's tracefs README that callers look at:
// "Create/append" makes tracefs.FS.MultiProbe true.
const README = `tracing mini-HOWTO:
  kprobe_events		- Create/append/remove/show the kernel dynamic events
  uprobe_events		- Create/append/remove/show the userspace dynamic events
`

// README612 is README with the lines by which Linux 6.12 says it has
// fprobe and tracepoint probe events, BTF arguments and $argN on return
// probes (kernel/trace/trace.c readme_msg): write it to Root's README to
// play a 6.12 kernel.
const README612 = README + `	   Format: p[:[<group>/][<event>]] <place> [<args>]
	           r[maxactive][:[<group>/][<event>]] <place> [<args>]
	           f[:[<group>/][<event>]] <func-name>[%return] [<args>]
	           t[:[<group>/][<event>]] <tracepoint> [<args>]
	 fetcharg: (%<register>|$<efield>), @<address>, @<symbol>[+|-<offset>],
	           $stack<index>, $stack, $retval, $comm, $arg<N>,
	           <argname>[->field[->field|.field...]],
	           +|-[u]<offset>(<fetcharg>), \imm-value, \"imm-string"
	     kernel return probes support: $retval, $arg<N>, $comm
	     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
	           b<bit-width>@<bit-offset>/<container-size>, ustring,
	           symstr, %pd/%pD, <type>\[<array-size>\]
`

// Kernel models what Linux 6.1 does with writes to kprobe_events,
// uprobe_events and events/GROUP/EVENT/enable, and 6.12 with f: and t:
// lines of dynamic_events (listed there, arguments named as BTF names
// are, "count=count"):
//
//   - "p:GROUP/EVENT TARGET ARGS" adds a line as the kernel lists it
//     (kprobe "SYM+0" as "SYM", uprobe offsets as 0x%016x, unnamed
//     arguments as argN=) and creates events/GROUP/EVENT/enable; a second
//     probe of an event of the same file is appended to it, a name taken
//     by another event is EEXIST; a new event gets an id file, counting
//     from FirstEventID;
//   - a t: event on a tracepoint another t: event probes is EEXIST with
//     no error_log entry, as 6.12 does;
//   - "-:GROUP/EVENT" deletes every probe of the event and its directory,
//     ENOENT if there is none, EBUSY while it is enabled;
//   - a definition that Reject refuses is EINVAL with an error_log entry.
type Kernel struct {
	Root string

	// Reject, if set, sees every probe definition as the kernel splits it
	// (fields joined by one space). A non-empty reason makes the kernel
	// refuse it, logging reason with the caret at byte pos of cmd.
	Reject func(kind tracefs.Kind, cmd string) (reason string, pos int)

	// MaxEvents, if set, is how many events the model makes before it
	// refuses a new one with ENODEV, as a kernel whose table of event
	// types is full does (register_trace_event finds no free type).
	MaxEvents int

	// SharedTracepoints plays a kernel from 6.15 on, which takes several
	// t: events on one tracepoint.
	SharedTracepoints bool

	// Comments plays Linux 7.3, which may follow a probe's line in its
	// listing with '#' lines (a dump of its fetch program): each probe
	// added is listed with CommentLines after it, and deleted with them.
	Comments bool

	mu     sync.Mutex
	writes []string
	clock  int
	lastID int
}

// FirstEventID is the id (events/GROUP/EVENT/id) of the first event the
// model makes; each new event gets the next.
const FirstEventID = 2001

// WithoutKprobes removes kprobe_events, as on a kernel built without
// CONFIG_KPROBE_EVENTS.
func (k *Kernel) WithoutKprobes(t testing.TB) {
	t.Helper()
	if err := os.Remove(filepath.Join(k.Root, "kprobe_events")); err != nil {
		t.Fatal(err)
	}
}

// New lays out a tracefs in a temporary directory (README, kprobe_events,
// uprobe_events, error_log, events/) and returns it opened with k playing
// the kernel.
func New(t testing.TB) (*tracefs.FS, *Kernel) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"README": README, "kprobe_events": "", "uprobe_events": "", "dynamic_events": "", "error_log": ""}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "events"), 0o755); err != nil {
		t.Fatal(err)
	}
	k := &Kernel{Root: root}
	fsys, err := tracefs.OpenWith(root, k.Write)
	if err != nil {
		t.Fatal(err)
	}
	return fsys, k
}

// Writes returns what was written so far, one entry per write(2), as
// "FILE: DATA" with FILE relative to Root and the final newline dropped,
// and forgets it.
func (k *Kernel) Writes() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.writes
	k.writes = nil
	return w
}

// File returns the contents of the file name under Root, "" if missing.
func (k *Kernel) File(name string) string {
	b, _ := os.ReadFile(filepath.Join(k.Root, name))
	return string(b)
}

// Write is the tracefs.WriteFunc of the model.
func (k *Kernel) Write(path string, flag int, data []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	rel, err := filepath.Rel(k.Root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
	}
	k.writes = append(k.writes, rel+": "+strings.TrimSuffix(string(data), "\n"))
	var kind tracefs.Kind
	switch rel {
	case "kprobe_events":
		kind = tracefs.KProbe
	case "uprobe_events":
		kind = tracefs.UProbe
	case "dynamic_events":
		kind = tracefs.FProbe
		if strings.HasPrefix(string(data), "t") {
			kind = tracefs.TProbe
		}
	default:
		if _, err := os.Stat(path); err != nil {
			return &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
		}
		return os.WriteFile(path, data, 0o644)
	}
	cmd := strings.Join(strings.Fields(strings.TrimSuffix(string(data), "\n")), " ")
	if id, ok := strings.CutPrefix(cmd, "-:"); ok {
		return k.delete(path, id)
	}
	return k.add(kind, path, cmd)
}

func (k *Kernel) add(kind tracefs.Kind, path, cmd string) error {
	fail := func(reason string, pos int, errno syscall.Errno) error {
		k.clock++
		loc := "trace_" + kind.String()
		entry := fmt.Sprintf("[%5d.%06d] %s: error: %s\n  Command: %s\n%s^\n",
			k.clock, 0, loc, reason, cmd, strings.Repeat(" ", len("  Command: ")+pos))
		f, err := os.OpenFile(filepath.Join(k.Root, "error_log"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(entry)
			f.Close()
		}
		return &fs.PathError{Op: "write", Path: path, Err: errno}
	}
	if k.Reject != nil {
		if reason, pos := k.Reject(kind, cmd); reason != "" {
			return fail(reason, pos, syscall.EINVAL)
		}
	}
	line, group, event, ok := listed(kind, cmd)
	if !ok {
		return fail("Invalid command", 0, syscall.EINVAL)
	}
	dir := filepath.Join(k.Root, "events", group, event)
	if _, err := os.Stat(dir); err == nil && !k.has(path, group, event) {
		return fail("Event already exists", len(cmd)+1, syscall.EEXIST)
	}
	if kind == tracefs.TProbe && !k.SharedTracepoints && k.tracepointTaken(path, group+"/"+event, strings.Fields(cmd)[1]) {
		// 6.12: the tracepoint's stub is registered again with the same
		// data; func_add's EEXIST is not logged.
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EEXIST}
	}
	if _, err := os.Stat(dir); err != nil && k.MaxEvents > 0 && k.lastID >= k.MaxEvents {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.ENODEV}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if k.Comments {
		line += "\n" + CommentLines(cmd)
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	enable := filepath.Join(dir, "enable")
	if _, err := os.Stat(enable); err == nil {
		return nil
	}
	k.lastID++
	if err := os.WriteFile(filepath.Join(dir, "id"), []byte(strconv.Itoa(FirstEventID+k.lastID-1)+"\n"), 0o444); err != nil {
		return err
	}
	return os.WriteFile(enable, []byte("0\n"), 0o644)
}

// has reports whether the events file at path lists GROUP/EVENT.
func (k *Kernel) has(path, group, event string) bool {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		if id, ok := lineID(l); ok && id == group+"/"+event {
			return true
		}
	}
	return false
}

// tracepointTaken reports whether another event than id of the events
// file at path is a t: probe on tracepoint tp.
func (k *Kernel) tracepointTaken(path, id, tp string) bool {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if lid, ok := lineID(l); ok && l[0] == 't' && len(f) > 1 && f[1] == tp && lid != id {
			return true
		}
	}
	return false
}

// lineID returns the GROUP/EVENT of a listing line; false for a
// comment.
func lineID(l string) (string, bool) {
	if tracefs.ListingComment(l) {
		return "", false
	}
	head, _, _ := strings.Cut(l, " ")
	_, id, ok := strings.Cut(head, ":")
	return id, ok && l != ""
}

// CommentLines are the '#' lines a Kernel with Comments lists after the
// probe cmd: one per argument, naming its fetcharg, in the manner of 7.3's
// dump of a probe's fetch program.
func CommentLines(cmd string) string {
	f := strings.Fields(cmd)
	out := []string{"# fetch program of " + strings.Join(f[:min(2, len(f))], " ")}
	for i, a := range f[min(2, len(f)):] {
		out = append(out, fmt.Sprintf("#  arg%d: %s", i+1, a))
	}
	return strings.Join(out, "\n")
}

// listed renders cmd as the kernel lists it.
func listed(kind tracefs.Kind, cmd string) (line, group, event string, ok bool) {
	f := strings.Fields(cmd)
	if len(f) < 2 {
		return "", "", "", false
	}
	head, id, ok := strings.Cut(f[0], ":")
	letters := map[tracefs.Kind]string{tracefs.FProbe: "f", tracefs.TProbe: "t"}[kind]
	if letters == "" {
		letters = "pr"
	}
	if !ok || !strings.ContainsRune(letters, rune(head[0])) {
		return "", "", "", false
	}
	if group, event, ok = strings.Cut(id, "/"); !ok {
		return "", "", "", false
	}
	target := f[1]
	switch kind {
	case tracefs.UProbe:
		i := strings.LastIndexByte(target, ':')
		off, err := strconv.ParseUint(target[i+1:], 0, 64)
		if i < 0 || err != nil {
			return "", "", "", false
		}
		target = fmt.Sprintf("%s:0x%016x", target[:i], off)
	case tracefs.KProbe:
		target = strings.TrimSuffix(target, "+0")
	}
	out := []string{f[0], target}
	for i, a := range f[2:] {
		if !strings.Contains(a, "=") {
			a = argName(i, a) + "=" + a
		}
		out = append(out, a)
	}
	return strings.Join(out, " "), group, event, true
}

// argName is the kernel's name for unnamed argument i, a: a BTF argument
// is named after itself (generate_probe_arg_name), others arg<i+1>.
func argName(i int, a string) string {
	name, _, _ := strings.Cut(a, ":")
	ok := name != "" && !('0' <= name[0] && name[0] <= '9')
	for _, c := range name {
		ok = ok && (c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
	}
	if ok {
		return name
	}
	return "arg" + strconv.Itoa(i+1)
}

// delete is "-:GROUP/EVENT".
func (k *Kernel) delete(path, id string) error {
	dir := filepath.Join(k.Root, "events", id)
	if b, err := os.ReadFile(filepath.Join(dir, "enable")); err == nil && len(b) > 0 && b[0] == '1' {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EBUSY}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var kept []string
	found := false
	dropping := false // the comment lines after a deleted probe go with it
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if got, ok := lineID(strings.TrimSuffix(l, "\n")); ok && got == id {
			found, dropping = true, true
			continue
		}
		if dropping && tracefs.ListingComment(l) {
			continue
		}
		dropping = false
		kept = append(kept, l)
	}
	if !found {
		return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOENT}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	// A group goes with its last event.
	os.Remove(filepath.Dir(dir))
	return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
}

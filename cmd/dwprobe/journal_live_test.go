package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// The tests of what the next dwprobe does with the journal of a killed
// one: it removes only what that process wrote and says exactly what.

// plantJournal writes a journal of pid 4242 next to fsys's lock.
func plantJournal(t *testing.T, lock, text string) string {
	t.Helper()
	path := lock + ".journal.4242"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJournalRecoveryMessages: what -d says of journals: one naming an
// event perf made leaves it; one holding a kprobe on a kernel without
// kprobe_events removes its uprobes and says so; unsafe ones are named.
func TestJournalRecoveryMessages(t *testing.T) {
	fsys, k := fakeTracefs(t)
	if _, _, err := dw("--apply", writeTemp(t, "p:probe_true/main /bin/true:0x10\np:dw/a /bin/true:0x20\np:dw/b /bin/true:0x30\n")); err != nil {
		t.Fatal(err)
	}
	// probe_true:main is perf's, whatever a journal says; dw/a and dw/b
	// were written by the killed process, which recorded their ids.
	id := func(ev string) string {
		b, _ := os.ReadFile(filepath.Join(k.Root, "events", ev, "id"))
		return strings.TrimSpace(string(b))
	}
	path := plantJournal(t, fsys.LockPath(), "# killed\nkprobe\tp:dwk/a vfs_read\nuprobe\tp:probe_true/main /bin/true:0x10\nuprobe\tp:dw/a /bin/true:0x20\nuprobe\tp:dw/b /bin/true:0x30\n"+
		"wrote\t0\t1\nwrote\t1\t999999\nwrote\t2\t"+id("dw/a")+"\nwrote\t3\t"+id("dw/b")+"\n")
	k.WithoutKprobes(t)
	if err := os.Symlink("/etc/passwd", fsys.LockPath()+".journal.77"); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := dw("-d", "nosuch")
	if err == nil {
		t.Errorf("-d nosuch succeeded")
	}
	for _, want := range []string{
		"Found an interrupted batch: dwprobe (pid 4242) was killed while adding 4 definitions (4 recorded as written); removed what it had added: dw:b dw:a\n",
		"Ignored a batch journal: unsafe batch journal: " + fsys.LockPath() + ".journal.77 is not a regular file but a symbolic link; it was not read or removed",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("-d said:\n%s\nwant a line\n%s", errOut, want)
		}
	}
	if got := k.File("uprobe_events"); got != "p:probe_true/main /bin/true:0x0000000000000010\n" {
		t.Errorf("uprobe_events after recovery:\n%s", got)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("journal kept though every line is accounted for")
	}
}

// writeTemp writes text to a file of the test's and returns its path.
func writeTemp(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "defs")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJournalPerfEventLive: a journal planted in /run/dwprobe that names
// an event perf probe created does not make the next dwprobe delete it
// (it used to, with -d of anything).
func TestJournalPerfEventLive(t *testing.T) {
	fsys := needLive(t)
	perf, err := exec.LookPath("perf")
	if err != nil {
		dwarftest.Skip(t, "live test: no perf")
	}
	app := copyBinary(t, fixture(t, "app-gcc-O2-dwarf5"))
	g := liveGroup(t, fsys, "perf")
	if out, err := exec.Command(perf, "probe", "-q", "-x", app, "-a", g+":work=work").CombinedOutput(); err != nil {
		t.Fatalf("perf probe: %v\n%s", err, out)
	}
	ev := groupProbes(t, fsys, g)
	if len(ev) != 1 {
		t.Fatalf("perf made %d probes in %s", len(ev), g)
	}
	for _, wrote := range []string{"", "wrote\t0\t1\n", "wrote\t0\t\n"} {
		journal := "# planted\nuprobe\t" + ev[0].String() + "\n" + wrote
		script := `printf '%s' "$J" > /run/dwprobe/lock.journal.4242 || exit 99
chmod 600 /run/dwprobe/lock.journal.4242
$DWPROBE -d 'nosuch_dwtest' ; echo "rc=$?"
ls /run/dwprobe`
		out := privateRun(t, "mkdir -m 700 /run/dwprobe\n"+script, "J="+journal)
		if groupLines(t, fsys, g) != 1 {
			t.Fatalf("perf's probe deleted by a planted journal (%q):\n%s", wrote, out)
		}
		if strings.Contains(out, "lock.journal.4242") && !strings.Contains(out, "kept") {
			t.Errorf("journal left:\n%s", out)
		}
	}
}

// TestApplyEventTableFull: a kernel out of event types refuses a new
// event with ENODEV; --apply rolls the batch back and says the table is
// full, not only "(no such device)".
func TestApplyEventTableFull(t *testing.T) {
	_, k := fakeTracefs(t)
	k.MaxEvents = 2
	_, _, err := dw("--apply", writeTemp(t, "p:dw/a /bin/true:0x10\np:dw/b /bin/true:0x20\np:dw/c /bin/true:0x30\n"))
	if err == nil || exitCode(err) != exitKernel || !strings.Contains(err.Error(), "(no such device: the kernel's table of trace event ids is full") {
		t.Errorf("--apply past the event table: %v (exit %d)", err, exitCode(err))
	}
	if got := k.File("uprobe_events"); got != "" {
		t.Errorf("left after the refusal:\n%s", got)
	}
}

// TestJournalNoKprobesLive: on this kernel without kprobe_events, the
// journal of a killed dwprobe holding a kprobe line and uprobe lines has
// its uprobes removed and says so; it used to leave them, delete the
// journal and say "none of them was left".
func TestJournalNoKprobesLive(t *testing.T) {
	fsys := needLive(t)
	if _, err := os.Stat(filepath.Join(fsys.Root(), "kprobe_events")); err == nil {
		dwarftest.Skip(t, "live test: this kernel has kprobe_events")
	}
	g := liveGroup(t, fsys, "jk")
	target := workTarget(t, copyBinary(t, fixture(t, "app-gcc-O2-dwarf5")))
	defs := "p:" + g + "/a " + target + "\np:" + g + "/b " + target + "\n"
	if _, _, err := dw("-q", "--apply", writeTemp(t, defs)); err != nil {
		t.Fatal(err)
	}
	id := func(ev string) string {
		b, err := os.ReadFile(filepath.Join(fsys.Root(), "events", g, ev, "id"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	journal := "# killed\nkprobe\tp:" + g + "k/a vfs_read\nuprobe\tp:" + g + "/a " + target + "\nuprobe\tp:" + g + "/b " + target + "\n" +
		"writing\t0\t\nwrote\t0\t1\nwriting\t1\t\nwrote\t1\t" + id("a") + "\nwriting\t2\t\nwrote\t2\t" + id("b") + "\n"
	script := `printf '%s' "$J" > /run/dwprobe/lock.journal.4242 && chmod 600 /run/dwprobe/lock.journal.4242 || exit 99
$DWPROBE -d 'nosuch_dwtest'
ls /run/dwprobe`
	out := privateRun(t, "mkdir -m 700 /run/dwprobe\n"+script, "J="+journal)
	want := "killed while adding 3 definitions (3 recorded as written); removed what it had added: " + g + ":b " + g + ":a\n"
	if n := groupLines(t, fsys, g); n != 0 || !strings.Contains(out, want) || strings.Contains(out, "lock.journal") {
		t.Errorf("%d probes left after recovery:\n%s\nwant a line with\n%s", n, out, want)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

const systemLibc = "/lib/x86_64-linux-gnu/libc.so.6"

// needLibcDebug skips (fails under make test) unless glibc's separate
// debuginfo (Debian's libc6-dbg, by build-id) is installed.
func needLibcDebug(t *testing.T) {
	t.Helper()
	f, err := dwarfres.Open(systemLibc)
	if err != nil {
		dwarftest.Skip(t, "no %s: %v", systemLibc, err)
		return
	}
	id := f.BuildID()
	f.Close()
	p := filepath.Join(locate.DefaultDebugDir, ".build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(p); err != nil {
		dwarftest.Skip(t, "glibc's debuginfo is not installed (make deps installs libc6-dbg): %v", err)
	}
}

// TestLibcAliases: glibc's malloc is an alias of __libc_malloc (perf 6.1
// fails on it: "Failed to add events"); dwprobe resolves it through its
// separate debuginfo by build-id, at the same place with the same
// arguments as the DWARF name.
func TestLibcAliases(t *testing.T) {
	needLibcDebug(t)
	for _, c := range [][2]string{
		{"malloc bytes", "__libc_malloc bytes"},
		{"open file:string oflag", "__libc_open64 file:string oflag"},
	} {
		got, _, err := dw("-x", systemLibc, "-D", c[0])
		if err != nil {
			t.Errorf("-D %q: %v", c[0], err)
			continue
		}
		want, _, err := dw("-x", systemLibc, "-D", c[1])
		if err != nil {
			t.Fatalf("-D %q: %v", c[1], err)
		}
		alias := strings.Fields(c[0])[0]
		real := strings.Fields(c[1])[0]
		if got != strings.Replace(want, "/"+real+" ", "/"+alias+" ", 1) || !strings.Contains(got, " bytes=%di") && alias == "malloc" {
			t.Errorf("-D %q = %q; want %q under the alias's name", c[0], got, want)
		}
	}
}

// libcUser calls malloc and open with values it prints.
const libcUser = `#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
void *volatile sink; /* keeps gcc from dropping a malloc/free pair */
int main(void) {
	static const size_t sizes[] = {12345, 23456, 34567};
	for (int i = 0; i < 3; i++) {
		sink = malloc(sizes[i]);
		printf("malloc %zu\n", sizes[i]);
		free(sink);
	}
	int fd = open("/nonexistent/dwprobe-libc-test", O_RDONLY);
	printf("open /nonexistent/dwprobe-libc-test %d\n", fd);
	return 0;
}
`

// TestLibcLive adds uprobes on malloc's bytes and open's path to a copy
// of glibc (its debuginfo found by build-id, the same as the system's),
// runs a program with that copy, and checks the traced values against
// what it printed.
func TestLibcLive(t *testing.T) {
	fsys := needLive(t)
	needLibcDebug(t)
	prog := dwarftest.Compile(t, "gcc", "libcuser.c", libcUser, "-O1")
	dir := filepath.Dir(prog)
	// A private copy: a uprobe on the system's libc fires in every process.
	libc := filepath.Join(dir, "libc.so.6")
	dwarftest.PlaceFile(t, systemLibc, libc)
	g := liveGroup(t, fsys, "libc")
	in := newInstance(t, fsys, g)
	if _, stderr, err := dw("-x", libc, "-a", g+":m=malloc bytes", "-a", g+":o=open path=file:string"); err != nil {
		t.Fatalf("-a: %v\n%s", err, stderr)
	}
	in.enable(t, g, true)
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var sizes []uint64
	for _, l := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(l, "malloc "); ok {
			n, _ := strconv.ParseUint(s, 10, 64)
			sizes = append(sizes, n)
		}
	}
	var traced []uint64
	opened := ""
	for _, e := range in.events(t, cmd.Process.Pid) {
		switch e.event {
		case "m":
			n, _ := strconv.ParseUint(e.args["bytes"], 0, 64)
			traced = append(traced, n)
		case "o":
			opened = e.args["path"]
		}
	}
	// stdio mallocs its buffer too: the printed sizes come in order among them.
	i := 0
	for _, n := range traced {
		if i < len(sizes) && n == sizes[i] {
			i++
		}
	}
	if len(sizes) != 3 || i != len(sizes) {
		t.Errorf("malloc traced %v; printed %v", traced, sizes)
	}
	if opened != "/nonexistent/dwprobe-libc-test" {
		t.Errorf("open traced %q; printed\n%s", opened, out)
	}
}

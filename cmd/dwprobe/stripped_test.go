package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// transferSrc has a function both inlined (into main) and kept out of
// line (its address is taken): the out-of-line copy is in the symbol
// table only a stripped program's debuginfo has.
const transferSrc = `#include <stdio.h>
#include <stdlib.h>

struct acct { long balance; int id; };

static int transfer(struct acct *from, struct acct *to, long amount)
{
	if (from->balance < amount)
		return -1;
	from->balance -= amount;
	to->balance += amount;
	return 0;
}

int (*volatile op)(struct acct *, struct acct *, long) = transfer;

int main(int argc, char **argv)
{
	struct acct a = { 100, 1 }, b = { 5, 2 };
	long n = argc > 1 ? atol(argv[1]) : 10;
	int r = transfer(&a, &b, n);
	r += op(&b, &a, n / 2);
	printf("%d %ld %ld\n", r, a.balance, b.balance);
	return 0;
}
`

// strippedQueries are every mode asked of a program stripped as
// distributions ship it: lines, offsets, %return, arguments, -L, -V, -F.
var strippedQueries = [][]string{
	{"-D", "transfer%return $retval"},
	{"-D", "transfer amount from->balance"},
	{"-D", "transfer:4"},
	{"-D", "main+6"},
	{"-D", "main"},
	{"-L", "transfer"},
	{"-V", "transfer:4"},
	{"-F"},
}

// sdtQueries are asked of the SDT fixture stripped the same way.
var sdtQueries = [][]string{{"-D", "%sdt_dwfix:tick"}, {"-D", "main"}, {"-F"}}

// stripLikeDistro strips a copy of full with strip --strip-all (no
// .symtab, a .dynsym of imports), its debuginfo kept apart by objcopy
// --only-keep-debug and linked by .gnu_debuglink; it returns the
// stripped program, its debug file and its build-id.
func stripLikeDistro(t *testing.T, full string) (bin, debug, buildID string) {
	t.Helper()
	objcopy, strip := dwarftest.NeedTool(t, "objcopy"), dwarftest.NeedTool(t, "strip")
	dir := t.TempDir()
	bin, debug = filepath.Join(dir, "app"), filepath.Join(dir, "app.debug")
	dwarftest.PlaceFile(t, full, bin)
	for _, c := range [][]string{{objcopy, "--only-keep-debug", bin, debug}, {strip, "--strip-all", bin}, {objcopy, "--add-gnu-debuglink=" + debug, bin}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	o, err := elfobj.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.HasSymtab() || o.BuildID() == "" {
		t.Fatalf("%s: stripped badly (a .symtab, or no build-id)", bin)
	}
	return bin, debug, o.BuildID()
}

// strippedWays are the places a stripped program's debuginfo is found.
var strippedWays = []struct {
	name  string
	place func(t *testing.T, bin, debug, id string) (path string, args []string)
}{
	{"debuglink beside", func(t *testing.T, bin, debug, id string) (string, []string) {
		return bin, []string{"-x", bin}
	}},
	{"build-id directory", func(t *testing.T, bin, debug, id string) (string, []string) {
		dir := t.TempDir()
		dwarftest.PlaceFile(t, debug, filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug"))
		os.Remove(debug)
		t.Setenv("DWPROBE_DEBUGINFO_PATH", dir)
		return bin, []string{"-x", bin}
	}},
	{"perf build-id cache", func(t *testing.T, bin, debug, id string) (string, []string) {
		dwarftest.PlaceFile(t, debug, filepath.Join(os.Getenv("PERF_BUILDID_DIR"), ".build-id", id[:2], id[2:], "debug"))
		os.Remove(debug)
		return bin, []string{"-x", bin}
	}},
	{"debuginfod", func(t *testing.T, bin, debug, id string) (string, []string) {
		b, err := os.ReadFile(debug)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(debug)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/buildid/"+id+"/debuginfo" {
				http.NotFound(w, r)
				return
			}
			w.Write(b)
		}))
		t.Cleanup(srv.Close)
		return bin, []string{"--debuginfod=" + srv.URL, "-x", bin}
	}},
}

// TestStrippedLikeDistro: a program stripped with strip --strip-all, its
// debuginfo found beside it by debuglink, in a build-id directory, in
// perf's cache and from debuginfod, answers every mode as the unstripped
// build does. -D 'transfer%return' used to be refused ("only inlined")
// for want of the debuginfo's symbol table.
func TestStrippedLikeDistro(t *testing.T) {
	full := dwarftest.Compile(t, "gcc", "app.c", transferSrc, "-O2", "-g")
	sdt := fixture(t, "sdt-gcc-O2")
	for _, c := range []struct {
		name    string
		full    string
		queries [][]string
	}{
		{"transfer", full, strippedQueries},
		{"sdt", sdt, sdtQueries},
	} {
		p := placed(t, c.full)
		want := queryAnswers(t, c.queries, p, "-x", p)
		for _, way := range strippedWays {
			t.Run(c.name+"/"+way.name, func(t *testing.T) {
				noLocalDebuginfo(t)
				bin, debug, id := stripLikeDistro(t, c.full)
				path, args := way.place(t, bin, debug, id)
				got := queryAnswers(t, c.queries, path, args...)
				for i, q := range c.queries {
					if got[i] != want[i] {
						t.Errorf("%v:\n%s\nunstripped:\n%s", q, got[i], want[i])
					}
				}
			})
		}
	}
}

// placed copies full to a directory of its own as "app", the name of
// the stripped copies: event names come from it.
func placed(t *testing.T, full string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "app")
	dwarftest.PlaceFile(t, full, p)
	return p
}

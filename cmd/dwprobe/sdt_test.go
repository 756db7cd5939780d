package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// sdtFixture returns an SDT fixture (sdt-gcc-O0, sdt-gcc-O2), skipping
// (failing under make test) where <sys/sdt.h> is not installed.
func sdtFixture(t *testing.T, name string) string {
	t.Helper()
	cpp := exec.Command("gcc", "-E", "-x", "c", "-")
	cpp.Stdin = strings.NewReader("#include <sys/sdt.h>\n")
	if err := cpp.Run(); err != nil {
		dwarftest.Skip(t, "no <sys/sdt.h> to build %s (apt-get install systemtap-sdt-dev): %v", name, err)
	}
	return fixture(t, name)
}

// perf61SDT is what perf 6.1 prints for the SDT fixtures built by Debian
// 12's gcc 12.2 (perf buildid-cache --add BIN; perf probe -x BIN -D
// 'sdt_dwfix:*'), BIN for the binary's path. dwprobe prints the same,
// and also the arguments perf leaves out (in brackets): the constant 42
// (-4@$42) and, at -O2, the global sdt_total (-8@sdt_total(%rip)).
var perf61SDT = map[string]string{
	"sdt-gcc-O0": `p:sdt_dwfix/tick BIN:0x118f arg1=-12(%bp):s32 arg2=-16(%bp):s32 arg3=-8(%bp):s64
p:sdt_dwfix/total BIN:0x11b7 arg1=%ax:s64[ arg2=\42:s32]
p:sdt_dwfix/guarded BIN:0x123e(0x3018) arg1=-4(%bp):s32 arg2=-16(%bp):s64
`,
	"sdt-gcc-O2": `p:sdt_dwfix/tick BIN:0x108b arg1=%r12:s32 arg2=%r15:s32 arg3=%bx:s64
p:sdt_dwfix/total BIN:0x109c[ arg1=@+0x4028:s64 arg2=\42:s32]
p:sdt_dwfix/guarded BIN:0x1200(0x3018) arg1=%bx:s32 arg2=%r12:s64
`,
}

func TestSDTDefinitionsFixture(t *testing.T) {
	for name, perf := range perf61SDT {
		t.Run(name, func(t *testing.T) {
			bin := sdtFixture(t, name)
			out, errOut, err := dw("-x", bin, "-D", "sdt_dwfix:*")
			want := strings.NewReplacer("BIN", bin, "[", "", "]", "").Replace(perf)
			if err != nil || out != want || errOut != "" {
				t.Errorf("-D sdt_dwfix:*: %v\n%s\nwant\n%s\nstderr: %s", err, out, want, errOut)
			}
			// perf's other spellings of the same markers.
			for _, spec := range []string{"%sdt_dwfix:tick", "%tick", "sdt_dw*:ti?k"} {
				out, _, err := dw("-x", bin, "-D", spec)
				if err != nil || out != strings.SplitAfter(want, "\n")[0] {
					t.Errorf("-D %s: %v\n%s", spec, err, out)
				}
			}
		})
	}
}

// TestSDTSpecFile: SDT specs in a spec file, with the others' rules.
func TestSDTSpecFile(t *testing.T) {
	bin := sdtFixture(t, "sdt-gcc-O2")
	file := t.TempDir() + "/specs"
	if err := os.WriteFile(file, []byte("# markers\n%sdt_dwfix:tick\n%sdt_dwfix:nosuch\nsdt_dwfix:guarded arg2:x64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := dw("-x", bin, "-D", "@"+file)
	want := "p:sdt_dwfix/tick " + bin + ":0x108b arg1=%r12:s32 arg2=%r15:s32 arg3=%bx:s64\n" +
		"p:sdt_dwfix/guarded " + bin + ":0x1200(0x3018) arg2=%r12:x64\n"
	if exitCode(err) != exitUnresolved || out != want || !strings.Contains(errOut, file+":3:1: no SDT marker matches %sdt_dwfix:nosuch") {
		t.Errorf("-D @file: exit %d, %v\n%s\nwant\n%s\nstderr: %s", exitCode(err), err, out, want, errOut)
	}
}

// TestSDTStripped: markers need no debuginfo; other specs still say why
// they do.
func TestSDTStripped(t *testing.T) {
	bin := sdtFixture(t, "sdt-gcc-O2")
	stripped := t.TempDir() + "/sdt"
	if out, err := exec.Command("strip", "--strip-all", "-o", stripped, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	out, _, err := dw("-x", stripped, "-D", "%sdt_dwfix:guarded")
	if want := "p:sdt_dwfix/guarded " + stripped + ":0x1200(0x3018) arg1=%bx:s32 arg2=%r12:s64\n"; err != nil || out != want {
		t.Errorf("stripped: %v\n%s\nwant\n%s", err, out, want)
	}
	// With a spec that needs debuginfo: that one fails, as without SDT.
	_, errOut, err := dw("-x", stripped, "-D", "%sdt_dwfix:guarded", "-D", "main")
	if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), "no DWARF debuginfo") {
		t.Errorf("stripped, -D main: exit %d, %v %s", exitCode(err), err, errOut)
	}
}

func TestSDTListing(t *testing.T) {
	bin := sdtFixture(t, "sdt-gcc-O2")
	out, _, err := dw("-x", bin, "--sdt")
	if want := "sdt_dwfix:guarded\nsdt_dwfix:tick\nsdt_dwfix:total\n"; err != nil || out != want {
		t.Errorf("--sdt: %v\n%s\nwant\n%s", err, out, want)
	}
	out, _, err = dw("-x", bin, "--sdt", "--filter", "*:t* & !*total")
	if err != nil || out != "sdt_dwfix:tick\n" {
		t.Errorf("--sdt --filter: %v\n%s", err, out)
	}
	out, _, err = dw("-x", bin, "--sdt", "--json", "--filter", "*guarded")
	var js jsonSDT
	if err != nil || json.Unmarshal([]byte(out), &js) != nil {
		t.Fatalf("--sdt --json: %v\n%s", err, out)
	}
	want := jsonMarker{Name: "sdt_dwfix:guarded", Provider: "dwfix", Marker: "guarded", Address: 0x1200, Offset: 0x1200, Semaphore: 0x3018, Args: "-4@%ebx -8@%r12"}
	if js.Mode != "sdt" || js.Binary != bin || len(js.Markers) != 1 || js.Markers[0] != want {
		t.Errorf("--sdt --json: %s", out)
	}
	// -D --json says where each marker lies.
	out, _, err = dw("-x", bin, "-D", "%sdt_dwfix:tick", "--json")
	if err != nil || !strings.Contains(out, `"definition":"p:sdt_dwfix/tick `) || !strings.Contains(out, `"symbol":"main"`) {
		t.Errorf("-D --json: %v\n%s", err, out)
	}
}

// TestSDTErrors: one line each, with its exit status.
func TestSDTErrors(t *testing.T) {
	bin := sdtFixture(t, "sdt-gcc-O2")
	app := fixture(t, "app-gcc-O2-dwarf5")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-x", bin, "-D", "%sdt_dwfix:nosuch"}, exitUnresolved,
			"dwprobe: no SDT marker matches %sdt_dwfix:nosuch in " + bin + "; its markers: sdt_dwfix:tick sdt_dwfix:total sdt_dwfix:guarded\n"},
		{[]string{"-x", app, "-D", "sdt_dwfix:tick"}, exitUnresolved, "dwprobe: " + app + ": no SDT markers (no .note.stapsdt notes)\n"},
		{[]string{"-x", app, "--sdt"}, exitUnresolved, "dwprobe: " + app + ": no SDT markers (no .note.stapsdt notes)\n"},
		{[]string{"-x", bin, "-D", "%sdt_dwfix:tick i"}, exitUnresolved, "i: an SDT marker's arguments are its note's: [NAME=]argN[:TYPE]"},
		{[]string{"-x", bin, "-D", "%sdt_dwfix:tick@" + bin}, exitUnresolved, "not from @TARGET"},
		{[]string{"-x", bin, "-V", "%sdt_dwfix:tick"}, exitUnresolved, "an SDT marker has no variables"},
		{[]string{"-k", "/nonexistent", "-D", "%sdt_dwfix:tick"}, exitUnresolved, "SDT markers are read from a user binary: give it with -x"},
		{[]string{"--sdt"}, exitUsage, "--sdt lists the SDT markers of a user binary: give it with -x"},
	} {
		_, errOut, err := dw(c.args...)
		if code := exitCode(err); code != c.code || !strings.Contains(errOut+errString(err), c.msg) {
			t.Errorf("%q: exit %d, %v, stderr %q; want exit %d with %q", c.args, code, err, errOut, c.code, c.msg)
		}
	}
}

// errString is what main prints for err.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return "dwprobe: " + err.Error() + "\n"
}

// TestSDTOperandLeftOut: an operand no fetch argument can say is left out
// of the definition, as perf leaves it, with a note naming it.
func TestSDTOperandLeftOut(t *testing.T) {
	// A scaled-index memory operand: -8@(%rax,%rdi,8) from gcc 12 -O2.
	code := `#include <sys/sdt.h>
long tab[4] = {1, 2, 3, 4};
int main(int argc, char **argv) { (void)argv; STAP_PROBE1(dwfix, scaled, tab[argc]); return 0; }
`
	sdtFixture(t, "sdt-gcc-O2") // skips without <sys/sdt.h>
	bin := dwarftest.Compile(t, "gcc", "scaled.c", code, "-O2")
	out, errOut, err := dw("-x", bin, "-D", "%sdt_dwfix:scaled")
	if err != nil || !strings.HasPrefix(out, "p:sdt_dwfix/scaled "+bin+":0x") || strings.Contains(out, "arg1") {
		t.Errorf("-D: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "note: sdt_dwfix:scaled: arg1 \"") || !strings.Contains(errOut, "scaled index addressing has no fetch argument form: left out of the definition") {
		t.Errorf("stderr: %q", errOut)
	}
	// Asked for by name, the operand is an error.
	_, _, err = dw("-x", bin, "-D", "%sdt_dwfix:scaled v=arg1")
	if exitCode(err) != exitUnresolved || !strings.Contains(errString(err), "dwprobe: sdt_dwfix:scaled: arg1 \"") ||
		!strings.HasSuffix(errString(err), "\": scaled index addressing has no fetch argument form\n") {
		t.Errorf("picked: exit %d, %v", exitCode(err), err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// userCase is one line of testdata/conformance/user/MACHINE.txt.
type userCase struct {
	opts         []string // O0, O2
	kind, spec   string   // D, V, L, F and the spec
	verdict, why string
	line         int
}

// readUserCases reads a machine's judged list.
func readUserCases(t *testing.T, machine string) []userCase {
	t.Helper()
	f, err := os.Open(filepath.Join("../../testdata/conformance/user", machine+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []userCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fs := strings.Split(l, "\t")
		if len(fs) < 4 {
			t.Fatalf("%s.txt:%d: %q: want OPT, KIND, SPEC, VERDICT", machine, n, l)
		}
		c := userCase{opts: []string{fs[0]}, kind: fs[1], spec: fs[2], verdict: fs[3], line: n}
		if fs[0] == "*" {
			c.opts = []string{"O0", "O2"}
		}
		if len(fs) > 4 {
			c.why = fs[4]
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// userCaseArgs are the options of a case's kind for perf and dwprobe.
func userCaseArgs(kind, spec string) []string {
	switch kind {
	case "V":
		return []string{"-V", spec}
	case "L":
		return []string{"-L", spec}
	case "F":
		return []string{"--funcs=" + spec}
	}
	return []string{"-D", spec}
}

// TestUserMachinesAgainstPerf runs perf 7.3 and dwprobe on the app
// fixtures of ppc64el, s390x and riscv64 at -O0 and -O2 (-D, -V, -L,
// -F) and checks each answer against its judged verdict in
// testdata/conformance/user (issue 36).
func TestUserMachinesAgainstPerf(t *testing.T) {
	perf := dwarftest.NeedCorpus(t, "perf-7.3/perf")
	bid := t.TempDir()
	for _, machine := range []string{"ppc64el", "s390x", "riscv64"} {
		t.Run(machine, func(t *testing.T) {
			cases := readUserCases(t, machine)
			bins := map[string]string{}
			for _, opt := range []string{"O0", "O2"} {
				bins[opt] = dwarftest.CrossFixture(t, "../..", machine, opt)
			}
			same, judged := 0, 0
			for _, c := range cases {
				for _, opt := range c.opts {
					bin := bins[opt]
					cmd := exec.Command(perf, append([]string{"--buildid-dir", bid, "probe", "-x", bin}, userCaseArgs(c.kind, c.spec)...)...)
					cmd.Dir, cmd.Env = "/", append(os.Environ(), "LC_ALL=C")
					want, perr := cmd.Output()
					var ee *exec.ExitError
					if perr != nil && !errors.As(perr, &ee) {
						t.Fatalf("perf: %v", perr)
					}
					var out, errb bytes.Buffer
					err := run(context.Background(), append([]string{"-x", bin}, userCaseArgs(c.kind, c.spec)...), &out, &errb)
					verdict := c.verdict
					if msg := judgeUserCase(verdict, bin, string(want), perr == nil, out.String(), err == nil); msg != "" {
						t.Errorf("%s.txt:%d %s %s %q (%s): %s\nperf (%v):\n%sdwprobe (%v):\n%s%s",
							machine, c.line, opt, c.kind, c.spec, c.verdict, msg, perr, want, err, out.String(), errb.String())
					}
					if verdict == "same" {
						same++
					} else {
						judged++
					}
				}
			}
			t.Logf("%s: %d cases, %d the same as perf 7.3, %d judged", machine, same+judged, same, judged)
		})
	}
}

// uprobeOffRE matches a uprobe's PATH:0xOFFSET.
var uprobeOffRE = regexp.MustCompile(`:0x([0-9a-f]+)\b`)

// judgeUserCase says how perf's answer (want, wok: it succeeded) and
// dwprobe's (got, gok) break verdict, "" when they keep it.
func judgeUserCase(verdict, bin, want string, wok bool, got string, gok bool) string {
	switch verdict {
	case "same":
		if wok != gok || want != got {
			return "answers differ"
		}
	case "perf-fails":
		if wok || !gok || got == "" {
			return "want perf to refuse and dwprobe to answer"
		}
	case "dwprobe-refuses":
		if !wok || gok {
			return "want perf to answer and dwprobe to refuse"
		}
	case "differs":
		if !wok || !gok || want == got {
			return "want both to answer, differently (if they now agree, the entry is same)"
		}
	case "lep":
		return judgeLocalEntry(bin, want, wok, got, gok)
	default:
		return "unknown verdict"
	}
	return ""
}

// judgeLocalEntry checks a lep verdict: line for line, dwprobe's uprobe
// offset is perf's (at a function symbol) plus that symbol's ppc64le
// local entry offset, which is not 0, and the rest is the same.
func judgeLocalEntry(bin, want string, wok bool, got string, gok bool) string {
	if !wok || !gok {
		return "want both to answer"
	}
	leps, err := localEntries(bin)
	if err != nil {
		return err.Error()
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(wl) != len(gl) {
		return "answers differ in length"
	}
	for i := range wl {
		wm, gm := uprobeOffRE.FindStringSubmatch(wl[i]), uprobeOffRE.FindStringSubmatch(gl[i])
		if wm == nil || gm == nil {
			if wl[i] != gl[i] {
				return "answers differ at " + strconv.Quote(gl[i])
			}
			continue
		}
		w, _ := strconv.ParseUint(wm[1], 16, 64)
		g, _ := strconv.ParseUint(gm[1], 16, 64)
		if lep := leps[w]; lep == 0 || g != w+lep {
			return "dwprobe's " + gm[0] + " is not the local entry of perf's " + wm[0]
		}
		if uprobeOffRE.ReplaceAllString(wl[i], "") != uprobeOffRE.ReplaceAllString(gl[i], "") {
			return "answers differ past the offset at " + strconv.Quote(gl[i])
		}
	}
	return ""
}

// localEntries maps the file offset of each function symbol of bin (an
// executable) to its ppc64le local entry offset.
func localEntries(bin string) (map[uint64]uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	leps := map[uint64]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && s.Value >= p.Vaddr && s.Value < p.Vaddr+p.Filesz {
				leps[s.Value-p.Vaddr+p.Off] = arch.PPC64LE.LocalEntryOffset(s.Other)
			}
		}
	}
	return leps, nil
}

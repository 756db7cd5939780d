package main

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The live proofs of issue 15: probes added with dwprobe -a on a C++, a
// Rust and a Go program, which then runs; every traced value must equal
// what the program prints (see uprobe_live_test.go for the harness).

// runLang runs app with args and returns its pid and output, by line kind
// (the word before ':'), each line's key=value pairs.
func runLang(t *testing.T, app string, args ...string) (int, map[string][]map[string]string) {
	t.Helper()
	cmd := exec.Command(app, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v (a probe must not break the program)\n%s", app, err, stdout.String())
	}
	out := map[string][]map[string]string{}
	for _, l := range strings.Split(stdout.String(), "\n") {
		kind, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		kv := map[string]string{}
		for _, a := range traceArg.FindAllStringSubmatch(rest, -1) {
			kv[a[1]] = a[2]
		}
		out[kind] = append(out[kind], kv)
	}
	return cmd.Process.Pid, out
}

// langCase is one program of the live test: the probes to add, how to run
// it, and what each event must have traced, from the printed lines.
type langCase struct {
	kind, bin string
	args      []string
	specs     []string // EVENT=... without the group
	listed    string   // what -l must say the first probe is on
	// checks maps an event to the printed line kind whose values it
	// traced, and pairs of (traced argument, printed key).
	checks []langCheck
}

type langCheck struct {
	event, line string
	pairs       [][2]string
}

func TestLangLive(t *testing.T) {
	fsys := needLive(t)
	grow := langCheck{"grow", "grow", [][2]string{{"width", "width"}, {"by", "by"}}}
	growRet := langCheck{"growret__return", "grow", [][2]string{{"arg1", "ret"}}}
	cases := []langCase{}
	for _, b := range []string{"cxx-gcc-O0", "cxx-gcc-O2", "cxx-clang-O2"} {
		cases = append(cases, langCase{kind: "cxx", bin: b, listed: "(on geo::Box::grow", specs: []string{
			"grow=geo::Box::grow this->width by",
			"growret=geo::Box::grow%return $retval:s64",
			`add="add<long>" a b`,
		}, checks: []langCheck{grow, growRet, {"add", "addl", [][2]string{{"a", "a"}, {"b", "b"}}}}})
	}
	for _, b := range []string{"rs-O0", "rs-O2", "rs-v0"} {
		cases = append(cases, langCase{kind: "rust", bin: b, args: []string{"4"}, listed: "(on r::work", specs: []string{
			"work=work n",
			"workret=r::work%return $retval:u64",
			"scale=r::inner::scale x k",
			"bump=r::Counter::bump self->n by",
		}, checks: []langCheck{
			{"bump", "bump", [][2]string{{"n", "n"}, {"by", "by"}}},
			{"work", "work", [][2]string{{"n", "n"}}},
			{"workret__return", "work", [][2]string{{"arg1", "r"}}},
			{"scale", "scale", [][2]string{{"x", "x"}, {"k", "k"}}},
		}})
	}
	cases = append(cases, langCase{kind: "go", bin: "gof", listed: "(on main.positional", specs: []string{
		"ent=main.positional a b c=c:u8",
		"ret=main.positional%ret r=$retval big=$retval1",
		"sc=example.com/gofix/shapes.(*Rect).Scale%ret area=$retval per=$retval1",
	}, checks: []langCheck{
		{"ent", "positional", [][2]string{{"a", "a"}, {"b", "b"}, {"c", "c"}}},
		{"ret__return", "positional", [][2]string{{"r", "r"}, {"big", "big"}}},
		{"sc__return", "scale", [][2]string{{"area", "area"}, {"per", "per"}}},
	}})
	for _, c := range cases {
		t.Run(c.bin, func(t *testing.T) {
			app := copyBinary(t, langFixture(t, c.kind, c.bin))
			g := liveGroup(t, fsys, strings.ReplaceAll(c.bin, "-", "_"))
			in := newInstance(t, fsys, g)
			args := []string{"-x", app}
			for _, s := range c.specs {
				args = append(args, "-a", g+":"+s)
			}
			if _, errOut, err := dw(args...); err != nil {
				t.Fatalf("dwprobe -a: %v\n%s", err, errOut)
			}
			// -l names the functions as specs do (perf 6.1: mangled).
			if list, _, err := dw("-l", g+":"+strings.SplitN(c.specs[0], "=", 2)[0]); err != nil || !strings.Contains(list, c.listed) {
				t.Errorf("-l: %v\n%s\nwant %q", err, list, c.listed)
			}
			in.enable(t, g, true)
			pid, printed := runLang(t, app, c.args...)
			byEvent := map[string][]map[string]string{}
			for _, e := range in.events(t, pid) {
				byEvent[e.event] = append(byEvent[e.event], e.args)
			}
			for _, ck := range c.checks {
				got, want := byEvent[ck.event], printed[ck.line]
				if len(got) != len(want) || len(want) == 0 {
					t.Errorf("%s: %d hits, the program printed %d %q lines: %v", ck.event, len(got), len(want), ck.line, got)
					continue
				}
				for i := range got {
					for _, p := range ck.pairs {
						if tr, pr := normBool(got[i][p[0]]), normBool(want[i][p[1]]); tr != pr {
							t.Errorf("%s hit %d: traced %s=%s, printed %s=%s", ck.event, i, p[0], tr, p[1], pr)
						}
					}
				}
			}
		})
	}
}

// normBool spells Go's printed booleans as the u8 a probe reads.
func normBool(s string) string {
	switch s {
	case "false":
		return "0"
	case "true":
		return "1"
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return strconv.FormatInt(n, 10) // 0x7 and 7 alike
	}
	return s
}

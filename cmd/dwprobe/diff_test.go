package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// diffOld and diffNew are two builds of one program: in the new, a line
// is inserted above the loop, total is made register, helper is always
// inlined, struct s gains a member before b and gone is removed.
const diffOld = `#include <stdio.h>
struct s { int a; int b; };
static int helper(int v)
{
	return v * 3 + 1;
}
int gone(int x) { return x + 1; }
int work(struct s *p, int n)
{
	int total = 0;
	total += p->b;
	printf("%d\n", total);
	for (int i = 0; i < n; i++)
		total += i;
	return helper(total);
}
int main(int argc, char **argv) { struct s x = {argc, 2}; return (work(&x, argc) + gone(argc)) & 1; }
`

const diffNew = `#include <stdio.h>
struct s { int a; long pad; int b; };
static inline __attribute__((always_inline)) int helper(int v)
{
	return v * 3 + 1;
}
int work(struct s *p, int n)
{
	register int total = 0;
	total += p->b;
	printf("%d\n", total);
	n = n * 1;
	for (int i = 0; i < n; i++)
		total += i;
	return helper(total);
}
int main(int argc, char **argv) { struct s x = {argc, 0, 2}; return work(&x, argc) & 1; }
`

// diffSpecs and what --diff says of each.
var diffSpecs = []struct{ spec, change, detail string }{
	{"main", "unchanged", ""},
	{"work:3 p->b", "args", `b: \+4\(-\d+\(%bp\)\):s32 -> \+16\(-\d+\(%bp\)\):s32 \(location, offset\)$`},
	{"work:4 total", "args", `total: -\d+\(%bp\):s32 -> %bx:s32 \(location\)`},
	{"work:6", "moved", `suggest: work:7$`},
	{"helper", "points", `\+ helper \(inlined into work\)`},
	{"gone", "broken", `no longer resolves`},
}

// TestDiffFixture: --diff between two builds of an edited program says
// which specs are unchanged, read an argument differently, have other
// points, moved (with the line holding the statement now) or broke.
func TestDiffFixture(t *testing.T) {
	old := dwarftest.Compile(t, "gcc", "app.c", diffOld, "-O0", "-g")
	new := dwarftest.Compile(t, "gcc", "app.c", diffNew, "-O0", "-g")
	var specs []string
	for _, s := range diffSpecs {
		specs = append(specs, s.spec)
	}
	file := filepath.Join(t.TempDir(), "specs.txt")
	if err := os.WriteFile(file, []byte(strings.Join(specs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-x", old, "--diff", new, "-D", "@" + file}, &out, &errb)
	if got := exitCode(err); got != exitUnresolved {
		t.Errorf("exit %d (%v), want %d: a spec broke", got, err, exitUnresolved)
	}
	blocks := diffBlocks(out.String())
	for _, s := range diffSpecs {
		b, ok := blocks[s.spec]
		if !ok {
			t.Errorf("%s: not reported in\n%s", s.spec, out.String())
			continue
		}
		if !strings.HasPrefix(b, s.change+" ") {
			t.Errorf("%s: got %q, want %s", s.spec, b, s.change)
		}
		if s.detail != "" && !regexp.MustCompile(`(?m)`+s.detail).MatchString(b) {
			t.Errorf("%s: got %q, want %s", s.spec, b, s.detail)
		}
	}
	if want := "6 probes: 1 unchanged, 2 args, 1 points, 1 moved, 1 broken\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// diffBlocks splits --diff's text by spec: each spec's line and the
// details under it, the blanks after the change's name squeezed.
func diffBlocks(out string) map[string]string {
	m := map[string]string{}
	var cur string
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, " ") {
			change, spec, _ := strings.Cut(l, " ")
			cur = strings.TrimSpace(spec)
			m[cur] = change + " " + cur
			continue
		}
		m[cur] += "\n" + strings.TrimSpace(l)
	}
	return m
}

// TestDiffStatus: a build against itself changes nothing (status 0); a
// changed argument alone is status 6, with --json one object per spec.
func TestDiffStatus(t *testing.T) {
	old := dwarftest.Compile(t, "gcc", "app.c", diffOld, "-O0", "-g")
	new := dwarftest.Compile(t, "gcc", "app.c", diffNew, "-O0", "-g")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"-x", old, "--diff", old, "-D", "work:6", "-D", "helper"}, &out, &errb)
	if exitCode(err) != exitOK || out.String() != "unchanged  work:6\nunchanged  helper\n" {
		t.Errorf("same build: exit %d (%v), output %q", exitCode(err), err, out.String())
	}
	out.Reset()
	err = run(context.Background(), []string{"-x", old, "--diff", new, "-D", "work:4 total", "--json"}, &out, &errb)
	if exitCode(err) != exitChanged {
		t.Errorf("changed argument: exit %d (%v), want %d", exitCode(err), err, exitChanged)
	}
	for _, want := range []string{`"mode":"diff"`, `"change":"args"`, `"what":"location"`, `"new_fetcharg":"%bx"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--json: no %s in %s", want, out.String())
		}
	}
}

// TestDiffUsage: --diff compares -D's specs; its options alone are
// usage errors.
func TestDiffUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-k", "a", "--diff", "b", "-L", "vfs_read"}, "--diff compares the specs of -D"},
		{[]string{"-k", "a", "--diff-source", "s", "-D", "vfs_read"}, "--diff-source is the source of the --diff build"},
		{[]string{"-k", "a", "--diff", "b", "--bootconfig", "-D", "vfs_read"}, "--diff and --bootconfig"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tt.args, &out, &errb)
		if exitCode(err) != exitUsage || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: exit %d, %v; want usage %q", tt.args, exitCode(err), err, tt.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestVarsOneArgList: every point of one event carries the same argument
// names and types in the same order, as the kernel requires to append a
// probe to an event ("Argument type or name is different from existing
// probe"): fsnotify_access $vars (a dozen inlined copies, with file, file
// and mask in differing orders, or nothing, in scope) and __fput:10 $vars
// (a second file at one of its points), on both kernels and machines.
// __fput:10 is one point since issue 31's one-run rule (its second row is
// the same run), so only fsnotify_access must have several.
func TestVarsOneArgList(t *testing.T) {
	typeOf := regexp.MustCompile(`=.*:`)
	// Not 7.3's arm64: its __fput:10 is one point.
	for _, vmlinux := range []string{"amd64/vmlinux", "arm64/vmlinux", "6.12/amd64/vmlinux", "6.12/arm64/vmlinux", "7.3/amd64/vmlinux"} {
		t.Run(vmlinux, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, vmlinux)
			for _, spec := range []string{"fsnotify_access $vars", "__fput:10 $vars"} {
				var out, errb bytes.Buffer
				if err := run(context.Background(), []string{"-k", vml, "-D", spec}, &out, &errb); err != nil {
					t.Fatalf("-D %s: %v\n%s", spec, err, errb.String())
				}
				lines := strings.Split(strings.TrimSpace(out.String()), "\n")
				var first string
				for i, l := range lines {
					f := strings.Fields(l)
					var sig []string
					for _, a := range f[2:] {
						sig = append(sig, typeOf.ReplaceAllString(a, "="))
					}
					if s := strings.Join(sig, " "); i == 0 {
						first = s
					} else if s != first {
						t.Errorf("%s: %s\nhas arguments %q, the first point %q", spec, l, s, first)
					}
				}
				if len(lines) < 2 && spec == "fsnotify_access $vars" || first == "" {
					t.Errorf("%s: %d points, arguments %q", spec, len(lines), first)
				}
			}
		})
	}
}

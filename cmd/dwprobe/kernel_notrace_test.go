package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// TestKernelNotrace: dwprobe's offline note that a function is notrace (no
// ftrace call site) predicts exactly which definitions the booted Debian
// kernel refuses (it is built without CONFIG_KPROBE_EVENTS_ON_NOTRACE).
func TestKernelNotrace(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, arch)
			vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
			var defs []string
			predicted := map[string]bool{}
			for i, fn := range []string{"vfs_read", "ksys_write", "comm_write", "__do_sys_clone", "__do_sys_wait4", "__do_sys_waitid"} {
				var out, errb bytes.Buffer
				if err := run(context.Background(), []string{"-k", vml, "-D", fn}, &out, &errb); err != nil {
					t.Fatalf("-D %s: %v", fn, err)
				}
				for j, d := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					f := strings.Fields(d)
					sym, _, _ := strings.Cut(f[1], "+")
					// one event per point, so that each refusal is its own
					name := "nt" + string(rune('a'+i)) + string(rune('a'+j))
					line := "p:probe/" + name + " " + f[1]
					defs = append(defs, line)
					if regexp.MustCompile(`note: ` + regexp.QuoteMeta(sym) + `( \([^)]*\))? is notrace`).MatchString(errb.String()) {
						predicted[line] = true
					}
				}
			}
			g := qemutest.Boot(t, arch, defs, "true\n", nil)
			refused := map[string]bool{}
			for _, r := range g.Rejected {
				refused[strings.SplitN(r, "\n", 2)[0]] = true
			}
			for _, d := range defs {
				if predicted[d] != refused[d] {
					t.Errorf("%s: dwprobe predicted refused=%v, the kernel refused=%v", d, predicted[d], refused[d])
				}
			}
			t.Logf("%d definitions, %d predicted and refused as notrace", len(defs), len(refused))
		})
	}
}

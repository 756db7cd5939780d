package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestVarsColdLabels: line 8 of print_cpu lies in print_cpu and in its
// print_cpu.cold part. -V labels the points as perf 6.1 and 6.12 do
// (convert_to_trace_point: print_cpu has only DW_AT_ranges, so the symbol
// covering the address names it), as -D writes them, not from the first
// range (print_cpu+11802835). -D notes no notrace: the kernel checks a
// suffixed symbol's base name, and print_cpu is traceable.
func TestVarsColdLabels(t *testing.T) {
	for _, c := range []struct{ vmlinux, cold string }{
		{"amd64/vmlinux", "print_cpu.cold+257 print_cpu.cold+275"},
		{"6.12/amd64/vmlinux", "print_cpu.cold+259 print_cpu.cold+277"},
	} {
		t.Run(c.vmlinux, func(t *testing.T) {
			vml := dwarftest.NeedCorpus(t, c.vmlinux)
			var out, errb bytes.Buffer
			spec := "print_cpu@kernel/sched/debug.c:8"
			if err := run(context.Background(), []string{"-k", vml, "-V", spec}, &out, &errb); err != nil {
				t.Fatalf("-V: %v\n%s", err, errb.String())
			}
			var labels []string
			for _, l := range strings.Split(out.String(), "\n") {
				if l, ok := strings.CutPrefix(l, "\t@<"); ok {
					labels = append(labels, strings.TrimSuffix(l, ">"))
				}
			}
			if want := "print_cpu+55 print_cpu+91 print_cpu+110 " + c.cold; strings.Join(labels, " ") != want {
				t.Errorf("-V labels %q, want %q", labels, want)
			}
			out.Reset()
			errb.Reset()
			if err := run(context.Background(), []string{"-k", vml, "-D", spec}, &out, &errb); err != nil {
				t.Fatalf("-D: %v", err)
			}
			for _, cold := range strings.Fields(c.cold) {
				if !strings.Contains(out.String(), " "+cold+"\n") {
					t.Errorf("-D does not write %s:\n%s", cold, out.String())
				}
			}
			if strings.Contains(errb.String(), "notrace") {
				t.Errorf("-D notes notrace:\n%s", errb.String())
			}
		})
	}
}

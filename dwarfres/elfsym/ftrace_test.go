package elfsym

import (
	"maps"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestNotraceLayouts: Notrace on each kernel and machine of the corpus.
// arm64 6.12 (CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS, -fpatchable-function-
// entry=4,2) records each site 8 bytes before its function's symbol,
// where a lookup inside the function found none and called nearly every
// function notrace; 6.1 records it at the symbol. Ordinary functions are
// traceable on all four, sched_clock (declared notrace in
// kernel/time/sched_clock.c) is not, and most functions have a site.
// A suffixed symbol without a site is refused only when the function of
// its base name has none either (trace_kprobe.c within_notrace_func):
// print_cpu.cold is accepted, as print_cpu is traceable, while
// snp_cpuid_hv.part.0 and ftrace_find_callable_addr.isra.0 have no base
// function and are refused.
func TestNotraceLayouts(t *testing.T) {
	suffixed := map[string]map[string]bool{
		"amd64": {"print_cpu.cold": false, "snp_cpuid_hv.part.0": true},
		"arm64": {"ftrace_find_callable_addr.isra.0": true},
	}
	for _, vmlinux := range []string{"amd64/vmlinux", "arm64/vmlinux", "6.12/amd64/vmlinux", "6.12/arm64/vmlinux"} {
		t.Run(vmlinux, func(t *testing.T) {
			o, err := elfobj.Open(dwarftest.NeedCorpus(t, vmlinux))
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			f := NewImage(o, nil)
			want := map[string]bool{"vfs_read": false, "do_sys_openat2": false, "vfs_write": false, "sched_clock": true}
			maps.Copy(want, suffixed[strings.TrimPrefix(path.Dir(vmlinux), "6.12/")])
			for name, want := range want {
				if got, known := notraceByName(t, f, name); !known || got != want {
					t.Errorf("Notrace(%s) = %v (known %v), want %v", name, got, known, want)
				}
			}
			n, notrace := 0, 0
			f.Symbols().Each(func(s Sym) {
				if strings.HasPrefix(s.Name, "__pfx_") {
					return // 6.12 amd64's padding before each function (CONFIG_FUNCTION_PADDING_CFI)
				}
				if nt, known := f.Notrace(s.Start); known {
					n++
					if nt {
						notrace++
					}
				}
			})
			if n < 10000 || notrace*3 > n {
				t.Errorf("%d of %d functions notrace", notrace, n)
			}
			t.Logf("%d of %d functions notrace", notrace, n)
		})
	}
}

func notraceByName(t *testing.T, f *Image, name string) (notrace, known bool) {
	t.Helper()
	addr, ok := f.SymbolAddr(name)
	if !ok {
		t.Fatalf("no symbol %s", name)
	}
	return f.Notrace(addr)
}

// TestNotraceModule612: a 6.12 arm64 module records its sites before its
// functions too (its __patchable_function_entries, relocated).
func TestNotraceModule612(t *testing.T) {
	release, err := os.ReadFile(dwarftest.NeedCorpus(t, "6.12/arm64/version"))
	if err != nil {
		t.Fatal(err)
	}
	ko := "6.12/arm64/dbg/usr/lib/debug/lib/modules/" + strings.TrimSpace(string(release)) + "/kernel/net/key/af_key.ko"
	o, err := elfobj.Open(dwarftest.NeedCorpus(t, ko))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	f := NewImage(o, nil)
	if got, known := notraceByName(t, f, "pfkey_sendmsg"); !known || got {
		t.Errorf("Notrace(pfkey_sendmsg) = %v (known %v), want false", got, known)
	}
}

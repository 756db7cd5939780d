package probegen_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
)

// TestKernelView: $retval and $argN get their C types from the DWARF,
// and, on a kernel that resolves arguments through BTF (6.5 on), the
// name and fetch type that kernel gives them where the definition
// leaves them out (it rewrites $argN as the parameter's name and types
// both from BTF); the definition stays as written. 6.1 names them argN
// and prints them in hex.
func TestKernelView(t *testing.T) {
	for _, c := range []struct{ corpus, want string }{
		{"amd64", "arg1 struct file* | arg2 size_t | x char* | arg4 struct file* u32 || arg1 ssize_t | r ssize_t u32"},
		{"6.12/amd64", "file struct file* x64 | count size_t u64 | x char* x64 | file struct file* u32 || arg1 ssize_t s64 | r ssize_t u32"},
	} {
		t.Run(c.corpus, func(t *testing.T) {
			tg, err := probegen.Open(probegen.OpenOptions{Kernel: dwarftest.NeedCorpus(t, c.corpus+"/vmlinux")})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			var got, defs []string
			for _, spec := range []string{"vfs_read $arg1 $arg3 x=$arg2 $arg1:u32", "ksys_read%return $retval r=$retval:u32"} {
				_, res, err := tg.Resolver(probegen.ResolveOptions{}).Resolve(spec)
				if err != nil {
					t.Fatal(err)
				}
				p := res.Probes[0]
				var args []string
				for _, a := range p.Args {
					args = append(args, strings.TrimSpace(fmt.Sprintf("%s %s %s", a.Name, a.Type.Name, a.Type.Fetch)))
				}
				got = append(got, strings.Join(args, " | "))
				defs = append(defs, p.Definition().String())
			}
			if strings.Join(got, " || ") != c.want {
				t.Errorf("got  %s\nwant %s", strings.Join(got, " || "), c.want)
			}
			for _, want := range []string{" $arg1 $arg3 x=$arg2 $arg1:u32", " $retval r=$retval:u32"} {
				if !strings.Contains(strings.Join(defs, "\n"), want) {
					t.Errorf("the definitions lack %q:\n%s", want, strings.Join(defs, "\n"))
				}
			}
		})
	}
}

// TestFirstOfCopy: on 6.12's vmlinux, vfs_setpos_cookie:3 is one point
// in each of its five copies (inlined into vfs_setpos, twice into
// generic_llseek_cookie, twice into generic_file_llseek_size), each its
// copy's First; ksys_read:11 is two points of one copy, the lower First.
func TestFirstOfCopy(t *testing.T) {
	tg, err := probegen.Open(probegen.OpenOptions{Kernel: dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	for spec, want := range map[string]string{
		"vfs_setpos_cookie:3": "vfs_setpos+9 0 true | generic_llseek_cookie+72 1 true | generic_llseek_cookie+156 2 true | generic_file_llseek_size+41 3 true | generic_file_llseek_size+153 4 true",
		"ksys_read:11":        "ksys_read+104 0 true | ksys_read+169 0 false",
	} {
		_, res, err := tg.Resolver(probegen.ResolveOptions{}).Resolve(spec)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Probes {
			got = append(got, fmt.Sprintf("%s+%d %d %v", p.Attach.Symbol, p.Attach.Offset, p.Copy, p.First))
		}
		if strings.Join(got, " | ") != want {
			t.Errorf("%s:\ngot  %s\nwant %s", spec, strings.Join(got, " | "), want)
		}
	}
}

// TestTooManyCount: a point with more places than MaxProbes is a
// *TooManyError with the count, reachable with errors.As, still
// errors.Is dwarfres.ErrTooMany and worded as perf words it.
func TestTooManyCount(t *testing.T) {
	tg, err := probegen.Open(probegen.OpenOptions{Kernel: dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux")})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, _, err = tg.Resolver(probegen.ResolveOptions{MaxProbes: 3}).Resolve("vfs_setpos_cookie:3")
	var many *probegen.TooManyError
	if !errors.As(err, &many) || many.N != 5 || many.Max != 3 || !errors.Is(err, dwarfres.ErrTooMany) || !strings.Contains(err.Error(), "too many (> 3) probe points found") {
		t.Errorf("%v (%#v), want a TooManyError of 5 > 3", err, many)
	}
}

// TestLazyDefaultSources: a lazy pattern resolves with the default
// options, reading the source where the debuginfo says it was built.
func TestLazyDefaultSources(t *testing.T) {
	tgt := openApp(t, "-O0")
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("work;printf*")
	if err != nil || len(res.Probes) != 1 || res.Probes[0].Line != 13 {
		t.Fatalf("work;printf*: %v, %+v", err, res)
	}
}

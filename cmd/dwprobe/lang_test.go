package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// Issue 15: C++, Rust and Go programs. The fixtures are built at test time
// from testdata/fixtures/lang by testdata/scripts/langfixtures.sh, one
// kind (cxx, rust, go) at a time; a missing compiler skips (fails under
// make test).

// langFixture returns the fixture name of kind, built if needed.
func langFixture(t *testing.T, kind, name string) string {
	t.Helper()
	dir := dwarftest.FixtureDir("../..")
	out, err := exec.Command("bash", "../../testdata/scripts/langfixtures.sh", dir, kind).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == 3:
		dwarftest.Skip(t, "%s fixtures: %s", kind, strings.TrimSpace(string(out)))
	case err != nil:
		t.Fatalf("%s fixtures: %v\n%s", kind, err, out)
	}
	return filepath.Join(dir, name)
}

// TestLangDefinitions pins what -D writes for C++ names (scopes, templates,
// operators, overloads, this->member), Rust names (legacy and v0 mangling,
// crate::module::function, -O0 and -O2) and Go names (main.fn,
// pkg/path.(*T).M, :LINE, %ret). Addresses differ between compiler
// versions: the patterns pin names, arguments and locations' forms.
func TestLangDefinitions(t *testing.T) {
	tests := []struct {
		kind, bin, spec string
		want            string // regexp over stdout
	}{
		// perf 6.1: "There is non-digit char in line number".
		{"cxx", "cxx-gcc-O0", "geo::Box::grow this->width by", `^p:probe_cxx/geo_Box_grow \S+:0x[0-9a-f]+ width=\+0\(-8\(%bp\)\):s64 by=-16\(%bp\):s64\n$`}, // perf 6.1 probes the entry (no prologue skip: an end_sequence row) and reads garbage
		{"cxx", "cxx-gcc-O2", "geo::Box::grow this->width by", `^p:probe_cxx/geo_Box_grow \S+:0x[0-9a-f]+ width=\+0\(%di\):s64 by=%si:s64\n$`},
		{"cxx", "cxx-clang-O2", `"geo::Box::grow" this->width by`, `^p:probe_cxx/geo_Box_grow \S+:0x[0-9a-f]+ width=\+0\(%di\):s64 by=%si:s64\n$`},
		// gcc names it "add<long int>", perf -F "add<long>": both work.
		{"cxx", "cxx-gcc-O2", `"add<long>" a b`, `^p:probe_cxx/add_long_ \S+ a=%di:s64 b=%si:s64\n$`},
		{"cxx", "cxx-clang-O0", `"geo::Box::operator<"`, `^p:probe_cxx/geo_Box_operator_ \S+\n$`},
		{"cxx", "cxx-gcc-O2", `geo::Box::grow%return $retval`, `^r:probe_cxx/geo_Box_grow__return \S+ arg1=\$retval\n$|^r:probe_cxx/geo_Box_grow__return \S+ \$retval\n$`},
		{"cxx", "cxx-gcc-O0", "over x", `^p:probe_cxx/over \S+ x=-8\(%bp\):x64\np:probe_cxx/over \S+ x=-4\(%bp\):s32\n$`},
		{"cxx", "cxx-gcc-O2", "_Z4overi x", `^p:probe_cxx/_Z4overi \S+ x=%di:s32\n$`},
		{"cxx", "cxx-gcc-O2", "_Zbad v", `^p:probe_cxx/_Zbad \S+ v=%di:s32\n$`},
		// perf 6.1: p:probe_r/work <dir>/r:0x... n=+56(%sp):x64 (dwprobe
		// said "not found" before issue 15).
		{"rust", "rs-O0", "work n", `^p:probe_rs/work \S+ n=\+56\(%sp\):x64\n$`},
		{"rust", "rs-O2", "work n", `^p:probe_rs/work \S+ n=%di:x64\n$`},
		// perf 6.1: "Failed to add events" (no symbol is named work).
		{"rust", "rs-O2", "work%return $retval", `^r:probe_rs/work__return \S+ \$retval\n$`},
		{"cxx", "cxx-gcc-O0", "grow%return $retval", `^r:probe_cxx/grow__return \S+ \$retval\n$`},
		{"rust", "rs-v0", "work n", `^p:probe_rs/work \S+ n=\+56\(%sp\):x64\n$`},
		{"rust", "rs-O0", "r::inner::scale x k", `^p:probe_rs/r_inner_scale \S+ x=\+16\(%sp\):s32 k=\+20\(%sp\):s32\n$`},
		{"rust", "rs-v0", "r::inner::scale x k", `^p:probe_rs/r_inner_scale \S+ x=\+16\(%sp\):s32 k=\+20\(%sp\):s32\n$`},
		// A method of an inherent impl: v0 demangles it "<r::Counter>::bump".
		{"rust", "rs-O0", "r::Counter::bump self->n by", `^p:probe_rs/r_Counter_bump \S+ n=\+0\(\+24\(%sp\)\):x64 by=\+32\(%sp\):x64\n$`},
		{"rust", "rs-v0", "r::Counter::bump self->n by", `^p:probe_rs/r_Counter_bump \S+ n=\+0\(\+24\(%sp\)\):x64 by=\+32\(%sp\):x64\n$`},
		{"rust", "rs-O2", "r::Counter::bump self->n by", `^p:probe_rs/r_Counter_bump \S+ n=\+0\(%di\):x64 by=%si:x64\n$`},
		// perf 6.1 names these "main" and "example", and reads
		// main.positional:3 as a file.
		{"go", "gof", "main.positional a b c", `^p:probe_gof/main_positional \S+ a=%ax:s64 b=%bx:s64 c=%cx:x8\n$`},
		{"go", "gof", "main.positional:3 s", `^p:probe_gof/main_positional_L3 \S+ s=%ax:s64\n$`},
		{"go", "gof", "example.com/gofix/shapes.(*Rect).Scale r k r->W", `^p:probe_gof/example_com_gofix_shapes_Rect_Scale \S+ r=%ax k=%bx:s64 W=\+0\(%ax\):s64\n$`},
		{"go", "gof", "main.positional%ret $retval big=$retval1", `^(p:probe_gof/main_positional__return \S+ retval=%ax:s64 big=%bx:u8\n){2}$`},
		{"go", "gof-arm64", "main.positional%ret $retval big=$retval1", `^(p:probe_gof/main_positional__return \S+ retval=%x0:s64 big=%x1:u8\n){2}$`},
	}
	for _, tt := range tests {
		t.Run(tt.bin+"/"+tt.spec, func(t *testing.T) {
			bin := langFixture(t, tt.kind, tt.bin)
			out, errOut, err := dw("-x", bin, "-D", tt.spec)
			if err != nil {
				t.Fatalf("-D %q: %v\n%s", tt.spec, err, errOut)
			}
			if !regexp.MustCompile(tt.want).MatchString(out) {
				t.Errorf("-D %q:\n%s\nwant /%s/", tt.spec, out, tt.want)
			}
		})
	}
}

// TestLangFunctionList: -F lists C++ and Rust functions demangled as perf
// 6.1 does (it hid them before issue 15).
func TestLangFunctionList(t *testing.T) {
	for _, tt := range []struct {
		kind, bin string
		want      []string
	}{
		{"cxx", "cxx-gcc-O0", []string{"add<int>", "add<long>", "geo::Box::Box", "geo::Box::grow", "geo::Box::operator<", "main", "over"}},
		{"cxx", "cxx-clang-O2", []string{"add<long>", "geo::Box::grow", "over"}},
		{"rust", "rs-O0", []string{"r::work", "r::inner::scale", "r::main"}},
		{"rust", "rs-v0", []string{"r::work", "r::inner::scale", "r::main"}},
		{"go", "gof", []string{"main.positional", "example.com/gofix/shapes.(*Rect).Scale"}},
	} {
		t.Run(tt.bin, func(t *testing.T) {
			out, errOut, err := dw("-x", langFixture(t, tt.kind, tt.bin), "-F")
			if err != nil {
				t.Fatalf("-F: %v\n%s", err, errOut)
			}
			lines := strings.Split(out, "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("-F does not list %q", w)
				}
			}
			if strings.Contains(out, "_ZN") || strings.Contains(out, "\n_R") {
				t.Errorf("-F lists mangled names:\n%s", out)
			}
		})
	}
}

// TestLangMessages pins one clear line for each refusal and note of issue
// 15: %return on Go, an overload (every one probed, listed with the
// mangled names that pick one), a missing result, a local at %ret.
func TestLangMessages(t *testing.T) {
	tests := []struct {
		kind, bin, spec string
		fail            bool
		want            string // in stderr
	}{
		{"go", "gof", "main.positional%return $retval", true,
			`main.positional%return: a return probe (uretprobe) crashes Go programs: the runtime moves goroutine stacks and cannot unwind through the return address the kernel swaps in; probe its return instructions instead: main.positional%ret $retval`},
		{"go", "gof", "main.positional%ret $retval2", true, `argument "$retval2": the function has 2 result(s)`},
		{"go", "gof", "main.positional%ret s", true, `argument "s": at a return instruction only $retval, $retvalN and raw fetchargs are available`},
		{"cxx", "cxx-gcc-O2", "over", false,
			`note: over is overloaded: probing all 2 of over(double) (_Z4overd), over(int) (_Z4overi); name one by its mangled name to probe it alone`},
		{"cxx", "cxx-gcc-O2", "geo::Box::shrink", true, `probe point 'geo\:\:Box\:\:shrink' not found`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, errOut, err := dw("-x", langFixture(t, tt.kind, tt.bin), "-D", tt.spec)
			if err != nil {
				errOut += err.Error()
			}
			if (err != nil) != tt.fail || !strings.Contains(errOut, tt.want) {
				t.Errorf("-D %q: error %v, stderr\n%s\nwant it to contain\n%s", tt.spec, err, errOut, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); tt.fail && n > 0 {
				t.Errorf("-D %q: %d lines, want one:\n%s", tt.spec, n+1, errOut)
			}
		})
	}
}

// TestLangUndemangled: a name that looks mangled but does not demangle
// (extern "C" _Zbad) is listed and probed as it is.
func TestLangUndemangled(t *testing.T) {
	bin := langFixture(t, "cxx", "cxx-gcc-O2")
	out, errOut, err := dw("-x", bin, "-F", "--filter", "_Z*")
	if err != nil || out != "_Zbad\n" {
		t.Errorf("-F --filter '_Z*': %v\n%s%s\nwant _Zbad alone", err, out, errOut)
	}
}

// TestLangLineRange: -L shows the source of a C++, Rust or Go function
// named with its scopes, headed by the name as written.
func TestLangLineRange(t *testing.T) {
	for _, tt := range []struct{ kind, bin, rng, head, line string }{
		{"cxx", "cxx-gcc-O0", "geo::Box::grow", "<geo::Box::grow@", "long grow(long by) {"},
		{"rust", "rs-O0", "r::inner::scale", "<r::inner::scale@", "x * k + 1"},
		{"go", "gof", "main.positional:1-2", "<main.positional@", "s := a + int(b) + int(c)"},
	} {
		t.Run(tt.rng, func(t *testing.T) {
			out, errOut, err := dw("-x", langFixture(t, tt.kind, tt.bin), "-L", tt.rng)
			if err != nil || !strings.HasPrefix(out, tt.head) || !strings.Contains(out, tt.line) {
				t.Errorf("-L %s: %v\n%s%s", tt.rng, err, out, errOut)
			}
		})
	}
}

// TestLangRustSymbolName: a Rust function whose symbol is not its name
// (the kernel's panic handler, rust_begin_unwind, is kernel::panic) is
// listed under the name asked, and its file, in a relative directory of
// the line table, is found under -s at ROOT/rust/kernel/lib.rs, as perf
// 6.1 and 7.3 show it (dwprobe showed <kernel::panic@ROOT//rust/...>).
func TestLangRustSymbolName(t *testing.T) {
	bin := langFixture(t, "rust", "rs-kernel")
	root, err := filepath.Abs("../../testdata/fixtures/lang/rustkernel")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := dw("-x", bin, "-s", root, "-L", "rust_begin_unwind")
	if want := "<rust_begin_unwind@" + root + "/rust/kernel/lib.rs:0>\n"; err != nil || !strings.HasPrefix(out, want) || !strings.Contains(out, "pub fn panic(n: u64) -> u64 {") {
		t.Errorf("-L rust_begin_unwind: %v\n%s%s\nwant it headed %s", err, out, errOut, want)
	}
	out, _, err = dw("-x", bin, "-V", "rust_begin_unwind")
	if err != nil || !strings.HasPrefix(out, "Available variables at rust_begin_unwind\n\t@<panic+0>\n\t\tu64\tn\n") {
		t.Errorf("-V rust_begin_unwind: %v\n%s", err, out)
	}
}

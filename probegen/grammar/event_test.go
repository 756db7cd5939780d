package grammar

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// The wants marked "perf:" were checked with perf 6.1, e.g.
// perf probe -k vmlinux -s linux -D 'vfs_read:12' -> p:probe/vfs_read_L12 vfs_read+114.
func TestEventBase(t *testing.T) {
	tests := []struct {
		point    string
		realname string
		want     string
	}{
		{"vfs_read", "vfs_read", "vfs_read"},                                // perf: p:probe/vfs_read vfs_read+0
		{"vfs_read:12", "vfs_read", "vfs_read_L12"},                         // perf: p:probe/vfs_read_L12 vfs_read+114
		{"vfs_read:0x0c@read_write.c", "vfs_read", "vfs_read_L12"},          // perf: p:probe/vfs_read_L12 vfs_read+114
		{"vfs_read@fs/read_write.c:12", "vfs_read", "vfs_read_L12"},         // perf: p:probe/vfs_read_L12 vfs_read+114
		{"vfs_read:0", "vfs_read", "vfs_read"},                              // perf: p:probe/vfs_read vfs_read+0
		{"vfs_read+4", "vfs_read", "vfs_read"},                              // perf: p:probe/vfs_read vfs_read+4
		{"vfs_read%return", "vfs_read", "vfs_read__return"},                 // perf: r:probe/vfs_read__return vfs_read+0
		{"vfs_read@fs/read_write.c%return", "vfs_read", "vfs_read__return"}, // perf: r:probe/vfs_read__return vfs_read+0
		{"vfs_read;ret=*", "vfs_read", "vfs_read"},                          // perf: 5 x p:probe/vfs_read
		{"fs/read_write.c:470", "vfs_read", "vfs_read"},                     // perf: p:probe/vfs_read vfs_read+357
		{"@fs/read_write.c:470", "vfs_read", "vfs_read"},                    // perf: p:probe/vfs_read vfs_read+357
		{"fs/read_write.c;ret=*", "do_iter_read", "do_iter_read"},           // perf: p:probe/do_iter_read do_iter_read+185
		{"fs/namei.c:140", "getname_flags", "getname_flags"},                // perf: p:probe/getname_flags getname_flags.part.0+43
		{"getname_flags", "getname_flags", "getname_flags"},                 // perf: 12 x p:probe/getname_flags
		{"getname_flags.part.0", "getname_flags", "getname_flags"},          // perf: p:probe/getname_flags
		{"getname_flags.part.0%return", "", "getname_flags__return"},        // perf: r:probe/getname_flags__return
		{"getname_fl*", "getname_flags", "getname_flags"},                   // perf: p:probe/getname_flags
		{"vfs_rea*", "vfs_readv", "vfs_readv"},                              // perf: p:probe/vfs_readv vfs_readv+0
		{"vfs_rea*%return", "vfs_readlink", "vfs_readlink__return"},         // perf: r:probe/vfs_readlink__return
		{"vfs_read*;ret=*", "vfs_readv", "vfs_readv"},                       // perf: p:probe/vfs_readv vfs_readv+128
		{"vfs_rea*:12", "vfs_read", "vfs_rea*_L12"},                         // perf: Internal error: "vfs_read*_L12" is an invalid event name.
		{"0xffffffff8134cc50", "", "abs_ffffffff8134cc50"},                  // perf: p:probe/abs_ffffffff8134cc50 0xffffffff8134cc50
		{"0xffffffff8134cc50%return", "", "abs_ffffffff8134cc50__return"},   // perf: r:probe/abs_ffffffff8134cc50__return
		{"0x1234", "ignored", "abs_1234"},                                   // perf -x: p:probe_my/abs_1234 /tmp/my-app.v2:0x1234
		{"ev=0xffffffff8134cc50", "", "ev"},                                 // perf: p:probe/ev 0xffffffff8134cc50
		{"myev=vfs_read%return", "vfs_read", "myev__return"},                // perf: r:probe/myev__return vfs_read+0
		{"g:myev=0xffffffff8134cc50%return", "", "myev__return"},            // perf: r:g/myev__return 0xffffffff8134cc50
		{"myg:myev=vfs_read:3", "vfs_read", "myev"},                         // user name wins over _L3
		{"ev=fs/read_write.c:470", "vfs_read", "ev"},                        // perf: p:probe/ev vfs_read+357
		// Issue 15: Go, C++ and Rust names get upstream perf's replacement
		// (perf 6.1 cut Go's at the '.': "main" for every function).
		{"main.main", "main.main", "main_main"},
		{"main.Hello%return", "main.Hello", "main_Hello__return"},
		{"main.Hel*", "main.Hello", "main_Hello"},
		{"example.com/gofix/shapes.(*Rect).Scale", "example.com/gofix/shapes.(*Rect).Scale", "example_com_gofix_shapes_Rect_Scale"}, // a glob: realname
		{"geo::Box::grow", "grow", "geo_Box_grow"},
		{`"geo::Box::operator<"%return`, "", "geo_Box_operator___return"},
		{"r::inner::scale:2", "scale", "r_inner_scale_L2"},
		{"f.cold", "", "f"},
		{"_Z62this_is_a_very_very_long_print_data_abcdefghijklmnopqrstuvwxyzi%return", "", "_Z62this_is_a_very_very_long_print_data_abcdef_91f40679__return"},
		{`malloc_get_state\@GLIBC_2.2.5`, "", "malloc_get_state"},   // cut at '@'
		{`malloc\@GLIBC_2:3`, "", "malloc"},                         // "malloc@GLIBC_2_L3" cut at '@' too
		{`malloc\@GLIBC_2.2.5:3`, "__libc_malloc", "__libc_malloc"}, // a '.' before ':': SRC:ALN, as in perf
		{"f.part.0@x.c:3", "f", "f"},                                // "f.part.0_L3" cut at '.'
		{".vfs_read%return", "", "vfs_read__return"},                // one leading '.' dropped
		{"..x", "", ".x"},               // only one; no cut at 0
		{"fs/read_write.c:470", "", ""}, // realname needed
	}
	for _, tt := range tests {
		p, err := ParsePoint(tt.point)
		if err != nil {
			t.Fatalf("ParsePoint(%q): %v", tt.point, err)
		}
		if got := EventBase(p, tt.realname); got != tt.want {
			t.Errorf("EventBase(%q, %q) = %q, want %q", tt.point, tt.realname, got, tt.want)
		}
	}
}

func TestNamer(t *testing.T) {
	type call struct {
		base        string
		allowSuffix bool
		want        string
		err         error
	}
	tests := []struct {
		name     string
		existing []string
		calls    []call
	}{
		{"free", nil, []call{{"vfs_read", false, "vfs_read", nil}}},
		{"taken without -f", []string{"vfs_read"}, []call{{"vfs_read", false, "", tracefs.ErrEventExists}}},
		{"numbered", []string{"vfs_read"}, []call{
			{"vfs_read", true, "vfs_read_1", nil},
			{"vfs_read", true, "vfs_read_2", nil},
			{"vfs_read", false, "", tracefs.ErrEventExists},
		}},
		{"skips taken suffixes", []string{"f", "f_1", "f_2", "f_4"}, []call{
			{"f", true, "f_3", nil},
			{"f", true, "f_5", nil},
		}},
		// perf 6.1 puts the suffix in place of __return (checked with
		// perf probe -x gob -f -a 'main.Hello%return': main__return, main_1, main_2).
		{"return suffix", []string{"main__return"}, []call{
			{"main__return", true, "main_1", nil},
			{"main__return", true, "main_2", nil},
			{"main", true, "main", nil},
			{"main", true, "main_3", nil},
		}},
		{"invalid base", nil, []call{
			{"vfs_rea*_L12", true, "", tracefs.ErrBadEventName},
			{"", true, "", tracefs.ErrBadEventName},
			{strings.Repeat("x", 64), true, "", tracefs.ErrBadEventName},
		}},
		// A 63-byte base is fine until it needs a suffix.
		{"suffix too long", []string{strings.Repeat("x", 63)}, []call{
			{strings.Repeat("x", 63), true, "", tracefs.ErrBadEventName},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNamer(tt.existing)
			for _, c := range tt.calls {
				got, err := n.Next(c.base, c.allowSuffix)
				if got != c.want || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
					t.Errorf("Next(%q, %v) = %q, %v; want %q, %v", c.base, c.allowSuffix, got, err, c.want, c.err)
				}
				if err == nil && !n.has(got) {
					t.Errorf("Next did not take %q", got)
				}
			}
		})
	}
}

func TestNamerTooMany(t *testing.T) {
	existing := []string{"f"}
	for i := 1; i < maxEventIndex; i++ {
		existing = append(existing, "f_"+strconv.Itoa(i))
	}
	n := NewNamer(existing)
	if _, err := n.Next("f", true); !errors.Is(err, ErrTooManyEvents) {
		t.Errorf("got %v, want ErrTooManyEvents", err)
	}
	n = NewNamer(existing[:len(existing)-1])
	if got, err := n.Next("f", true); got != "f_1023" || err != nil {
		t.Errorf("got %q, %v, want f_1023", got, err)
	}
}

// Peek does not take the name: perf names every probe of one spec the same
// on multi-probe kernels (perf -D getname_flags prints 12 x probe/getname_flags).
func TestNamerPeek(t *testing.T) {
	n := NewNamer([]string{"getname_flags"})
	for i := 0; i < 3; i++ {
		got, err := n.Peek("getname_flags", true)
		if got != "getname_flags_1" || err != nil {
			t.Fatalf("Peek = %q, %v", got, err)
		}
	}
	if n.has("getname_flags_1") {
		t.Errorf("Peek took the name")
	}
	n.Add("getname_flags_1")
	if got, _ := n.Peek("getname_flags", true); got != "getname_flags_2" {
		t.Errorf("after Add, Peek = %q", got)
	}
}

func TestExecGroup(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"/lib/x86_64-linux-gnu/libc.so.6", "probe_libc", nil},
		{"/tmp/my-app.v2", "probe_my", nil}, // perf -x: p:probe_my/abs_1234
		{"/tmp/gob/gob", "probe_gob", nil},  // perf -x: p:probe_gob/main
		{"busybox", "probe_busybox", nil},
		{"/usr/bin/", "probe_bin", nil},
		{"/tmp/-x", "probe_", nil},
		{"/" + strings.Repeat("b", 57), "probe_" + strings.Repeat("b", 57), nil},
		{"/" + strings.Repeat("b", 58), "", tracefs.ErrBadGroupName},
	}
	for _, tt := range tests {
		got, err := ExecGroup(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ExecGroup(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

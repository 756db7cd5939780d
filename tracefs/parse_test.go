package tracefs

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/lazymatch"
)

func TestParseDefinition(t *testing.T) {
	long := strings.Repeat("a", 63)
	good := []struct {
		kind Kind
		def  string
		want Event
	}{
		{KProbe, "p:probe/vfs_read vfs_read+114 f_mode=+68(%di):x32",
			Event{Type: 'p', Group: "probe", Name: "vfs_read", Target: "vfs_read+114",
				Args: []Arg{{Name: "f_mode", Fetch: "+68(%di)", Type: "x32"}}}},
		{KProbe, "r16:probe/foo__return foo+0 arg1=$retval:s64",
			Event{Type: 'r', MaxActive: 16, Group: "probe", Name: "foo__return", Target: "foo+0",
				Args: []Arg{{Name: "arg1", Fetch: "$retval", Type: "s64"}}}},
		{KProbe, "r4096:g/e f", Event{Type: 'r', MaxActive: 4096, Group: "g", Name: "e", Target: "f"}},
		{KProbe, "p:" + long + "/" + long + " f", Event{Type: 'p', Group: long, Name: long, Target: "f"}},
		// Several spaces: the kernel's argv_split skips them.
		{UProbe, "  p:probe_app/work   /tmp/app:0x1139  %di  ",
			Event{Type: 'p', Group: "probe_app", Name: "work", Target: "/tmp/app:0x1139",
				Args: []Arg{{Name: "", Fetch: "%di", Type: ""}}}},
		{UProbe, "r:probe_app/work__return /a:b/app:4409 s=+0(%si):string a=+8(%ax):u8[4]",
			Event{Type: 'r', Group: "probe_app", Name: "work__return", Target: "/a:b/app:4409",
				Args: []Arg{{Name: "s", Fetch: "+0(%si)", Type: "string"}, {Name: "a", Fetch: "+8(%ax)", Type: "u8[4]"}}}},
		{KProbe, "p:g/e f " + strings.Repeat("a", 32) + "=%di",
			Event{Type: 'p', Group: "g", Name: "e", Target: "f", Args: []Arg{{Name: strings.Repeat("a", 32), Fetch: "%di", Type: ""}}}},
	}
	for _, c := range good {
		got, err := ParseDefinition(c.kind, c.def)
		if err != nil {
			t.Errorf("ParseDefinition(%v, %q): %v", c.kind, c.def, err)
			continue
		}
		c.want.Kind, c.want.Raw = c.kind, c.def
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseDefinition(%v, %q)\n got %+v\nwant %+v", c.kind, c.def, got, c.want)
		}
	}

	manyArgs := "p:g/e f" + strings.Repeat(" %di", MaxArgs+1)
	bad := []struct {
		kind Kind
		def  string
		msg  string
	}{
		{KProbe, "", "empty"},
		{KProbe, "   ", "empty"},
		{KProbe, "p:g/e\n f", "newline"},
		{KProbe, "p:g/e f\np:g/e2 f", "newline"},
		{KProbe, "p:g/e f\n", "newline"},
		{KProbe, "p:g/e\x00 f", "NUL"},
		{KProbe, "p:g/e\tf", "control character"},
		{KProbe, "p:g/e f x=%di\x7f", "control character"},
		{KProbe, "p:g/e f #x", "comment"},
		{UProbe, "p:g/e /tmp/\xc3\xa0:0x10", "0xa0"},
		{KProbe, "-:g/e", "delete command"},
		{KProbe, "e:g/e sched.sched_switch", "must start with p: or r:"},
		{KProbe, "f:g/e vfs_read", "must start with p: or r:"},
		{KProbe, "p vfs_read", "explicit GROUP/EVENT"},
		{KProbe, "p: vfs_read", "explicit GROUP/EVENT"},
		{KProbe, "p:e vfs_read", "explicit GROUP/EVENT"},
		{KProbe, "p:g/ vfs_read", `event "": empty`},
		{KProbe, "p:/e vfs_read", `group "": empty`},
		{KProbe, "p:g.e vfs_read", "explicit GROUP/EVENT"},
		{KProbe, "p:g/e/f vfs_read", "C identifier"},
		{KProbe, "p:g-x/e vfs_read", "C identifier"},
		{KProbe, "p:g/1e vfs_read", "C identifier"},
		{KProbe, "p:g/e.x vfs_read", "C identifier"},
		{KProbe, "p:" + long + "a/e f", "longer than 63 bytes"},
		{KProbe, "p:g/" + long + "a f", "longer than 63 bytes"},
		{KProbe, "p:g/e", "no probe point"},
		{KProbe, "p5:g/e f", "only for return probes"},
		{KProbe, "r0:g/e f", "1 to 4096"},
		{KProbe, "r010:g/e f", "1 to 4096"},
		{KProbe, "r4097:g/e f", "1 to 4096"},
		{KProbe, "r99999999999999999999:g/e f", "1 to 4096"},
		{UProbe, "r5:g/e /bin/x:0x10", "no MAXACTIVE"},
		{UProbe, "p:g/e x:0x10", "PATH:OFFSET"},
		{UProbe, "p:g/e /bin/x", "PATH:OFFSET"},
		{UProbe, "p:g/e /bin/x:", "PATH:OFFSET"},
		{UProbe, "p:g/e /bin/x:main", "PATH:OFFSET"},
		{KProbe, "p:g/e f 1x=%di", "C identifier"},
		{KProbe, "p:g/e f =%di", "C identifier"},
		{KProbe, "p:g/e f " + strings.Repeat("a", 33) + "=%di", "longer than 32"},
		{KProbe, "p:g/e f x=", "no fetch expression"},
		{KProbe, manyArgs, "at most 128"},
		{KProbe, "p:g/e f" + strings.Repeat(" +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))", 100), "at most 4094"},
		{KProbe, "p:g/e f x=" + strings.Repeat("+0(", 20) + "%di" + strings.Repeat(")", 20), "at most 63"},
	}
	for _, c := range bad {
		_, err := ParseDefinition(c.kind, c.def)
		if !errors.Is(err, ErrBadDefinition) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseDefinition(%v, %q) = %v, want ErrBadDefinition with %q", c.kind, c.def, err, c.msg)
		}
	}

	if _, err := ParseDefinition(Kind(7), "p:g/e f"); !errors.Is(err, ErrNotSupported) {
		t.Errorf("unknown kind: %v, want ErrNotSupported", err)
	}
}

func TestParseListing(t *testing.T) {
	// The first two uprobe lines are what Linux 6.18 printed on the test
	// host; the kprobe lines follow trace_kprobe_show.
	uprobes := "p:probe_app/work /tmp/tfx/app:0x0000000000001139 x=%di:s32\n" +
		"r:probe_app/work__return /tmp/tfx/app:0x0000000000001139 r=$retval:u64 c=$comm s=+0(%si):string\n" +
		"p:uprobes/p_app_0x1139 /tmp/tfx/app:0x0000000000001139 arg1=%ax arg2=+8(%sp):x16 arg3=@0x10\n" +
		"p:foo-bar/x /tmp/tfx/app:0x0000000000001139(0x3010)\n"
	got, err := parseListing(UProbe, uprobes)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Type: 'p', Group: "probe_app", Name: "work", Target: "/tmp/tfx/app:0x0000000000001139",
			Args: []Arg{{Name: "x", Fetch: "%di", Type: "s32"}}},
		{Type: 'r', Group: "probe_app", Name: "work__return", Target: "/tmp/tfx/app:0x0000000000001139",
			Args: []Arg{{Name: "r", Fetch: "$retval", Type: "u64"}, {Name: "c", Fetch: "$comm", Type: ""}, {Name: "s", Fetch: "+0(%si)", Type: "string"}}},
		{Type: 'p', Group: "uprobes", Name: "p_app_0x1139", Target: "/tmp/tfx/app:0x0000000000001139",
			Args: []Arg{{Name: "arg1", Fetch: "%ax", Type: ""}, {Name: "arg2", Fetch: "+8(%sp)", Type: "x16"}, {Name: "arg3", Fetch: "@0x10", Type: ""}}},
		{Type: 'p', Group: "foo-bar", Name: "x", Target: "/tmp/tfx/app:0x0000000000001139(0x3010)"},
	}
	lines := strings.Split(strings.TrimSuffix(uprobes, "\n"), "\n")
	for i := range want {
		want[i].Kind, want[i].Raw = UProbe, lines[i]
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uprobes:\n got %+v\nwant %+v", got, want)
	}

	kprobes := "p:probe/vfs_read _text+3421344 f_mode=+68(%di):x32\n" +
		"r16:probe/foo__return foo arg1=$retval:s64\n" +
		"p:kprobes/p_0 0x00000000deadbeef\n" +
		"p:probe/ext4_sync ext4:ext4_sync_fs+4 s=\\\"a:b\\\"\n"
	got, err = parseListing(KProbe, kprobes)
	if err != nil {
		t.Fatal(err)
	}
	want = []Event{
		{Type: 'p', Group: "probe", Name: "vfs_read", Target: "_text+3421344", Args: []Arg{{Name: "f_mode", Fetch: "+68(%di)", Type: "x32"}}},
		{Type: 'r', MaxActive: 16, Group: "probe", Name: "foo__return", Target: "foo", Args: []Arg{{Name: "arg1", Fetch: "$retval", Type: "s64"}}},
		{Type: 'p', Group: "kprobes", Name: "p_0", Target: "0x00000000deadbeef"},
		{Type: 'p', Group: "probe", Name: "ext4_sync", Target: "ext4:ext4_sync_fs+4", Args: []Arg{{Name: "s", Fetch: `\"a:b\"`, Type: ""}}},
	}
	lines = strings.Split(strings.TrimSuffix(kprobes, "\n"), "\n")
	for i := range want {
		want[i].Kind, want[i].Raw = KProbe, lines[i]
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kprobes:\n got %+v\nwant %+v", got, want)
	}

	if got, err := parseListing(KProbe, ""); err != nil || got != nil {
		t.Errorf("empty listing: %v, %v", got, err)
	}
	for _, line := range []string{"-:g/e", "p:g/e", "p g/e f", "x:g/e f", "p:ge f", "p:g/1 f", "p:../e f"} {
		if _, err := parseListing(KProbe, "p:g/ok f\n"+line+"\n"); !errors.Is(err, ErrBadListing) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("listing line %q: %v, want ErrBadListing on line 2", line, err)
		}
	}
}

// TestParseListingComments: the '#' lines Linux 7.3 may print after a
// probe (its fetch program) are no probes, in any kind's listing.
func TestParseListingComments(t *testing.T) {
	for _, tt := range []struct {
		kind Kind
		text string
		want []string // the Raw lines parsed
	}{
		{KProbe, "p:probe/vfs_read vfs_read count=%dx:u64\n# fetch: REG(dx) ST_RAW(8)\nr:probe/f__return f arg1=$retval\n", []string{"p:probe/vfs_read vfs_read count=%dx:u64", "r:probe/f__return f arg1=$retval"}},
		{KProbe, "#\n  # indented\n\t#tab\np:g/e f\n", []string{"p:g/e f"}},
		{KProbe, "# only comments\n", nil},
		{UProbe, "p:probe_app/work /tmp/app:0x0000000000001139\n# fetch: REG(di)\n", []string{"p:probe_app/work /tmp/app:0x0000000000001139"}},
		{FProbe, "f:fprobes/vfs_read__entry vfs_read count=count\n#  FETCH_OP_ARG 2\np:probe/x x\n", []string{"f:fprobes/vfs_read__entry vfs_read count=count"}},
		{TProbe, "t:tp/sched sched_switch\n# comment\n", []string{"t:tp/sched sched_switch"}},
	} {
		evs, err := parseListing(tt.kind, tt.text)
		if err != nil {
			t.Errorf("%v %q: %v", tt.kind, tt.text, err)
			continue
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.Raw)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v %q: parsed %q, want %q", tt.kind, tt.text, got, tt.want)
		}
	}
	for line, want := range map[string]bool{"# x": true, "  #": true, "\t# x": true, "p:g/e f": false, "": false, "p:g/e f#x": false} {
		if got := ListingComment(line); got != want {
			t.Errorf("ListingComment(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestEventMatches(t *testing.T) {
	e := Event{Group: "probe", Name: "vfs_read"}
	for pat, want := range map[string]bool{
		"vfs_read":       true,
		"probe:vfs_read": true,
		"*:vfs_read":     true,
		"probe:*":        true,
		"vfs_*":          true,
		"probe*":         true, // perf: '*' crosses the ':' of "probe:vfs_read"
		"other:vfs_read": false,
		"probe":          false,
		"vfs_[rw]ead":    true,
		"vfs_[!r]ead":    false,
	} {
		if got := e.Matches(func(s string) bool { return lazymatch.Glob(s, pat) }); got != want {
			t.Errorf("%q matches %q = %v, want %v", pat, e.PerfName(), got, want)
		}
	}
}

package listing

import (
	"errors"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestEventLine(t *testing.T) {
	for _, c := range []struct {
		group, event, point, module string
		args                        []string
		want                        string
	}{
		// perf probe -l, perf probe -a (perf 6.1 on the app fixture).
		{"probe", "vfs_read_L12", "vfs_read:12@fs/read_write.c", "", []string{"f_mode", "buf"},
			"  probe:vfs_read_L12   (on vfs_read:12@fs/read_write.c with f_mode buf)"},
		{"probe_app", "work_L7", "work:7", "/tmp/pt/app", []string{"name=p->name:string", "id=p->id"},
			"  probe_app:work_L7    (on work:7 in /tmp/pt/app with name=p->name:string id=p->id)"},
		{"probe_app", "compute__return", "compute%return@testdata/fixtures/app_util.c", "/tmp/pt/app", []string{"arg1"},
			"  probe_app:compute__return (on compute%return@testdata/fixtures/app_util.c in /tmp/pt/app with arg1)"},
		{"g1", "e1", "compute", "/tmp/pt/app", nil, "  g1:e1                (on compute in /tmp/pt/app)"},
	} {
		if got := EventLine(c.group, c.event, c.point, c.module, c.args); got != c.want {
			t.Errorf("EventLine = %q\n        want %q", got, c.want)
		}
	}
}

func TestParseTracePoint(t *testing.T) {
	for _, c := range []struct {
		target    string
		user, ret bool
		want      TracePoint
		raw       string // Describe without debuginfo
	}{
		{"vfs_read", false, false, TracePoint{Symbol: "vfs_read"}, "vfs_read"},
		{"vfs_read+114", false, false, TracePoint{Symbol: "vfs_read", Offset: 114}, "vfs_read+114"},
		{"vfs_read", false, true, TracePoint{Symbol: "vfs_read", Return: true}, "vfs_read%return"},
		{"_text+3421344", false, false, TracePoint{Symbol: "_text", Offset: 3421344}, "_text+3421344"},
		{"0xffffffff8134cc50", false, false, TracePoint{Addr: 0xffffffff8134cc50}, "0xffffffff8134cc50"},
		{"ext4:ext4_sync_fs+4", false, false, TracePoint{Module: "ext4", Symbol: "ext4_sync_fs", Offset: 4}, "ext4_sync_fs+4"},
		{"/tmp/app:0x0000000000001139", true, false, TracePoint{Module: "/tmp/app", Addr: 0x1139, User: true}, "0x1139"},
		{"/a:b/app:0x0000000000001139(0x4010)", true, true, TracePoint{Module: "/a:b/app", Addr: 0x1139, User: true, Return: true}, "0x1139%return"},
	} {
		got, err := ParseTracePoint(c.target, c.user, c.ret)
		if err != nil || got != c.want {
			t.Errorf("ParseTracePoint(%q) = %+v, %v; want %+v", c.target, got, err, c.want)
			continue
		}
		if raw := got.Describe(nil); raw != c.raw {
			t.Errorf("ParseTracePoint(%q).Describe(nil) = %q, want %q", c.target, raw, c.raw)
		}
	}
	for _, c := range []struct {
		target string
		user   bool
	}{
		{"", false}, {"+4", false}, {"vfs_read+x", false}, {"0xzz", false},
		{"/tmp/app", true}, {"/tmp/app:main", true}, {":0x10", true},
	} {
		if _, err := ParseTracePoint(c.target, c.user, false); !errors.Is(err, tracefs.ErrBadDefinition) {
			t.Errorf("ParseTracePoint(%q, %v): %v, want tracefs.ErrBadDefinition", c.target, c.user, err)
		}
	}
}

// FuzzParseTracePoint: any listed target either parses, keeping its kind
// and return-ness, or is refused with tracefs.ErrBadDefinition; a parsed one can
// be described without debuginfo.
func FuzzParseTracePoint(f *testing.F) {
	for _, s := range []string{"vfs_read", "vfs_read+114", "_text+3421344", "0xffffffff8134cc50",
		"ext4:ext4_sync_fs+4", "/tmp/app:0x0000000000001139", "/a:b/app:0x1139(0x4010)", "+", ":", "0x"} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, target string, user, ret bool) {
		tp, err := ParseTracePoint(target, user, ret)
		if err != nil {
			if !errors.Is(err, tracefs.ErrBadDefinition) {
				t.Fatalf("ParseTracePoint(%q): %v", target, err)
			}
			return
		}
		if tp.User != user || tp.Return != ret {
			t.Fatalf("ParseTracePoint(%q) = %+v", target, tp)
		}
		_ = tp.Describe(nil)
	})
}

func TestPerfPoint(t *testing.T) {
	for _, tt := range []struct {
		p    grammar.Point
		want string
	}{
		{grammar.Point{Function: "vfs_read"}, "vfs_read"},
		{grammar.Point{Function: "vfs_read", Line: 12, HasLine: true}, "vfs_read:12"},
		{grammar.Point{Function: "vfs_read", Offset: 4, HasOffset: true}, "vfs_read+4"},
		{grammar.Point{Function: "vfs_read", Return: true}, "vfs_read%return"},
		{grammar.Point{Function: "vfs_read", File: "fs/read_write.c"}, "vfs_read@fs/read_write.c"},
		{grammar.Point{File: "fs/read_write.c", Line: 470, HasLine: true}, "@fs/read_write.c:470"},
		{grammar.Point{Function: "f", File: "drivers/gpu/drm/amd/amdgpu/amdgpu_device.c"}, "f@amd/amdgpu/amdgpu_device.c"},
	} {
		if got := PerfPoint(&tt.p); got != tt.want {
			t.Errorf("PerfPoint(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

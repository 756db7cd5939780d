package probegen

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

func TestPerfArgAndSpecPoint(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		point string
		args  []string
	}{
		{"work:7 p->name:string p->id", "work:7", []string{"name=p->name:string", "id=p->id"}},
		{"compute%return $retval", "compute%return", []string{"$retval"}},
		{"compute c:s32 x=c", "compute", []string{"c:s32", "x=c"}},
		{"vfs_read file->f_path.dentry->d_name.name:string", "vfs_read", []string{"name=file->f_path.dentry->d_name.name:string"}},
		{"work p->vals[2] p->box.min.x", "work", []string{"vals=p->vals[2]", "x=p->box.min.x"}},
		{"work v[1] s=p->name:string@user %di +8(%si)", "work", []string{"v=v[1]", "s=p->name:string", "%di", "+8(%si)"}},
		{"fs/read_write.c:470", "@fs/read_write.c:470", nil},
		{"vfs_read@fs/read_write.c+4", "vfs_read+4@fs/read_write.c", nil},
		{"vfs_read;ret=*", "vfs_read", nil},
		{"0xffffffff8134cc50", "0xffffffff8134cc50", nil},
		{"my:ev=vfs_read:3", "vfs_read:3", nil},
	} {
		spec, err := grammar.ParseSpec(c.cmd)
		if err != nil {
			t.Fatalf("%q: %v", c.cmd, err)
		}
		if got := SpecPoint(&spec.Point); got != c.point {
			t.Errorf("SpecPoint(%q) = %q, want %q", c.cmd, got, c.point)
		}
		var args []string
		for _, a := range spec.Args {
			args = append(args, PerfArg(a))
		}
		if len(args) != len(c.args) {
			t.Errorf("%q: args %q, want %q", c.cmd, args, c.args)
			continue
		}
		for i := range args {
			if args[i] != c.args[i] {
				t.Errorf("%q: arg %d = %q, want %q", c.cmd, i, args[i], c.args[i])
			}
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

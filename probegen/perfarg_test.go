package probegen

import (
	"testing"

	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/listing"
)

// TestPerfArgAndSpecPoint: a spec's point and arguments as perf probe
// shows a probe it added.
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
		if got := listing.SpecPoint(&spec.Point); got != c.point {
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

package probegen

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

func TestSplitCast(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want castParts
		err  string
	}{
		{"(file)file->f_mode", castParts{"file", "", "file", "->f_mode"}, ""},
		{"(inode,i_data)(file->f_mapping)->i_ino", castParts{"inode", "i_data", "file->f_mapping", "->i_ino"}, ""},
		{"(inode)((file)file->f_inode)->i_ino", castParts{"inode", "", "(file)file->f_inode", "->i_ino"}, ""},
		{"(s,a.b)%di->c.d", castParts{"s", "a.b", "%di", "->c.d"}, ""},
		{"(file)file", castParts{}, "needs a member"},
		{"(file)(file", castParts{}, "unbalanced"},
		{"(file", castParts{}, "missing ')'"},
		{"()x->y", castParts{}, "a typecast is"},
		{"(file)(x)y", castParts{}, "a typecast is"},
		{"file", castParts{}, "not a typecast"},
	} {
		got, err := splitCast(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("splitCast(%q) = %+v, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("splitCast(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// TestCastAwayFromEntry: Linux 7.3 reads a typecast at a function's
// entry or return only; at a line of vfs_read dwprobe writes it from the
// DWARF variable and the kernel's BTF (container_of subtracting its
// member's offset), and at the entry it passes through as the user wrote
// it. The 7.3 amd64 vmlinux: struct file's f_mode at 4, f_inode at 32,
// struct inode's i_ino at 64 and i_data at 360.
func TestCastAwayFromEntry(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "7.3/amd64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		spec, want string
	}{
		{"vfs_read:6 (file)file->f_mode", "+4(%di):x32"},
		{"vfs_read:6 (file)%di->f_mode:u16", "+4(%di):u16"},
		{"vfs_read:6 (inode)((file)file->f_inode)->i_ino", "+64(+32(%di)):x64"},
		{"vfs_read:6 (inode,i_data)(file->f_mapping)->i_ino", "-296(+16(%di)):x64"},
		{"vfs_read:6 (file)file->f_path.dentry->d_name.name:string", "+0(+40(+72(%di))):string"},
		{"vfs_read (file)file->f_mode", "(file)file->f_mode"},
		{"vfs_read:6 (nosuch)file->f_mode", "no such structure or union in the kernel's BTF"},
		{"vfs_read:6 (file,nope)file->f_mode", "has no member nope"},
		{"vfs_read:6 (inode,i_data)file->f_mapping->i_ino", "has no member f_mapping"},
		{"vfs_read:6 (file)$arg1->f_mode", "not \"$arg1\""},
		// this_cpu_read(NAME): the kernel's NAME is a BTF argument; a
		// per-CPU variable in DWARF is written @NAME.
		{"vfs_read this_cpu_read(cpu_number)", "this_cpu_read(@cpu_number)"},
		{"vfs_read this_cpu_ptr(runqueues)", "this_cpu_ptr(@runqueues)"},
		{"vfs_read this_cpu_read(file)", "this_cpu_read(file)"},
		{"vfs_read:6 this_cpu_read(file)", "file names no per-CPU variable in the debuginfo at vfs_read+52"},
		{"vfs_read this_cpu_read(nosuch)", "nosuch names no per-CPU variable"},
	} {
		spec, err := grammar.ParseSpec(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := resolve(&ResolveOptions{MaxProbes: 8}, f, &spec.Point)
		if err != nil || len(pts) == 0 || pts[0].scope == nil {
			t.Fatalf("%s: %d points, %v", tt.spec, len(pts), err)
		}
		d := tracefs.KernelDialect(elf.EM_X86_64, 7, 3)
		e := &argEnv{f: f, m: elf.EM_X86_64, spec: spec.Raw, pt: &spec.Point, dial: &d}
		r, _, err := e.convertArg(spec.Args[0], pts[0].scope)
		if err == nil {
			checkBuilt(t, tt.spec, r)
		}
		got := r.Fetch
		if r.Type != "" {
			got += ":" + r.Type
		}
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.spec, got, tt.want)
		}
	}
}

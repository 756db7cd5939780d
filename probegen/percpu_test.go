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

// TestPerCPUReads: on a kernel that reads this CPU's copy of a per-CPU
// variable itself (Linux 7.3), dwprobe writes this_cpu_read(@VAR) for the
// variable whole and +OFF(this_cpu_ptr(@VAR)) for its members; on one that
// does not (the 6.1 vmlinux's own version), it refuses as before. The 6.1
// amd64 vmlinux plays both.
func TestPerCPUReads(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "amd64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		fn, arg, want string
	}{
		{"__getblk_gfp", "cpu_number", "this_cpu_read(@cpu_number):s32"},
		{"scheduler_tick", "runqueues.nr_running", "+4(this_cpu_ptr(@runqueues)):x32"},
		{"scheduler_tick", "runqueues.curr->pid", ""},
	} {
		spec, err := grammar.ParseSpec(tt.fn + " " + tt.arg)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			d    tracefs.Dialect
			want string
		}{{tracefs.KernelDialect(elf.EM_X86_64, 7, 3), tt.want}, {tracefs.KernelDialect(elf.EM_X86_64, 6, 1), "per-CPU variable"}} {
			pts, err := resolve(&ResolveOptions{MaxProbes: 8}, f, &spec.Point)
			if err != nil || len(pts) == 0 || pts[0].scope == nil {
				t.Fatalf("%s: %d points, %v", tt.fn, len(pts), err)
			}
			d := v.d
			e := &argEnv{f: f, m: elf.EM_X86_64, spec: spec.Raw, pt: &spec.Point, dial: &d}
			r, _, err := e.convertArg(spec.Args[0], pts[0].scope)
			if err == nil {
				checkBuilt(t, tt.arg, r)
			}
			got := r.Fetch
			if r.Type != "" {
				got += ":" + r.Type
			}
			if err != nil {
				got = err.Error()
			}
			switch {
			case v.want == "" && tt.arg == "runqueues.curr->pid":
				if err != nil || !strings.HasPrefix(r.Fetch, "+") || !strings.Contains(r.Fetch, "(this_cpu_ptr(@runqueues))") {
					t.Errorf("%s on %s: %q, want a load through this_cpu_ptr(@runqueues)", tt.arg, d.From, got)
				}
			case !strings.Contains(got, v.want):
				t.Errorf("%s on %s: %q, want %q", tt.arg, d.From, got, v.want)
			}
		}
	}
}

// TestCurrentTask: on a kernel that names the current task (Linux 7.3),
// the kernel's current (a macro: no variable in DWARF) is read as
// (task_struct)$current; elsewhere it is no variable, as before.
func TestCurrentTask(t *testing.T) {
	f, err := dwarfres.Open(dwarftest.NeedCorpus(t, "amd64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		arg  string
		d    tracefs.Dialect
		want string
	}{
		{"current->pid", tracefs.KernelDialect(elf.EM_X86_64, 7, 3), "pid=(task_struct)$current->pid"},
		{"c=current->mm->pgd:x64", tracefs.KernelDialect(elf.EM_X86_64, 7, 3), "c=(task_struct)$current->mm->pgd:x64"},
		{"current->comm[0]", tracefs.KernelDialect(elf.EM_X86_64, 7, 3), `no variable "current"`},
		{"current", tracefs.KernelDialect(elf.EM_X86_64, 7, 3), `no variable "current"`},
		{"current->pid", tracefs.KernelDialect(elf.EM_X86_64, 6, 12), `no variable "current"`},
	} {
		spec, err := grammar.ParseSpec("vfs_read " + tt.arg)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := resolve(&ResolveOptions{MaxProbes: 8}, f, &spec.Point)
		if err != nil || len(pts) == 0 {
			t.Fatalf("vfs_read: %v", err)
		}
		d := tt.d
		e := &argEnv{f: f, m: elf.EM_X86_64, spec: spec.Raw, pt: &spec.Point, dial: &d}
		r, _, err := e.convertArg(spec.Args[0], pts[0].scope)
		if err == nil {
			checkBuilt(t, tt.arg, r)
		}
		got := r.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s on %s: %q, want %q", tt.arg, d.From, got, tt.want)
		}
	}
}

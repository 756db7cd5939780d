package tracefs

import (
	"reflect"
	"strings"
	"testing"
)

func TestFetchForm(t *testing.T) {
	for _, tt := range []struct {
		s       string
		ok      bool
		needs   []Feature
		problem string
	}{
		{"(file)file->f_mode", true, []Feature{BTFCasts}, ""},
		{"(task_struct)$current->pid", true, []Feature{BTFCasts, CurrentTask}, ""},
		{"(sock,sk_common)skc->sk_rcvbuf", true, []Feature{BTFCasts}, ""},
		{"(inode,i_data.i_mmap)mapping->i_ino", true, []Feature{BTFCasts}, ""},
		{"(file)(path)p->dentry", true, []Feature{BTFCasts}, ""},
		{"((file)$arg1->f_path.dentry)->d_name.name", true, []Feature{BTFCasts}, ""},
		{"(file)%di->f_mode", true, []Feature{BTFCasts}, ""},
		{"(rq)this_cpu_ptr(runqueues)->nr_running", true, []Feature{BTFCasts, PerCPUReads}, ""},
		{"(file)$retval->f_mode", true, []Feature{BTFCasts}, ""},
		{"$current", true, []Feature{CurrentTask}, ""},
		{"this_cpu_read(cpu_number)", true, []Feature{PerCPUReads}, ""},
		{"this_cpu_ptr(runqueues)", true, []Feature{PerCPUReads}, ""},
		// Not forms: other fetchargs.
		{"file->f_mode", false, nil, ""},
		{"%di", false, nil, ""},
		{"+0(%di)", false, nil, ""},
		{"$currentx", true, []Feature{CurrentTask}, "unexpected"},
		{"$current->pid", true, []Feature{CurrentTask}, ""},
		// Malformed.
		{"(file)(a)(b)x->y", true, []Feature{BTFCasts}, "2 levels deep at most"},
		{"(file", true, []Feature{BTFCasts}, "missing ')'"},
		{"()x", true, []Feature{BTFCasts}, "names a structure"},
		{"(s,)x", true, []Feature{BTFCasts}, "container_of"},
		{"(file)x->", true, []Feature{BTFCasts}, "bad member"},
		{"(file)\\1", true, []Feature{BTFCasts}, "a typecast applies to"},
		{"this_cpu_read()", true, nil, "this_cpu_read(VAR)"},
		{"this_cpu_read(x", true, nil, "this_cpu_read(VAR)"},
		{"((file)x->y", true, []Feature{BTFCasts}, "missing ')'"},
	} {
		needs, ok, problem := FetchForm(tt.s)
		if ok != tt.ok || !reflect.DeepEqual(needs, tt.needs) || tt.problem == "" && problem != "" || tt.problem != "" && !strings.Contains(problem, tt.problem) {
			t.Errorf("FetchForm(%q) = %v, %v, %q; want %v, %v, %q", tt.s, needs, ok, problem, tt.needs, tt.ok, tt.problem)
		}
	}
}

// TestFetchFormDialect: 7.3's forms pass on 7.3 and are refused on 6.12
// with the version that reads them; uprobes never read them.
func TestFetchFormDialect(t *testing.T) {
	k := Event{Kind: KProbe, Type: 'p', Group: "probe", Name: "vfs_read", Target: "vfs_read"}
	for _, fetch := range []string{"(file)file->f_mode", "(task_struct)$current->pid", "$current", "this_cpu_read(cpu_number)", "(sock,sk_common)skc->sk_rcvbuf"} {
		e := k
		e.Args = []Arg{{Fetch: fetch}}
		if err := e.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", fetch, err)
		}
		if err := KernelDialect(0, 7, 3).Check(e); err != nil {
			t.Errorf("%s on 7.3: %v", fetch, err)
		}
		err := KernelDialect(0, 6, 12).Check(e)
		if err == nil || !strings.Contains(err.Error(), "Linux 7.3 added") || !strings.Contains(err.Error(), "Linux 6.12") {
			t.Errorf("%s on 6.12: %v, want refused with the version", fetch, err)
		}
		u := Event{Kind: UProbe, Type: 'p', Group: "probe", Name: "x", Target: "/bin/true:0x10", Args: []Arg{{Fetch: fetch}}}
		if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "kernel probes only") {
			t.Errorf("%s on a uprobe: %v", fetch, err)
		}
	}
	e := k
	e.Args = []Arg{{Fetch: "(file)file->f_path.dentry->d_name.name", Type: "string"}}
	if err := e.Validate(); err != nil {
		t.Errorf("a string through a typecast: %v", err)
	}
}

// FuzzFetchForm: FetchForm never panics; what it does not take for a
// form has no needs and no problem, and a well-formed form needs some
// feature of Linux 7.3.
func FuzzFetchForm(f *testing.F) {
	for _, s := range []string{"(file)file->f_mode", "(task_struct)$current->pid", "(sock,sk_common)skc->sk_rcvbuf",
		"((file)$arg1->f_path.dentry)->d_name.name", "this_cpu_read(cpu_number)", "this_cpu_ptr(x)", "$current", "(a)(b)(c)x", "((", "(x,", "file->f_mode"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		needs, ok, problem := FetchForm(s)
		if !ok && (needs != nil || problem != "") {
			t.Fatalf("FetchForm(%q) = %v, false, %q", s, needs, problem)
		}
		if ok && problem == "" && len(needs) == 0 {
			t.Fatalf("FetchForm(%q): a form that needs nothing", s)
		}
	})
}

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
		{"(file)(%di)->f_mode", true, []Feature{BTFCasts}, ""},
		{"(file)%di->f_mode", true, []Feature{BTFCasts}, ""},
		{"(file)$arg1->f_path.dentry", true, []Feature{BTFCasts}, ""},
		{"(dentry)((file)$arg1->f_path.dentry)->d_name.name", true, []Feature{BTFCasts}, ""},
		{"(file)+8(%si)->f_mode", true, []Feature{BTFCasts}, ""},
		{"(rq)this_cpu_ptr(@runqueues)->nr_running", true, []Feature{BTFCasts, PerCPUReads}, ""},
		{"(file)$retval->f_mode", true, []Feature{BTFCasts}, ""},
		{"(file)(@sym+8)->f_mode", true, []Feature{BTFCasts}, ""},
		{"$current", true, []Feature{CurrentTask}, ""},
		{"$current->pid", true, []Feature{CurrentTask}, ""},
		{"$current->mm->pgd", true, []Feature{CurrentTask}, ""},
		{"this_cpu_read(@cpu_number)", true, []Feature{PerCPUReads}, ""},
		{"this_cpu_ptr(@runqueues)", true, []Feature{PerCPUReads}, ""},
		{"this_cpu_read(cpu_number)", true, []Feature{PerCPUReads}, ""},
		{"this_cpu_read(this_cpu_ptr(@x))", true, []Feature{PerCPUReads}, ""},
		// Not forms: other fetchargs.
		{"file->f_mode", false, nil, ""},
		{"%di", false, nil, ""},
		{"+0(%di)", false, nil, ""},
		{"+0(this_cpu_ptr(@x))", false, nil, ""},
		// Malformed.
		{"$currentx", true, []Feature{CurrentTask}, "unexpected"},
		{"(file)file", true, []Feature{BTFCasts}, "needs a field access"},
		{"(a)(b)x->y", true, []Feature{BTFCasts}, "needs a field access"},
		{"((file)x->y)->z", true, []Feature{BTFCasts}, "names a structure"},
		{"(file)@sym+8->f_mode", true, []Feature{BTFCasts}, "needs parentheses"},
		{"(file", true, []Feature{BTFCasts}, "missing ')'"},
		{"()x->y", true, []Feature{BTFCasts}, "names a structure"},
		{"(s,)x->y", true, []Feature{BTFCasts}, "container_of"},
		{"(file)x->", true, []Feature{BTFCasts}, "bad field"},
		{"(file)\\1->x", true, []Feature{BTFCasts}, "a typecast applies to"},
		{"this_cpu_read()", true, []Feature{PerCPUReads}, "this_cpu_read(@VAR)"},
		{"this_cpu_read(@x", true, []Feature{PerCPUReads}, "this_cpu_read(@VAR)"},
		{"this_cpu_read(@x)->y", true, []Feature{PerCPUReads}, "unexpected"},
		{"(a)(" + strings.Repeat("(a)(", 8) + "x" + strings.Repeat(")->y", 9), true, []Feature{BTFCasts}, "8 levels deep at most"},
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
	for _, fetch := range []string{"(file)file->f_mode", "(task_struct)$current->pid", "$current", "this_cpu_read(@cpu_number)", "(sock,sk_common)skc->sk_rcvbuf"} {
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
		"(dentry)((file)$arg1->f_path.dentry)->d_name.name", "this_cpu_read(@cpu_number)", "this_cpu_ptr(@x)", "$current", "(a)(b)(c)x", "((", "(x,", "file->f_mode"} {
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

// TestReadmeForms: Linux 7.3's README (kernel/trace/trace.c readme_msg)
// tells the running kernel's forms.
func TestReadmeForms(t *testing.T) {
	const readme73 = `	 fetcharg: (%<register>|$<efield>), @<address>, @<symbol>[+|-<offset>],
	           $stack<index>, $stack, $retval, $comm, $arg<N>, $current
	           [(structname[,field])]<argname>[->field[->field|.field...]],
	           [(structname[,field])](fetcharg)->field[->field|.field...],
	           +|-[u]<offset>(<fetcharg>), \imm-value, \"imm-string"
	           this_cpu_read(<fetcharg>), this_cpu_ptr(<fetcharg>)
`
	d := ReadmeDialect(0, readme73)
	for _, f := range []Feature{BTFCasts, CurrentTask, PerCPUReads} {
		if !d.Has(f) {
			t.Errorf("7.3's README: no %v", f)
		}
	}
	d = ReadmeDialect(0, "\t fetcharg: (%<register>|$<efield>), @<address>\n\t           $stack<index>, $stack, $retval, $comm, $arg<N>,\n")
	for _, f := range []Feature{BTFCasts, CurrentTask, PerCPUReads} {
		if d.Has(f) {
			t.Errorf("6.12's README: %v", f)
		}
	}
}

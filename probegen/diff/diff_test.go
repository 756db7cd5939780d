package diff

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs"
)

// bres is a resolution of points, each "FUNC@CALLER" (CALLER for an
// inlined copy) with its line's text and one argument x read by fetch.
func bres(pts ...[3]string) BuildResolution {
	b := BuildResolution{Res: &answer.Resolution{}}
	for _, p := range pts {
		fn, caller, _ := strings.Cut(p[0], "@")
		pr := answer.Probe{Function: fn, InlinedInto: caller, File: "a.c", Line: len(b.Texts) + 10}
		b.Texts = append(b.Texts, p[1])
		if p[2] != "" {
			f, typ, _ := strings.Cut(p[2], ":")
			pr.Args = []answer.ArgRead{{Name: "x", Fetcharg: f, Fetch: tracefs.ReadFetch(f), Type: answer.CType{Fetch: typ}}}
		}
		b.Res.Probes = append(b.Res.Probes, pr)
	}
	return b
}

func TestDiffResolutions(t *testing.T) {
	failed := BuildResolution{Err: errors.New("not found")}
	tests := []struct {
		name, spec string
		old, new   BuildResolution
		want       Change
		args       []string // NAME:WHAT
		added      int
		removed    int
	}{
		{"same", "f:3 x", bres([3]string{"f", "a = b;", "%di:s32"}), bres([3]string{"f", "a = b;", "%di:s32"}), Unchanged, nil, 0, 0},
		{"blanks ignored, as lazy patterns", "f:3", bres([3]string{"f", "\ta = b;", ""}), bres([3]string{"f", "a=b;  ", ""}), Unchanged, nil, 0, 0},
		{"register", "f:3 x", bres([3]string{"f", "a = b;", "%di:s32"}), bres([3]string{"f", "a = b;", "%r12:s32"}), ArgsChanged, []string{"x:location"}, 0, 0},
		{"to the stack", "f:3 x", bres([3]string{"f", "a = b;", "%di:s32"}), bres([3]string{"f", "a = b;", "-20(%sp):s32"}), ArgsChanged, []string{"x:location"}, 0, 0},
		{"stack slot", "f:3 x", bres([3]string{"f", "a = b;", "-20(%bp):s32"}), bres([3]string{"f", "a = b;", "-28(%bp):s32"}), ArgsChanged, []string{"x:location"}, 0, 0},
		{"member offset", "f x->m", bres([3]string{"f", "int f(struct s *x)", "+8(%di):u64"}), bres([3]string{"f", "int f(struct s *x)", "+16(%di):u64"}), ArgsChanged, []string{"x:offset"}, 0, 0},
		{"nested member offset", "f x->m->n", bres([3]string{"f", "", "+4(+8(%di)):u32"}), bres([3]string{"f", "", "+4(+16(%di)):u32"}), ArgsChanged, []string{"x:offset"}, 0, 0},
		{"stack slot and member", "f x->m", bres([3]string{"f", "", "+4(-24(%bp)):s32"}), bres([3]string{"f", "", "+16(-40(%bp)):s32"}), ArgsChanged, []string{"x:location, offset"}, 0, 0},
		{"global's member", "f init_task.pid", bres([3]string{"f", "", "@init_task+2416:s32"}), bres([3]string{"f", "", "@init_task+2432:s32"}), ArgsChanged, []string{"x:offset"}, 0, 0},
		{"optimized out", "f x", bres([3]string{"f", "", "%dx:x64"}), bres([3]string{"f", "", `\0xdeade12d:x64`}), ArgsChanged, []string{"x:unreadable"}, 0, 0},
		{"type", "f x", bres([3]string{"f", "", "%di:s32"}), bres([3]string{"f", "", "%di:s64"}), ArgsChanged, []string{"x:type"}, 0, 0},
		{"inline copy added", "g", bres([3]string{"g@f", "", ""}), bres([3]string{"g@f", "", ""}, [3]string{"g@h", "", ""}), PointsChanged, nil, 1, 0},
		{"out-of-line copy gone", "g", bres([3]string{"g", "int g(void)", ""}, [3]string{"g@f", "", ""}), bres([3]string{"g@f", "", ""}), PointsChanged, nil, 0, 1},
		{"entry: edited declaration is the same probe", "g", bres([3]string{"g", "int g(int a)", ""}), bres([3]string{"g", "int g(int a, int b)", ""}), Unchanged, nil, 0, 0},
		{"entry: only inlined now", "g", bres([3]string{"g", "int g(void)", ""}), bres([3]string{"g@f", "", ""}), PointsChanged, nil, 1, 1},
		{"line holds another statement", "f:3", bres([3]string{"f", "a = b;", ""}), bres([3]string{"f", "c = d;", ""}), Moved, nil, 1, 1},
		{"offset lands elsewhere", "f+8", bres([3]string{"f", "a = b;", ""}), bres([3]string{"f", "c = d;", ""}), Moved, nil, 1, 1},
		{"broken", "f:3", bres([3]string{"f", "a = b;", ""}), failed, Broken, nil, 0, 0},
		{"not in old", "f:3", failed, bres([3]string{"f", "a = b;", ""}), NotInOld, nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := grammar.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			d := Resolutions(spec, tt.old, tt.new)
			var args []string
			for _, a := range d.Args {
				args = append(args, a.Name+":"+a.What)
			}
			if d.Change != tt.want || !slices.Equal(args, tt.args) || len(d.Added) != tt.added || len(d.Removed) != tt.removed {
				t.Errorf("got %v args %v +%d -%d, want %v args %v +%d -%d", d.Change, args, len(d.Added), len(d.Removed), tt.want, tt.args, tt.added, tt.removed)
			}
		})
	}
}

// Without the sources, lines are compared by number.
func TestDiffResolutionsByLineNumber(t *testing.T) {
	spec, _ := grammar.ParseSpec("f:3")
	old, new := bres([3]string{"f", "", ""}), bres([3]string{"f", "", ""})
	old.Texts, new.Texts = nil, nil
	if d := Resolutions(spec, old, new); d.Change != Unchanged {
		t.Errorf("same line: %v", d.Change)
	}
	new.Res.Probes[0].Line++
	if d := Resolutions(spec, old, new); d.Change != Moved {
		t.Errorf("another line: %v", d.Change)
	}
	// The function moved down its file by one line: the same line of it.
	old.Rel, new.Rel = []int{3}, []int{3}
	if d := Resolutions(spec, old, new); d.Change != Unchanged {
		t.Errorf("same relative line: %v", d.Change)
	}
	new.Rel = []int{4}
	if d := Resolutions(spec, old, new); d.Change != Moved {
		t.Errorf("another relative line: %v", d.Change)
	}
}

func TestFetchShape(t *testing.T) {
	for _, tt := range []struct {
		in   string
		base string
		offs []string
	}{
		{"%di", "%di", nil},
		{"+8(%di)", "%di", []string{"+8"}},
		{"+8(+0(%di))", "%di", []string{"+0", "+8"}},
		{"-20(%sp)", "-20(%sp)", nil},
		{"+4(-24(%bp))", "-24(%bp)", []string{"+4"}},
		{"+u0(%si)", "%si", []string{"+u0"}},
		{"@+4096", "@+4096", nil},
		{"+8(@+0x1000)", "@+0x1000", []string{"+8"}},
		{"this_cpu_read(@runqueues)", "@runqueues", []string{"this_cpu_read"}},
		{"+8(this_cpu_ptr(@runqueues))", "@runqueues", []string{"this_cpu_ptr", "+8"}},
		{"$stack3", "$stack3", nil},
		{"@jiffies", "@jiffies", nil},
		{"@init_task+2416", "@init_task", []string{"+2416"}},
		{"+0(@init_task+8)", "@init_task", []string{"+8", "+0"}},
		{"@empty_fops.54+0", "@empty_fops.54", []string{"+0"}},
	} {
		f, err := tracefs.ParseFetch(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		b, o := fetchShape(f)
		if b != tt.base || !slices.Equal(o, tt.offs) {
			t.Errorf("fetchShape(%q) = %q %q, want %q %q", tt.in, b, o, tt.base, tt.offs)
		}
	}
}

func TestWithLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"f:3", "f:7"},
		{"f+12 x y=z->a", "f:7 x y=z->a"},
		{"grp:ev=f@a.c:3 x", "grp:ev=f@a.c:7 x"},
		{"a.c:30", "a.c:7"},
		{"ev=a.c:30\tx", "ev=a.c:7\tx"},
	} {
		spec, err := grammar.ParseSpec(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := withLine(spec, 7); got != tt.want {
			t.Errorf("withLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDiffCountsString(t *testing.T) {
	c := Counts{Broken: 2, Unchanged: 5, Moved: 1}
	if got, want := c.String(), "5 unchanged, 1 moved, 2 broken"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

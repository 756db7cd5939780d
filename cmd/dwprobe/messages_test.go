package main

import (
	"strings"
	"testing"
)

// TestE2EMessages pins what dwprobe says when a spec does not resolve on
// the app fixture (issue 10, "Messages that mislead"): each message names
// what went wrong in the user's terms and what to do instead.
func TestE2EMessages(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
		not  []string // must not appear
	}{
		{"member typo", []string{"-x", app, "-D", "work p->nam"},
			[]string{`p (type struct item) has no member nam; did you mean name`}, []string{"DIE"}},
		{"member DIE under -v", []string{"-v", "-x", app, "-D", "work p->idd"},
			[]string{"did you mean id", "(p is DIE 0x"}, nil},
		{"unquoted probe", []string{"-x", app, "-D", "work", "p->id"},
			[]string{`unexpected argument "p->id" after -D work: quote the whole probe, as in -D 'work p->id'`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runBin(t, c.args...)
			if code == 0 {
				t.Errorf("exit 0, want a failure")
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			for _, w := range c.not {
				if strings.Contains(errs, w) {
					t.Errorf("stderr has %q:\n%s", w, errs)
				}
			}
		})
	}
}

// TestE2EMessagesKernel: the same on the corpus vmlinux.
func TestE2EMessagesKernel(t *testing.T) {
	cases := []struct {
		arch string
		args []string
		want string
	}{
		{"amd64", []string{"-D", "vfs_read file->f_mod"}, "file (type struct file) has no member f_mod; did you mean f_mode"},
		// arm64's vfs_read symbol starts 8 bytes (NOPs) before its entry:
		// the user's +3 is the symbol's +11.
		{"arm64", []string{"-D", "vfs_read+3"}, `vfs_read+3 (symbol vfs_read+11) is not on an instruction (arm64 instructions are 4 bytes): try vfs_read+0 or vfs_read+4`},
		{"amd64", []string{"-D", "vfs_read+3"}, `vfs_read+3 is in the middle of an instruction (instructions start at vfs_read+0 and vfs_read+5)`},
	}
	for _, c := range cases {
		t.Run(c.arch+" "+strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := runKernel(t, c.arch, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestKernelSources: source lookup on the real Debian kernel — -s, the
// prefix map, lazy patterns, and short names that match several files.
func TestKernelSources(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	src := dwarftest.NeedCorpus(t, "linux")
	cases := []struct {
		name    string
		args    []string
		wantErr string
		wantOut string
	}{
		{"-L with -s", []string{"-s", src, "-L", "vfs_read:0-2"}, "", "<vfs_read@" + src + "/fs/read_write.c:0>\n      0  ssize_t vfs_read("},
		{"-L with a prefix map", []string{"--source-prefix-map", "debian/build/build_amd64_none_cloud-amd64=" + src, "-L", "vfs_read:0-2"}, "", "      0  ssize_t vfs_read("},
		{"asm with a prefix map", []string{"--source-prefix-map", "/build/reproducible-path/linux-6.1.192=" + src, "-L", "arch/x86/entry/entry_64.S:90-95"}, "", "swapgs"},
		{"-L without source", []string{"-L", "vfs_read:0-8"}, "", "      6\n      8\n"},
		{"ambiguous SRC:ALN", []string{"-D", "super.c:100"}, "matches 3 files", ""},
		{"ambiguous -L", []string{"-L", "super.c:100-110"}, "fs/ext4/super.c", ""},
		{"lazy", []string{"-s", src, "-D", "vfs_read;ret=rw_verify_area*"}, "", "p:probe/vfs_read vfs_read+"},
		{"lazy without source", []string{"-D", "vfs_read;if*"}, "give the source tree with -s", ""},
		{"lazy no match", []string{"-s", src, "-D", "vfs_read;nosuchpattern"}, "matches no line", ""},
		{"no code at line", []string{"-D", "vfs_read:3"}, "nearest probeable lines: vfs_read:0 and vfs_read:6", ""},
		{"no code, with source", []string{"-s", src, "-D", "vfs_read:7"}, "nearest probeable lines: vfs_read:6 (if (!(file->f_mode & FMODE_CAN_READ))) and vfs_read:8 (if (unlikely(!access_ok(buf, count)))) (--nearest probes vfs_read:8)", ""},
		{"--nearest", []string{"-s", src, "--nearest", "-D", "vfs_read:7 count"}, "", "p:probe/vfs_read_L7 vfs_read+63 count=%dx:x64\n"},
		{"--nearest, SRC:ALN", []string{"--nearest", "-D", "fs/read_write.c:466"}, "", "p:probe/vfs_read vfs_read+138\n"},
		{"inline-only return", []string{"-D", "fsnotify_access%return"}, "only inlined", ""},
		{"clone by name", []string{"-D", "do_sysinfo.isra.0"}, "", "p:probe/do_sysinfo do_sysinfo.isra.0+0\n"},
		{"not unique", []string{"-D", "t_show"}, "", "p:probe/t_show _text+"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), append([]string{"-k", vml}, c.args...), &out, &errb)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), c.wantOut) {
				t.Errorf("stdout %q lacks %q", out.String(), c.wantOut)
			}
		})
	}
}

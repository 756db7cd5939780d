package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// TestLineDetail: -L --detail gives each probeable line its points (the
// inlined copies with the function holding them) and the variables -V
// lists there, in one listing, as text and JSON; without -L it is refused.
func TestLineDetail(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "amd64/vmlinux")
	src := dwarftest.NeedCorpus(t, "linux")
	checkRun(t, []string{"-k", vml, "--detail", "-D", "vfs_read"}, "--detail goes with -L", "")
	checkRun(t, []string{"-k", vml, "-s", src, "-L", "vfs_read:11-12", "--detail"}, "",
		"     12  \tif (ret)\n            1 point: @<vfs_read+114>: char* buf, loff_t* pos, size_t count, ssize_t ret, struct file* file\n")
	// vfs_setpos is inlined twice into generic_file_llseek_size; the
	// points come by address.
	checkRun(t, []string{"-k", vml, "-s", src, "-L", "vfs_setpos:4-4", "--detail"}, "",
		"           3 points: @<vfs_setpos+10>: loff_t maxsize, loff_t offset, struct file* file\n"+
			"                     @<generic_file_llseek_size+42> vfs_setpos inlined: loff_t maxsize, loff_t offset, struct file* file\n"+
			"                     @<generic_file_llseek_size+185> vfs_setpos inlined: loff_t maxsize, loff_t offset, struct file* file\n")
	// Each point lists what -V lists at its line.
	for _, n := range []int{0, 6, 11, 12, 20, 24} {
		var detail, vars bytes.Buffer
		if err := run(context.Background(), []string{"-k", vml, "-L", fmt.Sprintf("vfs_read:%d-%d", n, n), "--detail", "--json"}, &detail, io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := run(context.Background(), []string{"-k", vml, "-V", fmt.Sprintf("vfs_read:%d", n), "--json"}, &vars, io.Discard); err != nil {
			t.Fatal(err)
		}
		var jl jsonLines
		var js jsonSpec
		if json.Unmarshal(detail.Bytes(), &jl) != nil || json.Unmarshal(vars.Bytes(), &js) != nil || len(jl.Lines) != 1 || len(jl.Lines[0].Points) != len(js.Vars) {
			t.Fatalf("vfs_read:%d: -L --detail %s\n-V %s", n, detail.String(), vars.String())
		}
		for i, p := range jl.Lines[0].Points {
			var got []string
			for _, v := range p.Variables {
				got = append(got, v.Type+"\t"+v.Name)
			}
			if p.Point != js.Vars[i].Point || strings.Join(got, "|") != strings.Join(js.Vars[i].Variables, "|") {
				t.Errorf("vfs_read:%d point %d: -L --detail %s %q, -V %s %q", n, i, p.Point, got, js.Vars[i].Point, js.Vars[i].Variables)
			}
		}
	}
}

// TestLineDetailPointsAreDefinitions: -L --detail names a point as -D
// writes its probe, from the function's symbol. On arm64 the symbol is
// 8 bytes (two patchable NOPs) before DW_AT_low_pc, from which -V counts
// as perf does: line 7 of submit_bio, the row of blk-core.c:848 at
// 0xffff8000085d375c, was shown @<submit_bio+100> while -D writes
// submit_bio+108. GCC inlined submit_bio into its own body; line 7
// starts in that copy at +108, and +116, the entry of count_vm_events
// called at line 7, is the middle of the same run of the line: perf 6.1
// and 6.12 probe both (two hits per run), dwprobe the line's start.
func TestLineDetailPointsAreDefinitions(t *testing.T) {
	vml := dwarftest.NeedCorpus(t, "arm64/vmlinux")
	src := dwarftest.NeedCorpus(t, "linux")
	checkRun(t, []string{"-k", vml, "-s", src, "-L", "submit_bio:7-7", "--detail"}, "",
		"            1 point: @<submit_bio+108>: struct bio* bio\n")
	checkRun(t, []string{"-k", vml, "-D", "submit_bio:7"}, "",
		"p:probe/submit_bio_L7 submit_bio+108\n")
	checkRun(t, []string{"-k", vml, "-s", src, "-V", "submit_bio:7"}, "",
		"\t@<submit_bio+100>\n")
}

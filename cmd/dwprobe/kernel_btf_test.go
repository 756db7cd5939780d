package main

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// btfSpecs are resolved from BTF: inside the guest by dwprobe -a from
// /sys/kernel/btf/vmlinux (as gb_NAME), on the host by dwprobe --btf from
// the corpus vmlinux's .BTF (as hb_NAME). Entry and return probes, members
// through pointers, a user string.
var btfSpecs = []string{
	"vfs_read=vfs_read name=file->f_path.dentry->d_name.name:string count",
	"vfs_read_ret=vfs_read%return ret=$retval",
	"open=do_sys_openat2 dfd path=filename:ustring",
}

// The file the BTF workload reads with dd, in blocks of btfBS.
const (
	btfFile = "/etc/dwprobe-btf"
	btfData = "0123456789ABC"
	btfBS   = 5
)

// btfFilter keeps the BTF probes, which fire on every read and open, to
// dd's calls.
const btfFilter = `comm == "dd"`

// btfWorkload adds the gb_ probes inside the guest, where there is no
// vmlinux and no vmlinux debuginfo, and reads btfFile with dd.
func btfWorkload() string {
	var b strings.Builder
	b.WriteString("dwprobe")
	for _, s := range btfSpecs {
		fmt.Fprintf(&b, " -a 'gb_%s'", s)
	}
	b.WriteString("\n")
	for _, ev := range btfEvents("gb_") {
		fmt.Fprintf(&b, "echo '%s' >$T/events/%s/filter\n", btfFilter, ev)
	}
	fmt.Fprintf(&b, "echo 1 >$T/events/probe/enable\ndd if=%s of=/dev/null bs=%d count=2\n", btfFile, btfBS)
	return b.String()
}

// btfEvents returns the GROUP/EVENT of each of btfSpecs under prefix; perf
// names a return probe EVENT__return.
func btfEvents(prefix string) []string {
	var out []string
	for _, s := range btfSpecs {
		ev, rest, _ := strings.Cut(s, "=")
		if strings.Contains(strings.Fields(rest)[0], "%return") {
			ev += "__return"
		}
		out = append(out, "probe/"+prefix+ev)
	}
	return out
}

// hostBTFDefs runs dwprobe --btf on the corpus vmlinux for arch (its .BTF
// is what the guest's /sys/kernel/btf/vmlinux holds; the ELF names the
// machine, which a raw blob does not) with each of btfSpecs named hb_NAME,
// and returns the definitions by event name. The workload's first lines
// set their filters (btfFilterLines).
func hostBTFDefs(t *testing.T, arch string) map[string][]string {
	t.Helper()
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	perSpec := map[string][]string{}
	for _, s := range btfSpecs {
		ev, _, _ := strings.Cut(s, "=")
		perSpec["hb_"+ev] = dwprobeDefs(t, "--btf", vml, "-D", "hb_"+s)
	}
	return perSpec
}

// btfFilterLines is the workload's start: the filters of the host's BTF
// probes, written at boot.
func btfFilterLines() string {
	var b strings.Builder
	for _, ev := range btfEvents("hb_") {
		fmt.Fprintf(&b, "echo '%s' >$T/events/%s/filter\n", btfFilter, ev)
	}
	return b.String()
}

// checkBTF checks the BTF half of TestKernelModulesBTF's guest: the guest's
// definitions equal the host's --btf ones but for their names, and both
// sets traced dd's open of btfFile and its two reads of btfBS bytes.
func checkBTF(t *testing.T, g *qemutest.Guest, btfDefs map[string][]string) {
	for _, s := range btfSpecs {
		ev, _, _ := strings.Cut(s, "=")
		host := btfDefs["hb_"+ev]
		var id string
		for _, e := range btfEvents("gb_") {
			if strings.TrimSuffix(e, "__return") == "probe/gb_"+ev {
				id = e
			}
		}
		guest := listedOf(g.Listed, id)
		if len(host) != 1 || len(guest) != 1 || defKey(renameDef(host[0], id)) != defKey(guest[0]) {
			t.Errorf("%s: the guest's BTF definition %q differs from the host's --btf one %q", ev, guest, host)
		}
	}
	for _, prefix := range []string{"gb_", "hb_"} {
		evs := btfEvents(prefix)
		read, ret, open := evs[0], evs[1], evs[2]
		opens := recordsOf(g.Trace, open, "dd", "path", btfFile)
		c := &e2eChecker{t: t, where: prefix + " BTF probes"}
		if len(opens) != 1 {
			t.Errorf("%s: %d opens of %s by dd, want 1:\n%s", c.where, len(opens), btfFile, qemutest.TraceText(qemutest.FilterEvent(g.Trace, open)))
			continue
		}
		c.recs = byTask(g.Trace, opens[0].PID)
		t.Logf("%s: dd's records:\n%s", c.where, qemutest.TraceText(filterPrefix(c.recs, "probe/"+prefix)))
		c.wantNum(opens[0], "dfd", atFDCWD)
		reads := callsOn(calls(c.recs, read, ret), read, "name", path.Base(btfFile))
		if len(reads) != 2 {
			t.Errorf("%s: %d reads of %s, want 2", c.where, len(reads), btfFile)
			continue
		}
		for _, call := range reads {
			c.wantNum(call[0], "count", btfBS)
			c.wantNum(call[len(call)-1], "ret", btfBS)
		}
	}
}

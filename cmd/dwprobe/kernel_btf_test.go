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
// through pointers (also a returned one), a user string, $params, a
// bitfield; the first three as the issue writes them, with the arguments
// named by default (the last member, NAME_TYPE, arg1 for $retval).
var btfSpecs = []string{
	"vfs_read=vfs_read file->f_path.dentry->d_name.name:string count",
	"vfs_read_ret=vfs_read%return $retval",
	"open=do_sys_openat2 dfd filename:ustring",
	"filp_ret=do_filp_open%return name=$retval->f_path.dentry->d_name.name:string",
	"ksys_read=ksys_read $params",
	"exec=setup_new_exec bprm->point_of_no_return bprm->filename:string",
}

// btfSpecsFor returns btfSpecs for the corpus kernel key: on 7.3,
// do_filp_open is do_file_open (Linux 7.0 renamed it).
func btfSpecsFor(key string) []string {
	if !strings.HasPrefix(key, "7.3/") {
		return btfSpecs
	}
	specs := make([]string, len(btfSpecs))
	for i, s := range btfSpecs {
		specs[i] = strings.ReplaceAll(s, "do_filp_open", "do_file_open")
	}
	return specs
}

// The file the BTF workload reads with dd, in blocks of btfBS; btfDD is
// run by path, so that the shell execs it.
const (
	btfFile = "/etc/dwprobe-btf"
	btfData = "0123456789ABC"
	btfBS   = 5
	btfDD   = "/bin/dd"
)

// btfFilter keeps the BTF probes, which fire on every read and open, to
// dd's calls.
const btfFilter = `comm == "dd"`

// btfWorkload adds the gb_ probes inside the guest, where there is no
// vmlinux and no vmlinux debuginfo, and reads btfFile with dd.
func btfWorkload(key string) string {
	var b strings.Builder
	// time: the BTF resolution's cost under TCG, for the log.
	b.WriteString("time dwprobe")
	for _, s := range btfSpecsFor(key) {
		fmt.Fprintf(&b, " -a 'gb_%s'", s)
	}
	b.WriteString("\n")
	b.WriteString(btfFilterLines(key, "gb_"))
	fmt.Fprintf(&b, "echo 1 >$T/events/probe/enable\n%s if=%s of=/dev/null bs=%d count=2\n", btfDD, btfFile, btfBS)
	return b.String()
}

// btfEvent returns the GROUP/EVENT of spec under prefix; perf names a
// return probe EVENT__return.
func btfEvent(prefix, spec string) string {
	ev, rest, _ := strings.Cut(spec, "=")
	if strings.Contains(strings.Fields(rest)[0], "%return") {
		ev += "__return"
	}
	return "probe/" + prefix + ev
}

// btfFilterLines returns the shell lines that set btfFilter on the events
// of btfSpecs under prefix: the workload's first lines for the host's,
// written at boot.
func btfFilterLines(key, prefix string) string {
	var b strings.Builder
	for _, s := range btfSpecsFor(key) {
		fmt.Fprintf(&b, "echo '%s' >$T/events/%s/filter\n", btfFilter, btfEvent(prefix, s))
	}
	return b.String()
}

// hostBTFDefs runs dwprobe --btf on the corpus vmlinux for arch (its .BTF
// is what the guest's /sys/kernel/btf/vmlinux holds; the ELF names the
// machine, which a raw blob does not) with each of btfSpecs named hb_NAME,
// and returns the definitions by event name.
func hostBTFDefs(t *testing.T, arch string) map[string][]string {
	t.Helper()
	vml := dwarftest.NeedCorpus(t, arch+"/vmlinux")
	perSpec := map[string][]string{}
	for _, s := range btfSpecsFor(arch) {
		ev, _, _ := strings.Cut(s, "=")
		perSpec["hb_"+ev] = dwprobeDefs(t, "--btf", vml, "-D", "hb_"+s)
	}
	return perSpec
}

// checkBTF checks the BTF half of TestKernelModulesBTF's guest: the guest's
// definitions equal the host's --btf ones but for their names, and both
// sets traced dd's exec, its open of btfFile and its two reads of btfBS
// bytes.
func checkBTF(t *testing.T, g *qemutest.Guest, key string, btfDefs map[string][]string) {
	for _, s := range btfSpecsFor(key) {
		ev, _, _ := strings.Cut(s, "=")
		host, id := btfDefs["hb_"+ev], btfEvent("gb_", s)
		guest := listedOf(g.Listed, id)
		if len(host) != 1 || len(guest) != 1 || defKey(renameDef(host[0], id)) != defKey(guest[0]) {
			t.Errorf("%s: the guest's BTF definition %q differs from the host's --btf one %q", ev, guest, host)
		}
	}
	// The guest's dwprobe said where its answers came from: it has no
	// vmlinux and no vmlinux debuginfo, only modules' debuginfo.
	if !strings.Contains(g.Workload, "/sys/kernel/btf/vmlinux") {
		t.Errorf("the guest's dwprobe -a did not say it resolved from /sys/kernel/btf/vmlinux:\n%s", g.Workload)
	}
	for _, prefix := range []string{"gb_", "hb_"} {
		checkBTFTrace(t, g.Trace, key, prefix)
	}
}

// checkBTFTrace checks the records of the BTF probes under prefix.
func checkBTFTrace(t *testing.T, trace []qemutest.Record, key, prefix string) {
	ev := map[string]string{}
	for _, s := range btfSpecsFor(key) {
		name, _, _ := strings.Cut(s, "=")
		ev[name] = btfEvent(prefix, s)
	}
	c := &e2eChecker{t: t, where: prefix + " BTF probes"}
	opens := recordsOf(trace, ev["open"], "dd", "filename_ustring", btfFile)
	if len(opens) != 1 {
		t.Errorf("%s: %d opens of %s by dd, want 1:\n%s", c.where, len(opens), btfFile, qemutest.TraceText(qemutest.FilterEvent(trace, ev["open"])))
		return
	}
	c.recs = byTask(trace, opens[0].PID)
	t.Logf("%s: dd's records:\n%s", c.where, qemutest.TraceText(filterPrefix(c.recs, "probe/"+prefix)))
	c.wantNum(opens[0], "dfd", atFDCWD)
	if r, ok := c.one(c.recs, ev["exec"], "exec"); ok {
		c.wantStr(r, "filename", btfDD)
		c.wantNum(r, "point_of_no_return", 1)
	}
	// do_filp_open returned the file of btfFile (and of /dev/null).
	if len(recordsOf(c.recs, ev["filp_ret"], "dd", "name", path.Base(btfFile))) != 1 {
		t.Errorf("%s: no do_filp_open returning the file of %s", c.where, btfFile)
	}
	reads := callsOn(calls(c.recs, ev["ksys_read"], ev["vfs_read_ret"]), ev["vfs_read"], "name", path.Base(btfFile))
	if len(reads) != 2 {
		t.Errorf("%s: %d reads of %s, want 2", c.where, len(reads), btfFile)
		return
	}
	for _, call := range reads {
		c.wantNum(call[0], "count", btfBS) // ksys_read's $params
		if r, ok := c.one(call, ev["vfs_read"], "read"); ok {
			c.wantNum(r, "count", btfBS)
		}
		c.wantNum(call[len(call)-1], "arg1", btfBS)
	}
}

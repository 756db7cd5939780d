package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/tracefs/qemutest"
)

// modSpec is a probe on a module: the module's path under
// /lib/modules/RELEASE (and under the debuginfo tree) and the spec.
type modSpec struct{ file, spec string }

// Modules of the corpus images TestKernelModulesBTF loads.
const (
	modOverlay = "kernel/fs/overlayfs/overlay.ko"
	modVfat    = "kernel/fs/fat/vfat.ko" // depends on fat
	modFat     = "kernel/fs/fat/fat.ko"
)

// hostModSpecs are defined on the host with -m PATH -D from the modules'
// debuginfo. overlay is not loaded when they are written: the kernel keeps
// its probes until the module comes (trace_kprobe_module_callback).
var hostModSpecs = []modSpec{
	{modOverlay, "km_ovl_lookup=ovl_lookup name=dentry->d_name.name:string"},
	{modOverlay, "km_ovl_read=ovl_read_iter name=iocb->ki_filp->f_path.dentry->d_name.name:string count=iter->count pos=iocb->ki_pos"},
	{modOverlay, "km_ovl_read_ret=ovl_read_iter%return ret=$retval"},
	{modVfat, "km_vfat_create=vfat_create name=dentry->d_name.name:string mode"},
	{modFat, "km_fat_write_begin=fat_write_begin name=file->f_path.dentry->d_name.name:string pos len"},
}

// hostModSpecs73 replaces, on 7.3, the specs of hostModSpecs whose
// function changed: the address_space_operations' write_begin takes the
// kiocb instead of the file since Linux 6.17.
var hostModSpecs73 = map[string]string{
	"km_fat_write_begin": "km_fat_write_begin=fat_write_begin name=iocb->ki_filp->f_path.dentry->d_name.name:string pos len",
}

// guestEarlySpec is added by dwprobe -m overlay -a before overlay is
// loaded: the kernel keeps it too.
const guestEarlySpec = "gm_ovl_early=ovl_read_iter name=iocb->ki_filp->f_path.dentry->d_name.name:string pos=iocb->ki_pos"

// guestDelSpec is added by dwprobe -m vfat -a and deleted by dwprobe -d
// before any enabling: deleting an event that was enabled would reset the
// ring buffer.
const (
	guestDelEvent = "gm_del"
	guestDelSpec  = guestDelEvent + "=vfat_create"
)

// guestModSpecs are added inside the guest by dwprobe -m NAME -a, once the
// module is loaded, from the debuginfo under /usr/lib/debug/lib/modules.
// gm_ovl_lookup is km_ovl_lookup's spec: the two definitions must match.
var guestModSpecs = []struct{ module, spec string }{
	{"overlay", "gm_ovl_lookup=ovl_lookup name=dentry->d_name.name:string"},
	{"vfat", "gm_vfat_lookup=vfat_lookup name=dentry->d_name.name:string"},
}

// guestBTFModSpec is added inside the guest by dwprobe -m fat -a, once
// fat is loaded: the guest has no debuginfo for fat, so it comes from
// fat's BTF (/sys/kernel/btf/fat on /sys/kernel/btf/vmlinux).
const guestBTFModSpec = "gm_fat_search=fat_search_long name=name:string len=name_len"

// The files of the module workload.
const (
	ovlFileA    = "dwprobe-ovl-a" // read through the overlay by the host's probes
	ovlFileB    = "dwprobe-ovl-b" // read after the guest's probes are added
	ovlData     = "overlay data 0123"
	fatFile     = "dwprobe-fat.txt"
	fatData     = "hello vfat"
	fatAbsent   = "dwprobe-fat-absent" // looked up after the guest's probes are added
	deferredMsg = "This probe might be able to register after target module is loaded"
)

// modSetup loads vfat (modprobe loads fat first, through modules.dep), the
// code page and character set vfat mounts with by default (the config's
// FAT_DEFAULT_CODEPAGE and FAT_DEFAULT_IOCHARSET) and loop before the
// definitions are written; overlay stays out.
const modSetup = "set -e\nfor m in " + modSetupList + "; do modprobe $m; done\ncut -d' ' -f1 /proc/modules\n"

// modSetupList are the modules modSetup loads.
const modSetupList = "vfat nls_cp437 nls_ascii loop"

// modWorkload exercises the modules: a vfat on a loop device (create and
// write a file), then overlay, loaded only now (after the guest's dwprobe
// added guestEarlySpec), mounted over tmpfs directories and read through
// with dd; then the guest's dwprobe adds guestModSpecs, a second file is
// read and a vfat name looked up, dwprobe -l lists the probes, and -a then
// -d leave nothing of guestDelSpec.
func modWorkload() string {
	var b strings.Builder
	fmt.Fprintf(&b, `echo "modules-before: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
echo "deferred: $(dmesg | grep -c '%s')"
echo "umask: $(umask)"
truncate -s 2M /tmp/fat.img
losetup /dev/loop0 /tmp/fat.img
mkdosfs /dev/loop0 >/dev/null
mkdir -p /mnt/fat
mount -t vfat /dev/loop0 /mnt/fat
echo -n '%s' >/mnt/fat/%s
dwprobe -m overlay -a '%s'
echo 1 >$T/events/probe/gm_ovl_early/enable
modprobe overlay
echo "modules-after: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
mkdir -p /tmp/ovl/lower /tmp/ovl/upper /tmp/ovl/work /tmp/ovl/merged
echo -n '%s' >/tmp/ovl/lower/%s
echo -n '%s' >/tmp/ovl/lower/%s
mount -t overlay overlay -o lowerdir=/tmp/ovl/lower,upperdir=/tmp/ovl/upper,workdir=/tmp/ovl/work /tmp/ovl/merged
dd if=/tmp/ovl/merged/%s of=/dev/null bs=64
`, deferredMsg, fatData, fatFile, guestEarlySpec, ovlData, ovlFileA, ovlData, ovlFileB, ovlFileA)
	for _, s := range guestModSpecs {
		fmt.Fprintf(&b, "dwprobe -m %s -a '%s'\n", s.module, s.spec)
	}
	fmt.Fprintf(&b, "dwprobe -m fat -a '%s' 2>&1\n", guestBTFModSpec)
	fmt.Fprintf(&b, `echo 1 >$T/events/probe/enable
dd if=/tmp/ovl/merged/%s of=/dev/null bs=64
ls /mnt/fat/%s 2>/dev/null || true
echo '== list'
dwprobe -l
echo '== list end'
dwprobe -m vfat -a '%s'
dwprobe -d probe:%s
`, ovlFileB, fatAbsent, guestDelSpec, guestDelEvent)
	return b.String()
}

// hostModuleDefs runs dwprobe -m PATH -D on each of hostModSpecs, PATH
// being the module's debuginfo in the corpus, and returns the definitions
// by event name.
func hostModuleDefs(t *testing.T, arch, rel string) map[string][]string {
	t.Helper()
	perSpec := map[string][]string{}
	for _, s := range hostModSpecs {
		dbg := dwarftest.NeedCorpus(t, filepath.Join(arch, "dbg", "usr", "lib", "debug", "lib", "modules", rel, s.file))
		ev, _, _ := strings.Cut(s.spec, "=")
		spec := s.spec
		if moved, ok := hostModSpecs73[ev]; ok && strings.HasPrefix(arch, "7.3/") {
			spec = moved
		}
		perSpec[ev] = dwprobeDefs(t, "-m", dbg, "-D", spec)
	}
	return perSpec
}

// dwprobeDefs runs dwprobe -q with args on the host and returns the
// definitions it printed, failing the test on an error or none.
func dwprobeDefs(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), append([]string{"-q"}, args...), &out, &errb); err != nil {
		t.Fatalf("dwprobe %q: %v\n%s", args, err, errb.String())
	}
	defs := lines(out.String())
	if len(defs) == 0 {
		t.Fatalf("dwprobe %q printed nothing", args)
	}
	return defs
}

// moduleKernels are the corpus kernels TestKernelModulesBTF boots, by
// qemutest.Boot's key.
var moduleKernels = []string{"amd64", "arm64", "6.12/amd64", "6.12/arm64", "7.3/amd64", "7.3/arm64"}

// TestKernelModulesBTF boots each corpus kernel once for issues 13 and 16.
// Modules: vfat (with fat, through modules.dep) and loop are loaded before
// the host's -m PATH definitions are written, overlay only by the workload,
// after its definitions: they fire once it is loaded. The static dwprobe
// adds more with -m NAME from the module debuginfo in the guest. BTF: the
// guest has no vmlinux and no vmlinux debuginfo; dwprobe -a resolves from
// /sys/kernel/btf/vmlinux, and the host's --btf definitions of the same
// specs are written at boot. The traced values are checked against the
// workload: the files it opens, creates and reads, the byte counts.
func TestKernelModulesBTF(t *testing.T) {
	for _, arch := range moduleKernels {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			qemutest.NeedQEMU(t, arch)
			rel := qemutest.Release(t, arch)
			bin := guestDwprobe(t, path.Base(arch))
			extra := qemutest.Modules(t, arch, append(strings.Fields(modSetupList), "overlay"), []string{"overlay", "vfat"})
			modDefs := hostModuleDefs(t, arch, rel)
			btfDefs := hostBTFDefs(t, arch)
			var defs []string
			for _, m := range []map[string][]string{modDefs, btfDefs} {
				for _, s := range slices.Sorted(maps.Keys(m)) {
					defs = append(defs, m[s]...)
				}
			}
			t.Logf("%s: host definitions:\n%s", arch, strings.Join(defs, "\n"))

			extra["/bin/dwprobe"] = bin
			qemutest.GuestFiles(t, extra, map[string]string{
				qemutest.SetupPath: modSetup,
				btfFile:            btfData,
			})
			workload := "set -e\nT=/sys/kernel/tracing\n" + btfFilterLines(arch, "hb_") + modWorkload() + btfWorkload(arch)
			g := qemutest.Boot(t, arch, defs, workload, extra)
			t.Logf("%s setup output:\n%s\nworkload output:\n%s", arch, g.Setup, g.Workload)
			for _, r := range g.Rejected {
				t.Errorf("the kernel rejected a definition:\n%s", r)
			}
			if g.SetupExit != 0 || g.WorkloadExit != 0 {
				t.Errorf("setup exit %d, workload exit %d", g.SetupExit, g.WorkloadExit)
			}
			if g.Overwritten > 0 {
				t.Errorf("the trace lost %d events", g.Overwritten)
			}
			if t.Failed() {
				t.FailNow()
			}
			var made []string
			for _, l := range g.Listed {
				if strings.Contains(l, ":probe/gm_") || strings.Contains(l, ":probe/gb_") {
					made = append(made, l)
				}
			}
			t.Logf("%s: definitions the guest's dwprobe made:\n%s", arch, strings.Join(made, "\n"))
			checkModules(t, g, arch, modDefs)
			checkBTF(t, g, arch, btfDefs)
		})
	}
}

var workloadLineRE = regexp.MustCompile(`(?m)^(modules-before|modules-after|deferred|umask): ?(.*)$`)

// workloadValues returns the name: value lines the workload printed.
func workloadValues(out string) map[string]string {
	vals := map[string]string{}
	for _, m := range workloadLineRE.FindAllStringSubmatch(out, -1) {
		vals[m[1]] = strings.TrimSpace(m[2])
	}
	return vals
}

// checkModules checks the module half of TestKernelModulesBTF's guest.
// modDefs holds the host's definitions by event name.
func checkModules(t *testing.T, g *qemutest.Guest, arch string, modDefs map[string][]string) {
	vals := workloadValues(g.Workload)
	before, after := strings.Fields(vals["modules-before"]), strings.Fields(vals["modules-after"])
	for _, m := range append(strings.Fields(modSetupList), "fat") {
		if !slices.Contains(before, m) {
			t.Errorf("setup did not load %s: modules %q", m, before)
		}
	}
	if slices.Contains(before, "overlay") || !slices.Contains(after, "overlay") {
		t.Errorf("overlay loaded before the workload (%q) or not by it (%q)", before, after)
	}
	// Each overlay definition was kept for the module to come.
	nOvl := 0
	for _, s := range hostModSpecs {
		if s.file == modOverlay {
			ev, _, _ := strings.Cut(s.spec, "=")
			nOvl += len(modDefs[ev])
		}
	}
	if vals["deferred"] != strconv.Itoa(nOvl) {
		t.Errorf("the kernel deferred %q overlay probes (%q in dmesg), want %d", vals["deferred"], deferredMsg, nOvl)
	}
	checkGuestModuleDefs(t, g.Listed, modDefs)
	checkModuleList(t, g.Workload, arch)

	c := &e2eChecker{t: t, recs: g.Trace, where: "module trace"}
	t.Logf("module records:\n%s", qemutest.TraceText(filterPrefix(g.Trace, "probe/km_", "probe/gm_")))

	// The probes written before overlay was loaded fire on the dd's
	// lookup and reads of ovlFileA: pos 0 then len(ovlData), returning
	// len(ovlData) then 0.
	ddA := recordsOf(g.Trace, "probe/km_ovl_lookup", "dd", "name", ovlFileA)
	if len(ddA) == 0 {
		t.Errorf("no km_ovl_lookup of %s by dd: the probe set before overlay was loaded did not fire", ovlFileA)
	} else {
		pid := ddA[0].PID
		reads := calls(byTask(g.Trace, pid), "probe/km_ovl_read", "probe/km_ovl_read_ret__return")
		if len(reads) != 2 {
			t.Errorf("dd (pid %d) read %s through overlay %d times, want 2:\n%s", pid, ovlFileA, len(reads), qemutest.TraceText(byTask(g.Trace, pid)))
		}
		for k, call := range reads {
			if k >= 2 {
				break
			}
			want := []int64{int64(len(ovlData)), 0}[k]
			c.wantStr(call[0], "name", ovlFileA)
			c.wantNum(call[0], "count", 64)
			c.wantNum(call[0], "pos", int64(len(ovlData))-want)
			c.wantNum(call[len(call)-1], "ret", want)
		}
	}

	// vfat_create and fat_write_begin of the shell's echo into fatFile.
	umask, err := strconv.ParseInt(vals["umask"], 8, 64)
	if err != nil {
		t.Errorf("workload's umask %q: %v", vals["umask"], err)
	}
	if r, ok := c.one(recordsOf(g.Trace, "probe/km_vfat_create", "", "name", fatFile), "probe/km_vfat_create", "create of "+fatFile); ok {
		c.wantNum(r, "mode", 0o100000|0o666&^umask)
	}
	if r, ok := c.one(recordsOf(g.Trace, "probe/km_fat_write_begin", "", "name", fatFile), "probe/km_fat_write_begin", "write of "+fatFile); ok {
		c.wantNum(r, "pos", 0)
		c.wantNum(r, "len", int64(len(fatData)))
	}

	if !strings.Contains(g.Workload, "\nRemoved event: probe:"+guestDelEvent+"\n") || len(listedOf(g.Listed, "probe/"+guestDelEvent)) != 0 {
		t.Errorf("dwprobe -d probe:%s in the guest did not remove it: kprobe_events %q", guestDelEvent, g.Listed)
	}

	// The guest's -m overlay probe added before overlay was loaded.
	early := recordsOf(g.Trace, "probe/gm_ovl_early", "dd", "name", ovlFileA)
	if len(early) != 2 {
		t.Errorf("gm_ovl_early, added by the guest before overlay was loaded: %d records of dd reading %s, want 2", len(early), ovlFileA)
	} else {
		c.wantNum(early[0], "pos", 0)
		c.wantNum(early[1], "pos", int64(len(ovlData)))
	}

	// The guest's -m NAME probes, added after the first reads.
	if len(recordsOf(g.Trace, "probe/gm_ovl_lookup", "dd", "name", ovlFileB)) == 0 {
		t.Errorf("no gm_ovl_lookup of %s by dd", ovlFileB)
	}
	if len(recordsOf(g.Trace, "probe/gm_ovl_lookup", "", "name", ovlFileA)) != 0 {
		t.Errorf("gm_ovl_lookup saw %s, looked up before it was added", ovlFileA)
	}
	if len(recordsOf(g.Trace, "probe/gm_vfat_lookup", "ls", "name", fatAbsent)) == 0 {
		t.Errorf("no gm_vfat_lookup of %s by ls", fatAbsent)
	}
	checkGuestBTFModule(t, g, c)
}

// checkGuestBTFModule checks guestBTFModSpec: added from fat's BTF (the
// note says so), it saw ls look up fatAbsent, with its length.
func checkGuestBTFModule(t *testing.T, g *qemutest.Guest, c *e2eChecker) {
	t.Helper()
	if note := "note: no debuginfo for the module fat: from BTF (/sys/kernel/btf/vmlinux; the module's from /sys/kernel/btf/fat with "; !strings.Contains(g.Workload, note) {
		t.Errorf("dwprobe -m fat -a in the guest: no %q in\n%s", note, g.Workload)
	}
	recs := recordsOf(g.Trace, "probe/gm_fat_search", "ls", "name", fatAbsent)
	if len(recs) == 0 {
		t.Errorf("no gm_fat_search (from fat's BTF) of %s by ls", fatAbsent)
		return
	}
	c.wantNum(recs[0], "len", int64(len(fatAbsent)))
}

// checkGuestModuleDefs checks what the guest's dwprobe -m NAME -a added, as
// kprobe_events lists it: one probe per spec, on MODULE:SYMBOL; gm_ovl_lookup
// equal to the host's km_ovl_lookup but for its name.
func checkGuestModuleDefs(t *testing.T, listed []string, modDefs map[string][]string) {
	t.Helper()
	for _, s := range guestModSpecs {
		ev, rest, _ := strings.Cut(s.spec, "=")
		fn, _, _ := strings.Cut(rest, " ")
		got := listedOf(listed, "probe/"+ev)
		if len(got) != 1 || !strings.Contains(defKey(got[0]), " "+s.module+":"+fn+"+") {
			t.Errorf("dwprobe -m %s -a %q in the guest: kprobe_events lists %q, want one probe on %s:%s", s.module, s.spec, got, s.module, fn)
		}
	}
	host := modDefs["km_ovl_lookup"]
	guest := listedOf(listed, "probe/gm_ovl_lookup")
	if len(host) != 1 || len(guest) != 1 || defKey(renameDef(host[0], "probe/gm_ovl_lookup")) != defKey(guest[0]) {
		t.Errorf("the guest's -m overlay definition %q differs from the host's -m PATH one %q", guest, host)
	}
}

// moduleListed is what the guest's dwprobe -l shows for each module probe:
// mapped back to the function and source file through the module's
// debuginfo in the guest (overlay's, vfat's), as listed for fat (whose
// debuginfo the guest lacks).
var moduleListed = map[string]string{
	"km_ovl_lookup":           "(on ovl_lookup@fs/overlayfs/namei.c in overlay with name)",
	"km_ovl_read":             "(on ovl_read_iter@fs/overlayfs/file.c in overlay with name count pos)",
	"km_ovl_read_ret__return": "(on ovl_read_iter%return@fs/overlayfs/file.c in overlay with ret)",
	"km_vfat_create":          "(on vfat_create@fs/fat/namei_vfat.c in vfat with name mode)",
	"gm_ovl_lookup":           "(on ovl_lookup@fs/overlayfs/namei.c in overlay with name)",
	"gm_vfat_lookup":          "(on vfat_lookup@fs/fat/namei_vfat.c in vfat with name)",
	"km_fat_write_begin":      " in fat with name pos len)",
}

var listSectionRE = regexp.MustCompile(`(?s)\n== list\n(.*)\n== list end\n`)

// moduleListedArm64 overrides moduleListed on 6.1's arm64: there a
// function's DW_AT_low_pc is 8 bytes past its symbol, after the two NOPs
// of -fpatchable-function-entry, so a kretprobe at FUNC+0 lies in no
// function's DWARF and is shown as listed, as for the vmlinux's. On
// 6.12's arm64 it is mapped to its source, as on amd64.
var moduleListedArm64 = map[string]string{
	"km_ovl_read_ret__return": "(on ovl_read_iter%return in overlay with ret)",
}

// checkModuleList checks the guest's dwprobe -l (moduleListed), and its note
// on fat's missing debuginfo.
func checkModuleList(t *testing.T, workload, arch string) {
	t.Helper()
	m := listSectionRE.FindStringSubmatch(workload)
	if m == nil {
		t.Errorf("no -l section in the workload output")
		return
	}
	wants := maps.Clone(moduleListed)
	if arch == "arm64" {
		maps.Copy(wants, moduleListedArm64)
	}
	for ev, want := range wants {
		found := false
		for _, l := range strings.Split(m[1], "\n") {
			f := strings.Fields(l)
			found = found || len(f) > 0 && f[0] == "probe:"+ev && strings.Contains(l, want)
		}
		if !found {
			t.Errorf("dwprobe -l in the guest: no probe:%s %s in\n%s", ev, want, m[1])
		}
	}
	if !strings.Contains(m[1], "note: the kprobes on module fat are shown as listed: ") {
		t.Errorf("dwprobe -l in the guest: no note on fat's missing debuginfo in\n%s", m[1])
	}
}

// listedOf returns the lines of kprobe_events that define event
// (GROUP/EVENT).
func listedOf(listed []string, event string) []string {
	var out []string
	for _, l := range listed {
		head, _, _ := strings.Cut(l, " ")
		if _, id, _ := strings.Cut(head, ":"); id == event {
			out = append(out, l)
		}
	}
	return out
}

// recordsOf returns the records of event whose argument arg is the string
// value, of task (any task if "").
func recordsOf(recs []qemutest.Record, event, task, arg, value string) []qemutest.Record {
	var out []qemutest.Record
	for _, r := range qemutest.FilterEvent(recs, event) {
		if (task == "" || r.Task == task) && r.Args[arg] == strconv.Quote(value) {
			out = append(out, r)
		}
	}
	return out
}

// byTask returns the records of pid.
func byTask(recs []qemutest.Record, pid int) []qemutest.Record {
	var out []qemutest.Record
	for _, r := range recs {
		if r.PID == pid {
			out = append(out, r)
		}
	}
	return out
}

// filterPrefix returns the records whose event starts with one of prefixes.
func filterPrefix(recs []qemutest.Record, prefixes ...string) []qemutest.Record {
	var out []qemutest.Record
	for _, r := range recs {
		for _, p := range prefixes {
			if strings.HasPrefix(r.Event, p) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

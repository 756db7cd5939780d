package btf

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ebtf "github.com/cilium/ebpf/btf"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfsym"
)

// minimalBTF is "int f(int a); static int f(long a);" in raw BTF.
func minimalBTF(t testing.TB) []byte {
	t.Helper()
	i32 := &ebtf.Int{Name: "int", Size: 4, Encoding: ebtf.Signed}
	i64 := &ebtf.Int{Name: "long", Size: 8, Encoding: ebtf.Signed}
	types := []ebtf.Type{
		&ebtf.Func{Name: "f", Linkage: ebtf.GlobalFunc, Type: &ebtf.FuncProto{Return: i32, Params: []ebtf.FuncParam{{Name: "a", Type: i32}}}},
		&ebtf.Func{Name: "f", Linkage: ebtf.StaticFunc, Type: &ebtf.FuncProto{Return: i32, Params: []ebtf.FuncParam{{Name: "a", Type: i64}}}},
		&ebtf.Func{Name: "g", Linkage: ebtf.GlobalFunc, Type: &ebtf.FuncProto{Return: i32}},
	}
	return dwarftest.BTF(t, types...)
}

// TestParseBTF pins the loader on a raw blob: functions indexed by name,
// several FUNCs of one name kept, names sorted; garbage wraps ErrNoBTF.
func TestParseBTF(t *testing.T) {
	b, err := Parse(minimalBTF(t), "blob")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.FuncNames(), " "); got != "f g" || len(b.Funcs("f")) != 2 || b.Machine != 0 {
		t.Errorf("names %q, %d f, machine %v", got, len(b.Funcs("f")), b.Machine)
	}
	for _, bad := range [][]byte{nil, []byte("not btf at all"), minimalBTF(t)[:30]} {
		if _, err := Parse(bad, "bad"); !errors.Is(err, ErrNoBTF) {
			t.Errorf("%q: %v, want ErrNoBTF", bad, err)
		}
	}
}

// TestLoadBTFFromELF pins an ELF's .BTF: the machine comes from the ELF;
// an ELF without .BTF wraps ErrNoBTF.
func TestLoadBTFFromELF(t *testing.T) {
	objcopy := dwarftest.NeedTool(t, "objcopy")
	dir := t.TempDir()
	blob := filepath.Join(dir, "blob")
	if err := os.WriteFile(blob, minimalBTF(t), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "withbtf")
	if msg, err := exec.Command(objcopy, "--add-section", ".BTF="+blob, self, out).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v: %s", err, msg)
	}
	b, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if b.Machine == 0 || len(b.Funcs("g")) != 1 {
		t.Errorf("machine %v, g %d", b.Machine, len(b.Funcs("g")))
	}
	if _, err := Load(self); !errors.Is(err, ErrNoBTF) {
		t.Errorf("no .BTF: %v, want ErrNoBTF", err)
	}
	if b, err := Load(blob); err != nil || len(b.FuncNames()) != 2 {
		t.Errorf("raw file: %v", err)
	}
}

// TestParseKallsyms pins the running kernel's symbols: text symbols of
// vmlinux only, _text, duplicates counted, notrace from ftrace's list.
func TestParseKallsyms(t *testing.T) {
	ks := "ffffffff81000000 T _text\n" +
		"ffffffff81001000 t dup\nffffffff81002000 t dup\n" +
		"ffffffff81003000 T vfs_read\nffffffff81004000 T notr\n" +
		"ffffffff82000000 D data_sym\nffffffffc0000000 t modfn\t[mod]\n"
	k, err := ParseKallsyms(strings.NewReader(ks), strings.NewReader("vfs_read\ndup\nmodfn [mod]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := k.Text(); !ok || text != 0xffffffff81000000 {
		t.Errorf("_text %#x %v", text, ok)
	}
	if n := len(k.FuncSyms("dup")); n != 2 {
		t.Errorf("dup: %d symbols", n)
	}
	for name, want := range map[string]int{"data_sym": 0, "modfn": 0, "vfs_read": 1} {
		if n := len(k.FuncSyms(name)); n != want {
			t.Errorf("%s: %d symbols, want %d", name, n, want)
		}
	}
	if nt, known := k.Notrace(k.FuncSyms("notr")[0]); !nt || !known {
		t.Errorf("notr: notrace %v known %v", nt, known)
	}
	if nt, _ := k.Notrace(k.FuncSyms("vfs_read")[0]); nt {
		t.Error("vfs_read is traceable")
	}
	hidden := "0000000000000000 T _text\n0000000000000000 t dup\n0000000000000000 t dup\n"
	k, _ = ParseKallsyms(strings.NewReader(hidden), nil)
	if _, ok := k.Text(); ok || len(k.FuncSyms("dup")) != 2 {
		t.Errorf("hidden addresses: _text known, or dup not twice (%d)", len(k.FuncSyms("dup")))
	}
	if _, known := k.Notrace(elfsym.Sym{Name: "vfs_read"}); known {
		t.Error("no ftrace list: notrace known")
	}
}

func TestParseRelease(t *testing.T) {
	for rel, want := range map[string][2]int{"6.18.44-fc-v669": {6, 18}, "6.1.0-18-amd64": {6, 1}, "5.4": {5, 4}} {
		maj, min, ok := ParseRelease(rel)
		if !ok || maj != want[0] || min != want[1] {
			t.Errorf("%s: %d.%d %v", rel, maj, min, ok)
		}
	}
	if _, _, ok := ParseRelease("linux"); ok {
		t.Error("linux: ok")
	}
}

// TestRunningBTF loads this host's /sys/kernel/btf/vmlinux.
func TestRunningBTF(t *testing.T) {
	if _, err := os.Stat(RunningPath); err != nil {
		dwarftest.Skip(t, "no %s: %v", RunningPath, err)
	}
	b, err := Load(RunningPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Funcs("vfs_read")) == 0 || len(b.FuncNames()) < 1000 {
		t.Errorf("vfs_read %d, %d functions", len(b.Funcs("vfs_read")), len(b.FuncNames()))
	}
}

// FuzzBTFLoad feeds bytes to the loader, which must never panic (the
// decoder of cilium/ebpf does on some inputs) and must answer an error
// or a BTF whose every function has a prototype.
func FuzzBTFLoad(f *testing.F) {
	raw := minimalBTF(f)
	f.Add(raw)
	f.Add(raw[:len(raw)-3])
	f.Add([]byte{0x9f, 0xeb, 1, 0, 24, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(data, "fuzz")
		if (err == nil) == (b == nil) {
			t.Fatalf("error %v and BTF %v", err, b)
		}
		if err != nil {
			return
		}
		for _, n := range b.FuncNames() {
			for _, fn := range b.Funcs(n) {
				fp := fn.Type.(*ebtf.FuncProto)
				for _, p := range fp.Params {
					_ = ebtf.UnderlyingType(p.Type)
				}
			}
		}
	})
}

// TestParseSplitBTF pins a module's BTF (/sys/kernel/btf/MODULE): split
// BTF whose types and strings continue the vmlinux's, here "int
// modfn(void)" on minimalBTF's int.
func TestParseSplitBTF(t *testing.T) {
	baseRaw := minimalBTF(t)
	base, err := Parse(baseRaw, "vmlinux")
	if err != nil {
		t.Fatal(err)
	}
	base.Machine, base.Major, base.Minor = 62, 6, 1
	intID, err := base.Spec.TypeID(base.Funcs("g")[0].Type.(*ebtf.FuncProto).Return)
	if err != nil {
		t.Fatal(err)
	}
	var last ebtf.TypeID
	for typ := range base.Spec.All() {
		id, _ := base.Spec.TypeID(typ)
		last = max(last, id)
	}
	le := binary.LittleEndian
	baseStrLen := le.Uint32(baseRaw[20:])
	var types []byte
	types = le.AppendUint32(le.AppendUint32(le.AppendUint32(types, 0), 13<<24), uint32(intID))               // FUNC_PROTO
	types = le.AppendUint32(le.AppendUint32(le.AppendUint32(types, baseStrLen+1), 12<<24|1), uint32(last+1)) // FUNC modfn
	strs := []byte("\x00modfn\x00")
	raw := []byte{0x9f, 0xeb, 1, 0}
	for _, v := range []uint32{24, 0, uint32(len(types)), uint32(len(types)), uint32(len(strs))} {
		raw = le.AppendUint32(raw, v)
	}
	raw = append(append(raw, types...), strs...)
	mod, err := ParseSplit(raw, base, "mod")
	if err != nil {
		t.Fatal(err)
	}
	if fns := mod.Funcs("modfn"); len(fns) != 1 || mod.Major != 6 || mod.Machine != 62 || len(mod.Funcs("g")) != 0 {
		t.Errorf("modfn %d, version %d.%d, machine %v, g %d", len(fns), mod.Major, mod.Minor, mod.Machine, len(mod.Funcs("g")))
	} else if ret := fns[0].Type.(*ebtf.FuncProto).Return; ret.TypeName() != "int" {
		t.Errorf("modfn returns %v", ret)
	}
	if _, err := ParseSplit(raw[:30], base, "mod"); !errors.Is(err, ErrNoBTF) {
		t.Errorf("truncated: %v", err)
	}
}

package elfsym

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// TestJumpEntries: a jump_entry's code and target are offsets from
// their own fields, negative ones too; an entry left zero is skipped.
func TestJumpEntries(t *testing.T) {
	le := binary.LittleEndian
	b := make([]byte, 3*jumpEntrySize)
	put := func(i int, code, target int32) {
		le.PutUint32(b[i*jumpEntrySize:], uint32(code))
		le.PutUint32(b[i*jumpEntrySize+4:], uint32(target))
	}
	const base = 0x1000
	put(0, -0x800, -0x404) // code 0x800, target 0xc00
	put(1, 0, 0)           // dropped
	put(2, -0x800, -0x424) // another branch to 0xc00 (code 0x820)
	got := jumpEntries(b, base, le.Uint32)
	if want := []jumpEntry{{0x800, 0xc00}, {0x820, 0xc00}}; !slices.Equal(got, want) {
		t.Errorf("jumpEntries = %#x, want %#x", got, want)
	}
}

// TestStaticBranchesCorpus: the static branch table of each kernel and
// machine, and of a module (relocated), names the block of the jump label
// in __dev_queue_xmit's `if (static_branch_unlikely(&egress_needed_key))`
// (6.1 amd64: code +377, block +944) and in nft_do_chain's nft tracing
// (6.1 amd64 nf_tables: +111, +960).
func TestStaticBranchesCorpus(t *testing.T) {
	for _, c := range []struct {
		file, fn     string
		code, target uint64 // offsets in fn; 0: any entry will do
	}{
		{"amd64/vmlinux", "__dev_queue_xmit", 377, 944},
		{"arm64/vmlinux", "__dev_queue_xmit", 0, 0},
		{"6.12/amd64/vmlinux", "__dev_queue_xmit", 0, 0},
		{"6.12/arm64/vmlinux", "__dev_queue_xmit", 0, 0},
		{"7.3/amd64/vmlinux", "__dev_queue_xmit", 0, 0},
		{"7.3/arm64/vmlinux", "__dev_queue_xmit", 0, 0},
		{"amd64/dbg/usr/lib/debug/lib/modules/RELEASE/kernel/net/netfilter/nf_tables.ko", "nft_do_chain", 111, 960},
	} {
		t.Run(c.file, func(t *testing.T) {
			file := strings.ReplaceAll(c.file, "RELEASE", dwarftest.CorpusRelease(t, "amd64"))
			o, err := elfobj.Open(dwarftest.NeedCorpus(t, file))
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			im := NewImage(o, nil)
			syms := im.Symbols().Lookup(c.fn)
			if len(syms) == 0 {
				t.Fatalf("no symbol %s", c.fn)
			}
			s := syms[0]
			n := 0
			for _, e := range im.staticBranches().byCode {
				if e.code >= s.Start && e.code < s.End {
					n++
					if c.code != 0 && e.code-s.Start == c.code && e.target-s.Start != c.target {
						t.Errorf("%s+%d jumps to %#x, want %s+%d", c.fn, c.code, e.target, c.fn, c.target)
					}
				}
			}
			if n == 0 {
				t.Errorf("no static branch in %s", c.fn)
			}
			if c.code != 0 && !slices.Contains(im.StaticBranchesTo(s.Start+c.target), s.Start+c.code) {
				t.Errorf("StaticBranchesTo(%s+%d) = %#x, want %s+%d", c.fn, c.target, im.StaticBranchesTo(s.Start+c.target), c.fn, c.code)
			}
		})
	}
}

// TestX86JumpSize: the static branch instructions x86's jump_label
// writes, NOPs and JMPs of 2 and 5 bytes; nothing else.
func TestX86JumpSize(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want uint64
	}{
		{[]byte{0x66, 0x90, 0, 0, 0}, 2},
		{[]byte{0xeb, 0x10, 0, 0, 0}, 2},
		{[]byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, 5},
		{[]byte{0xe9, 1, 2, 3, 4}, 5},
		{[]byte{0x90, 0x90, 0x90, 0x90, 0x90}, 0},
		{[]byte{0x0f, 0x1f, 0x40, 0x00, 0x00}, 0},
		{[]byte{0x66}, 0},
	} {
		if got := x86JumpSize(c.b); got != c.want {
			t.Errorf("x86JumpSize(% x) = %d, want %d", c.b, got, c.want)
		}
	}
}

// TestStaticBranchAtCorpus: 6.12 amd64's kernel_clone+213 is the NOP of
// trace_sched_process_fork's static branch (5 bytes), which the kernel
// refuses probes on; +218 after it is not a static branch.
func TestStaticBranchAtCorpus(t *testing.T) {
	o, err := elfobj.Open(dwarftest.NeedCorpus(t, "6.12/amd64/vmlinux"))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	im := NewImage(o, nil)
	s := im.Symbols().Lookup("kernel_clone")[0]
	target, size, ok := im.StaticBranchAt(s.Start + 213)
	if !ok || size != 5 || target < s.Start || target >= s.End {
		t.Errorf("StaticBranchAt(kernel_clone+213) = %#x, %d, %v; want a block in kernel_clone, 5 bytes", target, size, ok)
	}
	if _, _, ok := im.StaticBranchAt(s.Start + 218); ok {
		t.Errorf("StaticBranchAt(kernel_clone+218): a static branch")
	}
}

// TestAddrOfLinkerBounds: an index's record answers the linker's NOTYPE
// bounds (__start___jump_table, ...) as the symbol table does, so the
// static branch table is found through it without scanning the table.
func TestAddrOfLinkerBounds(t *testing.T) {
	for _, file := range []string{"amd64/vmlinux", "arm64/vmlinux"} {
		o, err := elfobj.Open(dwarftest.NeedCorpus(t, file))
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := Decode(o, Encode(o, Load(o)))
		if !ok {
			t.Fatalf("%s: the record does not decode", file)
		}
		im := NewImage(o, nil)
		for _, name := range []string{"__start___jump_table", "__stop___jump_table", "__start_mcount_loc", "linux_banner", "no_such_symbol"} {
			want, wok := im.symbolAddr(name)
			got, gok, known := rec.AddrOf(name)
			if !known || got != want || gok != wok || (name != "no_such_symbol") != wok {
				t.Errorf("%s: record's AddrOf(%s) = %#x, %v, %v; the table's %#x, %v", file, name, got, gok, known, want, wok)
			}
		}
		o.Close()
	}
}

// TestNameOffsets: every place a name starts in a string table, the
// tails of longer strings too, and nothing for a prefix.
func TestNameOffsets(t *testing.T) {
	tab := []byte("\x00foo\x00xfoo\x00foobar\x00foo\x00")
	if got, want := nameOffsets(tab, "foo"), []uint32{1, 6, 17}; !slices.Equal(got, want) {
		t.Errorf("nameOffsets(foo) = %v, want %v", got, want)
	}
	if got := nameOffsets(tab, ""); got != nil {
		t.Errorf("nameOffsets(\"\") = %v, want none", got)
	}
}

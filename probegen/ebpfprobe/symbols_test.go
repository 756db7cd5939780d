package ebpfprobe

import (
	"errors"
	"strings"
	"testing"
)

// kallsyms is a listing as /proc/kallsyms prints it: per-CPU symbols
// below the image, aliases at one address, a module's symbols after.
const kallsyms = `0000000000000000 A fixed_percpu_data
0000000000001000 A cpu_number
ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81200000 T vfs_read
ffffffff81200000 T __alias_of_vfs_read
ffffffff81200370 T vfs_write
ffffffff81400000 D proc_reg_file_ops
ffffffff81400100 D other_ops
ffffffff82000000 B _end
ffffffffc0001000 t nft_do_chain	[nf_tables]
ffffffffc0001400 t nft_other	[nf_tables]
`

// TestKernelSymbols prints addresses as the kernel's %pS does.
func TestKernelSymbols(t *testing.T) {
	k, err := ReadKernelSymbols(strings.NewReader(kallsyms))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr uint64
		want string
	}{
		{0xffffffff81200000, "vfs_read+0x0/0x370"},
		{0xffffffff81200004, "vfs_read+0x4/0x370"},
		{0xffffffff81400000, "proc_reg_file_ops+0x0/0x100"},
		{0xffffffffc0001010, "nft_do_chain+0x10/0x400 [nf_tables]"},
		{0, "0x0"},
		{0x1008, "0x1008"},                         // a per-CPU offset, not an address of the kernel's
		{0x7ffd12345678, "0x7ffd12345678"},         // user memory
		{0xffffffff82000010, "0xffffffff82000010"}, // past the image
		{0xffffffffc0001500, "0xffffffffc0001500"}, // past the module's last symbol
	} {
		if got := k.Format(c.addr); got != c.want {
			t.Errorf("Format(%#x) = %q, want %q", c.addr, got, c.want)
		}
	}
	if _, err := ReadKernelSymbols(strings.NewReader("0000000000000000 T vfs_read\n")); !errors.Is(err, ErrHiddenAddresses) {
		t.Errorf("a listing with hidden addresses: %v, want ErrHiddenAddresses", err)
	}
}

package probegen

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// TestFProbeDef: a kprobe at a function's entry or return as an fprobe,
// its registers as the $argN and $stackN they are at the entry.
func TestFProbeDef(t *testing.T) {
	x86, _ := arch.For(elf.EM_X86_64)
	arm, _ := arch.For(elf.EM_AARCH64)
	for _, c := range []struct {
		a       *arch.Arch
		def     string
		want    string // "" with msg: refused
		wantErr string
	}{
		{x86, "p:probe/vfs_read vfs_read+0 count=%dx:u64 f_mode=+12(%di):x32", "f:probe/vfs_read vfs_read count=$arg3:u64 f_mode=+12($arg1):x32", ""},
		{x86, "r:probe/vfs_read__return vfs_read+0 $retval $arg1", "f:probe/vfs_read__return vfs_read%return $retval $arg1", ""},
		{x86, "r8:probe/f f x=$retval:s32", "f8:probe/f f%return x=$retval:s32", ""},
		{x86, "p:probe/f f a7=+8(%sp):u64 s=+0(+16(%sp)):string", "f:probe/f f a7=$stack1:u64 s=+0($stack2):string", ""},
		{arm, "p:probe/f f a=%x0:s32 b=+4(%x7):u8", "f:probe/f f a=$arg1:s32 b=+4($arg8):u8", ""},
		{x86, "p:probe/f f c=(file)%di->f_mode:x32 a=\\0x10 g=@jiffies", "f:probe/f f c=(file)$arg1->f_mode:x32 a=\\0x10 g=@jiffies", ""},
		{x86, "p:probe/f f+4 a=%di", "", "not a function's entry"},
		{x86, "p:probe/f _text+1234 a=%di", "", "not a function's entry"},
		{x86, "p:probe/f ext4:ext4_sync_fs a=%di", "", "not a function's entry"},
		{x86, "p:probe/f f a=%ax", "", "%ax holds no function argument there"},
		{x86, "r:probe/f f a=%di", "", "%di holds no function argument there"},
	} {
		k, err := tracefs.ParseDefinition(tracefs.KProbe, c.def)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range k.Args { // as a spec's raw fetchargs
			k.Args[i].Read = tracefs.ReadFetch(a.Fetch)
		}
		// The kprobe's place, as resolving it gave it.
		var at answer.Attach
		if mod, sym, off, ok := tracefs.KprobeTarget(k.Target); ok {
			at = answer.Attach{Module: mod, Symbol: sym, Offset: off}
		}
		f, _, err := fprobeDef(k, at, c.a)
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%q: %v, want an error containing %q", c.def, err, c.wantErr)
		case c.wantErr == "" && (err != nil || f.String() != c.want):
			t.Errorf("%q = %q, %v; want %q", c.def, f.String(), err, c.want)
		case c.wantErr == "":
			if err := f.Validate(); err != nil {
				t.Errorf("%q: %v", f.String(), err)
			}
		}
	}
}

package elfsym

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKallsymsHasData: a kallsyms listing with data symbols by the
// thousand is CONFIG_KALLSYMS_ALL's; a few (per-CPU bounds) are not;
// an unreadable one is taken as listing them.
func TestKallsymsHasData(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data int) string {
		var b strings.Builder
		b.WriteString("ffffffff81000000 T _text\n")
		for i := 0; i < data; i++ {
			fmt.Fprintf(&b, "ffffffff82000%03x d sym%d\n", i, i)
		}
		b.WriteString("ffffffffc0000000 t ovl_lookup\t[overlay]\n")
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{write("all", 1001), true},
		{write("few", 74), false},
		{filepath.Join(dir, "missing"), true},
	} {
		if got := kallsymsHasData(c.path); got != c.want {
			t.Errorf("kallsymsHasData(%s) = %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}
}

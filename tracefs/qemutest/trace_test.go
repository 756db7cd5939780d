package qemutest

import (
	"fmt"
	"testing"
)

// TestParseTraceLine pins the trace formats the 6.1 kernels print (lines
// copied from TestQEMUSmoke's guests), including a string that looks like
// two arguments.
func TestParseTraceLine(t *testing.T) {
	events := Events{}
	for _, def := range []string{
		`p:probe/fmt do_sys_openat2 a=%di:x32 c=+0(%si):u8[4] e=$comm f=+0(%si):string g=+0(%di):string i=+0(%si):b3@2/8`,
		`r10:probe/smoke_read ksys_read ret=$retval:s64`,
	} {
		events.Add(def)
	}
	cases := []struct {
		line, task, event, loc string
		args                   map[string]string
	}{
		{`             cat-95      [000] .....     2.141068: fmt: (do_sys_openat2+0x0/0x170) a=0xffffff9c c={47,116,109,112} e="cat" f="/tmp/a" b=c" g=(fault) i=3`,
			"cat", "probe/fmt", "do_sys_openat2+0x0/0x170",
			map[string]string{"a": "0xffffff9c", "c": "{47,116,109,112}", "e": `"cat"`, "f": `"/tmp/a" b=c"`, "g": "(fault)", "i": "3"}},
		{`              dd-90      [000] .....     2.819887: smoke_read: (__arm64_sys_read+0x24/0x30 <- ksys_read) ret=7`,
			"dd", "probe/smoke_read", "__arm64_sys_read+0x24/0x30 <- ksys_read", map[string]string{"ret": "7"}},
		{`  kworker/0:1-my-12      [000] d....     2.786586: other: (do_sys_openat2+0x0/0x190) path="/x y" n=-1`,
			"kworker/0:1-my", "other", "do_sys_openat2+0x0/0x190", map[string]string{"path": `"/x y"`, "n": "-1"}},
		{`            init-1       [000] .....     2.134316: fmt_noargs: (ksys_read+0x0/0xf0)`,
			"init", "fmt_noargs", "ksys_read+0x0/0xf0", map[string]string{}},
	}
	for _, c := range cases {
		r, err := ParseTraceLine(c.line, events)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if r.Task != c.task || r.Event != c.event || r.Loc != c.loc || fmt.Sprint(r.Args) != fmt.Sprint(c.args) {
			t.Errorf("ParseTraceLine(%q) = %q %q %q %q", c.line, r.Task, r.Event, r.Loc, r.Args)
		}
	}
	for _, bad := range []string{
		`CPU:0 [LOST 12 EVENTS]`,
		`             cat-95      [000] .....     2.141068: fmt: (do_sys_openat2+0x0/0x170) a=0xffffff9c`,
		`              dd-90      [000] .....     2.819887: smoke_read: (__arm64_sys_read+0x24/0x30 <- ksys_read) val=7`,
	} {
		if r, err := ParseTraceLine(bad, events); err == nil {
			t.Errorf("ParseTraceLine(%q) = %+v, want an error", bad, r)
		}
	}
}

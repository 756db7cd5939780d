package lazymatch

import (
	"reflect"
	"testing"
)

func TestFindSource(t *testing.T) {
	files := map[string]bool{
		"/src/linux/fs/read_write.c":               true,
		"/src/linux//arch/x86/entry/entry_64.S":    true,
		"build/dir/fs/namei.c":                     true,
		"/build/reproducible-path/linux/mm/mmap.c": true,
	}
	exists := func(p string) bool { return files[p] }
	cases := []struct {
		raw, comp, prefix string
		want              string
		ok                bool
		tried             []string
	}{
		{"fs/read_write.c", "debian/build", "/src/linux", "/src/linux/fs/read_write.c", true, []string{"/src/linux/fs/read_write.c"}},
		// perf keeps the '/' it cut at: PREFIX//tail.
		{"/build/reproducible-path/linux-6.1/arch/x86/entry/entry_64.S", "", "/src/linux", "/src/linux//arch/x86/entry/entry_64.S", true, nil},
		// no prefix: a relative name only under comp_dir
		{"fs/namei.c", "build/dir", "", "build/dir/fs/namei.c", true, []string{"build/dir/fs/namei.c"}},
		{"fs/read_write.c", "debian/build", "", "", false, []string{"debian/build/fs/read_write.c"}},
		// no prefix, absolute name: as is
		{"/build/reproducible-path/linux/mm/mmap.c", "x", "", "/build/reproducible-path/linux/mm/mmap.c", true, nil},
		{"nope.c", "", "/src", "", false, []string{"/src/nope.c"}},
	}
	for _, c := range cases {
		got, tried, ok := FindSource(c.raw, c.comp, c.prefix, exists)
		if got != c.want || ok != c.ok {
			t.Errorf("FindSource(%q, %q, %q) = %q, %v; want %q, %v (tried %v)", c.raw, c.comp, c.prefix, got, ok, c.want, c.ok, tried)
		}
		if c.tried != nil && !reflect.DeepEqual(tried, c.tried) {
			t.Errorf("FindSource(%q): tried %v, want %v", c.raw, tried, c.tried)
		}
	}
}

func TestSourceTail(t *testing.T) {
	for _, c := range []struct {
		path, name string
		want       bool
	}{
		{"fs/read_write.c", "read_write.c", true},
		{"fs/read_write.c", "fs/read_write.c", true},
		{"read_write.c", "fs/read_write.c", true}, // either may be the longer
		{"fs/read_write.c", "write.c", false},     // whole components only
		{"fs/ext4/super.c", "super.c", true},
		{"fs/ext4/super.c", "4/super.c", false},
	} {
		if got := SourceTail(c.path, c.name); got != c.want {
			t.Errorf("SourceTail(%q, %q) = %v", c.path, c.name, got)
		}
	}
}

func TestMapPrefix(t *testing.T) {
	maps := []PrefixMap{{"/build/linux-6.1/", "/src/linux"}, {"debian/build", "/src/linux"}}
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"/build/linux-6.1/fs/read_write.c", "/src/linux/fs/read_write.c", true},
		{"/build/linux-6.1", "/src/linux", true},
		{"/build/linux-6.10/fs/x.c", "/build/linux-6.10/fs/x.c", false}, // not a whole component
		{"debian/build/fs/open.c", "/src/linux/fs/open.c", true},
		{"fs/open.c", "fs/open.c", false},
	} {
		got, ok := MapPrefix(c.in, maps)
		if got != c.want || ok != c.ok {
			t.Errorf("MapPrefix(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for _, bad := range []string{"", "noequals", "=x"} {
		if _, err := ParsePrefixMap(bad); err == nil {
			t.Errorf("ParsePrefixMap(%q): want an error", bad)
		}
	}
	if m, err := ParsePrefixMap("/a=/b=c"); err != nil || m != (PrefixMap{"/a", "/b=c"}) {
		t.Errorf("ParsePrefixMap: %v %v", m, err)
	}
}

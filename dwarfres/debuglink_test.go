package dwarfres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// TestDebugLinkPlaces finds the debuglink fixture's debuginfo in each
// place gdb looks: beside the binary, in .debug/, and under the global
// debug directory plus the binary's directory (here under a --symfs root).
func TestDebugLinkPlaces(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-gcc-O2-debuglink")
	dbg := filepath.Join(dir, "debuglink", "app-gcc-O2-debuglink.debug")
	for _, place := range []string{"beside", ".debug", "global"} {
		t.Run(place, func(t *testing.T) {
			root := t.TempDir()
			app := filepath.Join(root, "usr/bin/app")
			dwarftest.PlaceFile(t, bin, app)
			want := map[string]string{
				"beside": filepath.Join(root, "usr/bin/app-gcc-O2-debuglink.debug"),
				".debug": filepath.Join(root, "usr/bin/.debug/app-gcc-O2-debuglink.debug"),
				"global": filepath.Join(root, "usr/lib/debug/usr/bin/app-gcc-O2-debuglink.debug"),
			}[place]
			dwarftest.PlaceFile(t, dbg, want)
			f, err := NewRootLocator(root).Open(app)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer f.Close()
			if !f.HasDWARF() || f.dbg == nil || f.dbg.Path != want {
				t.Errorf("debuginfo attached from %v, want %s", f.dbg, want)
			}
		})
	}
}

// TestDebugLinkCRCMismatch: a file of the linked name but another CRC is
// passed over and named in a one-line error when nothing else is found.
func TestDebugLinkCRCMismatch(t *testing.T) {
	dir := fixtures(t)
	root := t.TempDir()
	app := filepath.Join(root, "app")
	dwarftest.PlaceFile(t, filepath.Join(dir, "app-gcc-O2-debuglink"), app)
	bad := filepath.Join(root, "app-gcc-O2-debuglink.debug")
	dwarftest.PlaceFile(t, filepath.Join(dir, "debuglink", "app-gcc-O2-debuglink.debug"), bad)
	fh, err := os.OpenFile(bad, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write([]byte{0})
	fh.Close()
	_, err = NewRootLocator(root).Open(app)
	var ce *locate.DebugLinkCRCError
	if !errors.As(err, &ce) || !errors.Is(err, ErrNoDebugInfo) || ce.Path != bad {
		t.Fatalf("Open = %v; want a DebugLinkCRCError on %s", err, bad)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "CRC") {
		t.Errorf("error %q: want one line naming the CRC", msg)
	}
}

// TestBuildIDMismatch: a separate file found by the binary's build-id that
// carries another id is refused naming both.
func TestBuildIDMismatch(t *testing.T) {
	dir := fixtures(t)
	app, bid, _ := dwarftest.SplitDebug(t, dir)
	other := filepath.Join(dir, "debuglink", "app-gcc-O2-debuglink.debug")
	tree := t.TempDir()
	dwarftest.PlaceFile(t, other, filepath.Join(tree, ".build-id", bid[:2], bid[2:]+".debug"))
	_, err := NewLocator(tree).Open(app)
	var me *BuildIDMismatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrNoDebugInfo) || me.Want != bid || me.Got == "" || me.Got == bid {
		t.Fatalf("Open = %v; want a BuildIDMismatchError naming %s and the other id", err, bid)
	}
	if msg := err.Error(); !strings.Contains(msg, me.Got) || !strings.Contains(msg, bid) {
		t.Errorf("error %q does not name both ids", msg)
	}
}

// TestPerfBuildIDCache finds debuginfo in perf's ~/.debug layout: by
// build-id link, and by the binary's path; a cached elf without DWARF is
// passed over.
func TestPerfBuildIDCache(t *testing.T) {
	dir := fixtures(t)
	app, bid, dbg := dwarftest.SplitDebug(t, dir)
	for _, form := range []string{"build-id", "path"} {
		t.Run(form, func(t *testing.T) {
			cache := t.TempDir()
			d := filepath.Join(cache, ".build-id", bid[:2], bid[2:])
			if form == "path" {
				d = filepath.Join(cache, app, bid)
			}
			dwarftest.PlaceFile(t, app, filepath.Join(d, "elf"))
			dwarftest.PlaceFile(t, dbg, filepath.Join(d, "debug"))
			got, tried, err := PerfBuildIDCache(cache).Find(locate.Wanted{Path: app, BuildID: bid})
			if err != nil || got != filepath.Join(d, "debug") {
				t.Errorf("find = %q (tried %q), %v; want %s/debug", got, tried, err, d)
			}
			os.Remove(filepath.Join(d, "debug"))
			if got, _, _ := PerfBuildIDCache(cache).Find(locate.Wanted{Path: app, BuildID: bid}); got != "" {
				t.Errorf("find without debug = %q; want the stripped elf passed over", got)
			}
		})
	}
}

// TestDistroDebugPaths finds a binary's debuginfo at perf 6.1's
// distribution paths by its path (under a --symfs root here): Fedora's
// PATH.debug, Ubuntu's PATH and its /usr/lib mix-up, OpenEmbedded's
// .debug/NAME beside it.
func TestDistroDebugPaths(t *testing.T) {
	bin, _, dbg := dwarftest.SplitDebug(t, fixtures(t))
	for name, place := range map[string]string{
		"fedora":       "usr/lib/debug/usr/lib/x/app.debug",
		"ubuntu":       "usr/lib/debug/usr/lib/x/app",
		"mixed-up":     "usr/lib/debug/lib/x/app",
		"openembedded": "usr/lib/x/.debug/app",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			app := filepath.Join(root, "usr/lib/x/app")
			dwarftest.PlaceFile(t, bin, app)
			dwarftest.PlaceFile(t, dbg, filepath.Join(root, place))
			f, err := NewRootLocator(root).Open(app)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer f.Close()
			if f.dbg == nil || f.dbg.Path != filepath.Join(root, place) {
				t.Errorf("debuginfo attached from %v, want %s", f.dbg, place)
			}
		})
	}
}

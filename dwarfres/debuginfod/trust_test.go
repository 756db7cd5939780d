package debuginfod

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/dwarfres/locate"
)

// TestDebuginfodUntrustedCache: a cache another user could have written
// is neither read nor written: a build-id directory that is a link (root
// would write where it points), a cached file that is a link, a cache
// directory owned by another user. The error names the path and why.
func TestDebuginfodUntrustedCache(t *testing.T) {
	elfBytes, id := smallELF(t)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(elfBytes) }))
	defer s.Close()
	cases := []struct {
		name  string
		plant func(t *testing.T, cache, elsewhere string) string // the path refused
	}{
		{"build-id directory a link", func(t *testing.T, cache, elsewhere string) string {
			p := filepath.Join(cache, id)
			if err := os.Symlink(elsewhere, p); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"cached file a link", func(t *testing.T, cache, elsewhere string) string {
			os.Mkdir(filepath.Join(cache, id), 0o700)
			os.WriteFile(filepath.Join(elsewhere, "debuginfo"), elfBytes, 0o644)
			p := filepath.Join(cache, id, "debuginfo")
			if err := os.Symlink(filepath.Join(elsewhere, "debuginfo"), p); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"cache owned by nobody", func(t *testing.T, cache, elsewhere string) string {
			if os.Geteuid() != 0 {
				dwarftest.Skip(t, "needs root to give the cache to another user")
			}
			if err := os.Chown(cache, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return cache
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cache, elsewhere := filepath.Join(t.TempDir(), "cache"), t.TempDir()
			os.Mkdir(cache, 0o700)
			refused := c.plant(t, cache, elsewhere)
			d := &Client{URLs: []string{s.URL}, Cache: cache}
			p, _, err := find(d, locate.Wanted{Path: "/bin/app", BuildID: id})
			if err == nil || p != "" || !strings.Contains(err.Error(), refused+": not trusted") || !errors.Is(err, ErrFetch) {
				t.Errorf("got %q, %v; want an error naming %s as not trusted", p, err, refused)
			}
			if files := cacheFiles(t, elsewhere); len(files) > 0 && c.name != "cached file a link" {
				t.Errorf("written through the link: %q", files)
			}
		})
	}
}

package sources

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/lazymatch"
)

// Sources finds the source files debuginfo names, for line listings and
// lazy patterns: perf's rules first (so paths print as perf prints them),
// then the prefix maps, then the current directory, which perf never
// tries. It is the one place the library reads files other than
// debuginfo.
type Sources struct {
	Root string // perf's source prefix; "" for none
	Maps []lazymatch.PrefixMap
	// Fetch, when not nil, is asked last for a source by the absolute
	// path debuginfo names (a debuginfod client): the local copy, or ""
	// and the places tried.
	Fetch func(path string) (string, []string)
	// fetched maps a fetched copy to the path debuginfo names, which
	// listings show; specs resolving at once share it.
	mu      sync.Mutex
	fetched map[string]string
}

// New is the Sources under root (perf's source prefix, "" for none)
// with the OLD=NEW prefix maps parsed.
func New(root string, maps []string) (*Sources, error) {
	s := &Sources{Root: root}
	for _, m := range maps {
		pm, err := lazymatch.ParsePrefixMap(m)
		if err != nil {
			return nil, err
		}
		s.Maps = append(s.Maps, pm)
	}
	return s, nil
}

// SourceError reports a source file that was needed and not found. It
// wraps fs.ErrNotExist.
type SourceError struct {
	File  string   // as the line table names it
	Tried []string // every path tried
	// Hint says what the user can do, in the caller's terms ("" for none).
	Hint string
}

func (e *SourceError) Error() string {
	s := fmt.Sprintf("lazy pattern needs the source of %s: not found (tried %s", e.File, strings.Join(e.Tried, ", "))
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s + ")"
}

func (e *SourceError) Unwrap() error { return fs.ErrNotExist }

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Find returns the path of the source file raw of a unit compiled in
// compDir, or every path tried.
func (s *Sources) Find(raw, compDir string) (string, []string, bool) {
	if rel, ok := compDirRelative(raw, compDir); ok && s.Root != "" {
		if p := s.Root + "/" + rel; isFile(p) {
			return p, []string{p}, true
		}
	}
	p, tried, ok := lazymatch.FindSource(raw, compDir, s.Root, isFile)
	if ok {
		return p, tried, true
	}
	full := raw
	if !filepath.IsAbs(raw) && compDir != "" {
		full = compDir + "/" + raw
	}
	for _, c := range []string{full, raw} {
		if m, ok := lazymatch.MapPrefix(c, s.Maps); ok {
			tried = append(tried, m)
			if isFile(m) {
				return m, tried, true
			}
		}
	}
	if !filepath.IsAbs(raw) && s.Root == "" {
		tried = append(tried, raw)
		if isFile(raw) {
			return raw, tried, true
		}
	}
	if s.Fetch != nil && filepath.IsAbs(full) {
		p, more := s.Fetch(full)
		tried = append(tried, more...)
		if p != "" {
			s.remember(p, full)
			return p, tried, true
		}
	}
	return "", tried, false
}

// compDirRelative is raw relative to the unit's compilation directory,
// when raw lies under it: the name elfutils, whose names perf searches
// under -s, gives a file of a relative include directory of a DWARF 4
// line table (rustc's "rust/kernel" holding lib.rs), which debug/dwarf
// and dwarfres join to the compilation directory (Debian's 7.3 kernel:
// debian/build/build_amd64_none_cloud-amd64/rust/kernel/lib.rs in the
// relative debian/build/build_amd64_none_cloud-amd64). perf finds
// ROOT/rust/kernel/lib.rs at its first try, where the joined name is only
// found cut down to ROOT//rust/kernel/lib.rs.
func compDirRelative(raw, compDir string) (string, bool) {
	if compDir == "" {
		return "", false
	}
	rel, ok := strings.CutPrefix(raw, strings.TrimSuffix(compDir, "/")+"/")
	if !ok || rel == "" {
		return "", false
	}
	return rel, true
}

func (s *Sources) remember(local, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fetched == nil {
		s.fetched = map[string]string{}
	}
	s.fetched[local] = name
}

// Shown is the path a listing shows for the file Find returned: a
// fetched copy is shown by the path debuginfo names.
func (s *Sources) Shown(p string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.fetched[p]; ok {
		return n
	}
	return p
}

// DeclText is the ResolveOptions.DeclText reader: a function
// declaration's line and the one before it (where "static inline" or
// "notrace" often stands alone), from the source s finds.
func (s *Sources) DeclText(file, compDir string, line int) (string, bool) {
	ls, ok := s.lines(file, compDir, line-1, line)
	if !ok {
		return "", false
	}
	return ls[0] + "\n" + ls[1], true
}

// LineText is the ResolveOptions.LineText reader: source line line of
// file, from the source s finds.
func (s *Sources) LineText(file, compDir string, line int) (string, bool) {
	ls, ok := s.lines(file, compDir, line, line)
	if !ok {
		return "", false
	}
	return ls[0], true
}

// lines reads lines from..to of file (1-based; a from of 0 reads as an
// empty line), false when the file or line to is not there.
func (s *Sources) lines(file, compDir string, from, to int) ([]string, bool) {
	p, _, ok := s.Find(file, compDir)
	if !ok || to < 1 {
		return nil, false
	}
	fp, err := elfobj.OpenRegular(p) // a FIFO in a source tree must not hang the run
	if err != nil {
		return nil, false
	}
	defer fp.Close()
	sc := bufio.NewScanner(fp)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	out := make([]string, to-from+1)
	for n := 1; sc.Scan(); n++ {
		if n >= from {
			out[n-from] = sc.Text()
		}
		if n == to {
			return out, true
		}
	}
	return nil, false
}

// LazyLines returns the ResolveOptions.LazyLines reader for pattern pat:
// the line numbers of a source file that match, as perf's
// find_lazy_match_lines. A missing file is a *SourceError.
func (s *Sources) LazyLines(pat string) func(file, compDir string) (map[int]bool, error) {
	return func(file, compDir string) (map[int]bool, error) {
		p, tried, ok := s.Find(file, compDir)
		if !ok {
			return nil, &SourceError{File: file, Tried: tried}
		}
		fp, err := elfobj.OpenRegular(p)
		if err != nil {
			return nil, err
		}
		defer fp.Close()
		lines := map[int]bool{}
		sc := bufio.NewScanner(fp)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if lazymatch.Lazy(sc.Text(), pat) {
				lines[n] = true
			}
		}
		return lines, sc.Err()
	}
}

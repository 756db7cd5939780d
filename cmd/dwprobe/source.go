package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
)

// sources finds the source files debuginfo names: perf's rules first (so
// paths print as perf prints them), then --source-prefix-map, then the
// current directory, which perf never tries.
type sources struct {
	root string
	maps []lazymatch.PrefixMap
}

func newSources(o *options) (*sources, error) {
	s := &sources{root: o.source}
	for _, m := range o.prefixMaps {
		pm, err := lazymatch.ParsePrefixMap(m)
		if err != nil {
			return nil, err
		}
		s.maps = append(s.maps, pm)
	}
	return s, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// find returns the path of the source file raw of a unit compiled in
// compDir, or every path tried.
func (s *sources) find(raw, compDir string) (string, []string, bool) {
	p, tried, ok := lazymatch.FindSource(raw, compDir, s.root, isFile)
	if ok {
		return p, tried, true
	}
	full := raw
	if !filepath.IsAbs(raw) && compDir != "" {
		full = compDir + "/" + raw
	}
	for _, c := range []string{full, raw} {
		if m, ok := lazymatch.MapPrefix(c, s.maps); ok {
			tried = append(tried, m)
			if isFile(m) {
				return m, tried, true
			}
		}
	}
	if !filepath.IsAbs(raw) && s.root == "" {
		tried = append(tried, raw)
		if isFile(raw) {
			return raw, tried, true
		}
	}
	return "", tried, false
}

// lazyLines returns the Query.LazyLines callback for pattern pat: the
// line numbers of a source file that match, as perf's find_lazy_match_lines.
func (s *sources) lazyLines(pat string) func(file, compDir string) (map[int]bool, error) {
	return func(file, compDir string) (map[int]bool, error) {
		p, tried, ok := s.find(file, compDir)
		if !ok {
			return nil, fmt.Errorf("lazy pattern needs the source of %s: not found (tried %s; give the source tree with -s)", file, strings.Join(tried, ", "))
		}
		fp, err := os.Open(p)
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

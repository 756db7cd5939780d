package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// fleetBuild is one build of a --fleet file: a kernel named by the
// build-id of its debuginfo (fetched through debuginfod) or by the path
// of its vmlinux, with the root of its source tree when given.
type fleetBuild struct {
	Name    string // as reports name it: the line's NAME, else its BUILD
	BuildID string // lower-case hex; "" when Path names the build
	Path    string
	Source  string
	Line    int // 1-based line of the fleet file
}

// errFleetFile: a --fleet file is not a list of builds.
var errFleetFile = errors.New("not a fleet file")

// buildIDPattern is a GNU build-id as debuginfod names it: hex, an even
// number of digits (SHA-1's 40 most often; 16 at least, as xxhash's).
var buildIDPattern = regexp.MustCompile(`^(?:[0-9a-fA-F]{2}){8,64}$`)

// isBuildID reports whether a fleet file's BUILD is a build-id rather
// than a path: hex, and no file of that name exists.
func isBuildID(s string) bool {
	if !buildIDPattern.MatchString(s) {
		return false
	}
	_, err := os.Stat(s)
	return err != nil
}

// parseFleet reads a fleet file: one build a line, "BUILD", "NAME BUILD"
// or "NAME BUILD SOURCE", BUILD a build-id or a vmlinux path; blank lines
// and lines starting with '#' are skipped. Names are unique.
func parseFleet(r io.Reader, file string) ([]fleetBuild, error) {
	var out []fleetBuild
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		var b fleetBuild
		switch len(f) {
		case 1:
			b.Name, b.Path = f[0], f[0]
		case 2, 3:
			b.Name, b.Path = f[0], f[1]
			if len(f) == 3 {
				b.Source = f[2]
			}
		default:
			return nil, fmt.Errorf("%s:%d: %w: %d words, want BUILD, NAME BUILD or NAME BUILD SOURCE", file, n, errFleetFile, len(f))
		}
		if isBuildID(b.Path) {
			b.BuildID, b.Path = strings.ToLower(b.Path), ""
		}
		if prev, ok := seen[b.Name]; ok {
			return nil, fmt.Errorf("%s:%d: %w: build %s is named on line %d too", file, n, errFleetFile, b.Name, prev)
		}
		seen[b.Name] = n
		b.Line = n
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: no builds (only blank lines and comments)", file, errFleetFile)
	}
	return out, nil
}

// readFleet reads the fleet file path.
func readFleet(path string) ([]fleetBuild, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseFleet(f, path)
}

package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dwprobe/dwprobe/probegen"
)

// expandLongOpts writes out the long options of args in full, as perf's
// parse-options accepts them ("--lis" is "--list"), before pflag, which
// only knows whole names. An unknown option is refused with the closest
// name, an ambiguous prefix with its candidates. Option arguments are
// passed over, so "-D --x" stays a probe named "--x".
func expandLongOpts(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			f, err := longFlag(fs, name)
			if err != nil {
				return nil, err
			}
			a = "--" + f.Name
			if hasVal {
				a += "=" + val
			}
			if takes, optional := takesArg(f); takes && !optional && !hasVal && i+1 < len(args) {
				out = append(out, a)
				a = args[i+1]
				i++
			}
		case len(a) > 1 && a[0] == '-' && shortTakesNext(fs, a[1:]) && i+1 < len(args):
			out = append(out, a)
			a = args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out, nil
}

// shortTakesNext reports whether the cluster of short options ("nx" of
// "-nx") ends with one that takes the next word as its argument.
func shortTakesNext(fs *pflag.FlagSet, cluster string) bool {
	for j := 0; j < len(cluster); j++ {
		if cluster[j] == '=' {
			return false
		}
		f := fs.ShorthandLookup(cluster[j : j+1])
		if f == nil {
			return false // pflag says it is unknown
		}
		if takes, optional := takesArg(f); takes && !optional {
			return j == len(cluster)-1
		}
	}
	return false
}

// longFlag finds the flag a long option names, in full or by a unique
// prefix.
func longFlag(fs *pflag.FlagSet, name string) (*pflag.Flag, error) {
	if f := fs.Lookup(name); f != nil {
		return f, nil
	}
	var cands []string
	if name != "" {
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, name) {
				cands = append(cands, f.Name)
			}
		})
	}
	switch len(cands) {
	case 1:
		return fs.Lookup(cands[0]), nil
	case 0:
		msg := fmt.Sprintf("unknown option --%s", name)
		if c := closestFlag(fs, name); c != "" {
			msg += fmt.Sprintf("; did you mean --%s?", c)
		}
		return nil, &usageError{fmt.Errorf("%s (see dwprobe --help)", msg)}
	}
	sort.Strings(cands)
	return nil, &usageError{fmt.Errorf("option --%s is ambiguous: --%s (see dwprobe --help)",
		name, strings.Join(cands, ", --"))}
}

// closestFlag is the long option nearest to name, if one is near enough
// to be what was meant.
func closestFlag(fs *pflag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if c := probegen.Closest(name, names, 1); len(c) > 0 {
		return c[0]
	}
	return ""
}

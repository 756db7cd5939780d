package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// flagDoc is what the flag definitions in newFlags do not say about a flag:
// the name of its argument in --help, the man page and zsh's completion,
// and what shells complete it with ("file", "dir", "func" for function
// names from -F, "shell" for a shell name, "" for nothing).
type flagDoc struct {
	arg      string
	complete string
}

var flagDocs = map[string]flagDoc{
	"vmlinux":           {"VMLINUX", "file"},
	"btf":               {"FILE", "file"},
	"exec":              {"PATH", "file"},
	"module":            {"MODULE", ""},
	"source":            {"DIR", "dir"},
	"source-prefix-map": {"OLD=NEW", ""},
	"definition":        {"PROBE", "func"},
	"add":               {"PROBE", "func"},
	"del":               {"[GROUP:]EVENT", ""},
	"list":              {"[GROUP:]EVENT", ""},
	"apply":             {"FILE", "file"},
	"line":              {"RANGE", "func"},
	"vars":              {"PROBE", "func"},
	"funcs":             {"FILTER", ""},
	"filter":            {"FILTER", ""},
	"max-probes":        {"N", ""},
	"symfs":             {"DIR", "dir"},
	"target-ns":         {"PID", ""},
	"debuginfod":        {"URLS", ""},
	"completion":        {"SHELL", "shell"},
	"diff":              {"NEW", "file"},
	"diff-source":       {"DIR", "dir"},
	"fleet":             {"FILE", "file"},
	"fleet-jobs":        {"N", ""},
	"junit":             {"FILE", "file"},
}

// takesArg reports whether f takes an argument, and whether it may go
// without one (-F, -l).
func takesArg(f *pflag.Flag) (takes, optional bool) {
	switch f.Value.Type() {
	case "bool", "count":
		return false, false
	}
	return true, f.NoOptDefVal != ""
}

// argName is the name of f's argument.
func argName(f *pflag.Flag) string {
	if d, ok := flagDocs[f.Name]; ok && d.arg != "" {
		return d.arg
	}
	return strings.ToUpper(f.Name)
}

// optionSyntax is how f is written: "-k, --vmlinux=VMLINUX",
// "-F, --funcs[=FILTER]", "    --range".
func optionSyntax(f *pflag.Flag) string {
	s := "    "
	if f.Shorthand != "" {
		s = "-" + f.Shorthand + ", "
	}
	s += "--" + f.Name
	switch takes, optional := takesArg(f); {
	case optional:
		s += "[=" + argName(f) + "]"
	case takes:
		s += "=" + argName(f)
	}
	return s
}

// flagHelp is f's description, with its default when it has one worth
// saying.
func flagHelp(f *pflag.Flag) string {
	if takes, optional := takesArg(f); takes && !optional {
		switch f.DefValue {
		case "", "[]", "0":
		default:
			return fmt.Sprintf("%s (default %s)", f.Usage, f.DefValue)
		}
	}
	return f.Usage
}

// visibleFlags are the flags in definition order, hidden ones left out.
func visibleFlags(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}

// writeHelp prints --help: the synopsis, the options from the flag set
// and the exit statuses.
func writeHelp(w io.Writer, fs *pflag.FlagSet) {
	const width = 30
	fmt.Fprint(w, usageHead)
	for _, f := range visibleFlags(fs) {
		syn := "  " + optionSyntax(f)
		if len(syn) < width {
			fmt.Fprintf(w, "%-*s%s\n", width, syn, flagHelp(f))
		} else {
			fmt.Fprintf(w, "%s\n%*s%s\n", syn, width, "", flagHelp(f))
		}
	}
	fmt.Fprint(w, "\nExit status:\n")
	for _, c := range exitCodes {
		fmt.Fprintf(w, "  %d  %s\n", c.code, c.what)
	}
}

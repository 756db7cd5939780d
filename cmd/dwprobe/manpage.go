package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// writeMan prints dwprobe(1) in roff, from the same flag set, synopsis and
// exit statuses as --help.
func writeMan(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, ".TH DWPROBE 1 \"\" %q \"User Commands\"\n", version())
	fmt.Fprint(w, ".SH NAME\ndwprobe \\- turn source-level probe specs into kprobe and uprobe definitions from DWARF, like perf probe\n")
	fmt.Fprint(w, ".SH SYNOPSIS\n.B dwprobe\n[\\fIOPTIONS\\fR] \\fIPROBE\\fR [\\fIARG\\fR...]\n")
	fmt.Fprint(w, ".SH DESCRIPTION\n.nf\n")
	for _, l := range manDescription() {
		fmt.Fprintln(w, roffLine(l))
	}
	fmt.Fprint(w, ".fi\n.SH OPTIONS\n")
	for _, f := range visibleFlags(fs) {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roffText(optionSyntax(f)), roffLine(flagHelp(f)))
	}
	fmt.Fprint(w, ".SH EXIT STATUS\n")
	for _, c := range exitCodes {
		fmt.Fprintf(w, ".TP\n.B %d\n%s\n", c.code, roffLine(c.what))
	}
	fmt.Fprint(w, ".SH SEE ALSO\n.BR perf-probe (1)\n")
}

// manDescription is --help's text between the usage line and the options.
func manDescription() []string {
	body := strings.TrimSuffix(usageHead, "Options:\n")
	_, body, _ = strings.Cut(body, "\n")
	return strings.Split(strings.Trim(body, "\n"), "\n")
}

// roffText escapes what roff would read as its own: backslashes and
// hyphens (which it may turn into dashes).
func roffText(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// roffLine is roffText for a whole input line: a leading '.' or '\” would
// be a request.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

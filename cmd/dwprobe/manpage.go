package main

import (
	_ "embed"
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
	writeReference(w, reference)
	fmt.Fprint(w, ".SH SEE ALSO\n.BR perf-probe (1)\n")
}

// reference is the reference (every mode, the JSON schema, how each is
// checked), markdown, which README.md points to: the man page's
// REFERENCE section.
//
//go:embed reference.md
var reference string

// writeReference writes the markdown md as roff: its title as the
// REFERENCE section, its headings as subsections (a top-level one in
// capitals), code blocks and tables as they are, no fill, and the rest
// as filled text, a blank line a paragraph break.
func writeReference(w io.Writer, md string) {
	fmt.Fprint(w, ".SH REFERENCE\n")
	code := false
	for i, l := range strings.Split(strings.TrimRight(md, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			if code {
				fmt.Fprint(w, ".fi\n")
			} else {
				fmt.Fprint(w, ".nf\n")
			}
			code = !code
		case code:
			fmt.Fprintln(w, roffLine(l))
		case i == 0 && strings.HasPrefix(l, "# "):
			// The title: the section itself.
		case strings.HasPrefix(l, "## "):
			fmt.Fprintf(w, ".SS %s\n", roffText(strings.ToUpper(strings.TrimPrefix(l, "## "))))
		case strings.HasPrefix(l, "#"):
			fmt.Fprintf(w, ".SS %s\n", roffText(strings.TrimLeft(l, "# ")))
		case strings.TrimSpace(l) == "":
			fmt.Fprint(w, ".PP\n")
		case strings.HasPrefix(l, "|"):
			fmt.Fprintf(w, ".nf\n%s\n.fi\n", roffLine(l))
		default:
			fmt.Fprintln(w, roffLine(strings.TrimLeft(l, " ")))
		}
	}
	if code {
		fmt.Fprint(w, ".fi\n")
	}
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

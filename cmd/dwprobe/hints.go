package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sources"
)

// withHints words the library errors that say what the user can do in
// dwprobe's options: the libraries carry the data, not the flag names. The
// errors are filled in place, which shows in the message because the
// wrappers between (probegen.PointError) format it only when asked.
// Under -v, internals the messages leave out (DIE offsets) are added.
func withHints(err error, o *options) error {
	var se *grammar.SyntaxError
	if o.verbose > 0 && errors.As(err, &se) && se.Detail != "" && !strings.HasSuffix(se.Msg, ")") {
		se.Msg += " (" + se.Detail + ")"
	}
	var src *sources.SourceError
	if errors.As(err, &src) && src.Hint == "" {
		src.Hint = sourceHint(o)
	}
	var many *probegen.TooManyError
	if errors.As(err, &many) && many.Limit == "" {
		many.Limit = "--max-probes"
	}
	var pe *dwarfres.ProbeError
	if errors.As(err, &pe) && errors.Is(pe.Err, dwarfres.ErrTooMany) && pe.Hint == "" {
		pe.Hint = "raise --max-probes"
	}
	var nd *probegen.NeedsDebuginfoError
	if errors.As(err, &nd) && nd.Tried == "" {
		nd.Tried = debuginfoTried(nd.Missing)
	}
	var dec *probegen.DecodeError
	if errors.As(err, &dec) && dec.Hint == "" {
		dec.Hint = "probe " + dec.Func + " at its entry or at a line (-L " + dec.Func + " lists them) instead"
	}
	var nc *probegen.NoCodeError
	if errors.As(err, &nc) && nc.Hint == "" && nc.Outside == "" && nc.Suggested != nil {
		nc.Hint = "--nearest probes " + nc.Suggested.Spec
	}
	var ee *dwarfres.ExpandError
	if errors.As(err, &ee) && ee.Hint == "" {
		ee.Hint = fmt.Sprintf("if it is a real module, decompress it (%s) and give the uncompressed file, which has no such bound", decompressCmd(ee.Codec, ee.Path))
	}
	var lazy *probegen.LazyMissError
	if errors.As(err, &lazy) && lazy.Hint == "" && lazy.Function != "" && len(lazy.Lines) > 0 {
		lazy.Hint = "see -L " + lazy.Function
	}
	return err
}

// unexpectedArgs refuses words after the options of a command that takes
// its probe as an option's value: most likely the probe was not quoted
// (-D work p->id), so the suggestion quotes it whole.
func unexpectedArgs(o *options, rest []string) error {
	flag, last := "", ""
	switch {
	case len(o.defs) > 0:
		flag, last = "-D", o.defs[len(o.defs)-1]
	case len(o.vars) > 0:
		flag, last = "-V", o.vars[len(o.vars)-1]
	case o.line != "":
		flag, last = "-L", o.line
	}
	if flag == "" {
		return fmt.Errorf("unexpected argument %q: only adding takes a PROBE without an option", rest[0])
	}
	whole := last + " " + strings.Join(rest, " ")
	return fmt.Errorf("unexpected argument %q after %s %s: quote the whole probe, as in %s %s",
		rest[0], flag, last, flag, shellQuote(whole))
}

// shellQuote quotes s for a POSIX shell with single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sourceHint says what to do about a source file not found.
func sourceHint(o *options) string {
	if o.source != "" {
		return "the tree given with -s " + o.source + " does not hold it: give the tree the binary was built from"
	}
	return "give the source tree with -s"
}

// checkSourceDir refuses a -s that is not a directory up front, rather
// than warning later that the sources were not found.
func checkSourceDir(dir string) error { return checkSourceDirOf("-s", dir) }

// checkSourceDirOf is checkSourceDir for the source tree option opt (-s,
// --diff-source).
func checkSourceDirOf(opt, dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("source tree (%s): %w", opt, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("source tree (%s) %s is not a directory", opt, dir)
	}
	return nil
}

// decompressCmd is the command that decompresses path, compressed with
// codec, beside it.
func decompressCmd(codec, path string) string {
	switch codec {
	case "gzip":
		return "gzip -dk " + path
	case "xz":
		return "xz -dk " + path
	}
	return "zstd -d " + path
}

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// shown is the option that asks for a text about dwprobe instead of a
// run (--help, --version, --man, --completion), or "".
func shown(fs *pflag.FlagSet) string {
	for _, n := range []string{"help", "version", "man", "completion"} {
		if fs.Changed(n) {
			return n
		}
	}
	return ""
}

// show prints what o.show asks for on stdout: these are answers, not
// errors, so "dwprobe --help | less" works and the status is 0.
func show(o *options, stdout io.Writer) error {
	fs := newFlags(&options{}, io.Discard)
	switch o.show {
	case "help":
		writeHelp(stdout, fs)
	case "version":
		fmt.Fprintln(stdout, version())
	case "man":
		writeMan(stdout, fs)
	case "completion":
		return writeCompletion(stdout, fs, o.completion)
	}
	return nil
}

// asUsage marks an error of the command line as a usage error.
func asUsage(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return &usageError{err}
}

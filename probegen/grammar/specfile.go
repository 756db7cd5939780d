package grammar

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxSpecLine is the longest line a spec file may hold, in bytes: far
// beyond any probe command (tracefs itself takes at most a page per
// definition), small enough that a binary file given by mistake fails
// fast.
const MaxSpecLine = 64 << 10

// ErrLineTooLong: a spec file line is longer than MaxSpecLine.
var ErrLineTooLong = errors.New("line too long")

// SpecLine is one probe command of a spec file.
type SpecLine struct {
	Line   int    // 1-based line number in the file
	Indent int    // bytes of leading blanks stripped before Text
	Text   string // the command, without surrounding blanks or a CR
}

// SpecFileError is a spec file that cannot be read past Line.
type SpecFileError struct {
	Line int
	Err  error
}

func (e *SpecFileError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *SpecFileError) Unwrap() error { return e.Err }

// ReadSpecs reads a spec file: one probe command per line, as -D and -a
// take them. Blank lines and lines whose first non-blank character is
// '#' are skipped (no perf probe command starts with '#'); blanks (space,
// tab) around a command and a CR before the newline are stripped, so
// that files written on Windows read the same, as is a UTF-8 byte-order
// mark at the start of the file (Notepad's). A line longer than
// MaxSpecLine is an error wrapping ErrLineTooLong; the commands are not
// parsed here.
func ReadSpecs(r io.Reader) ([]SpecLine, error) {
	var out []SpecLine
	err := ScanSpecs(r, func(l SpecLine) error {
		out = append(out, l)
		return nil
	})
	return out, err
}

// ScanSpecs is ReadSpecs calling fn with each command as it is read,
// for a file of any length; an error of fn ends the scan and is returned.
func ScanSpecs(r io.Reader, fn func(SpecLine) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxSpecLine)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if n == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if l, ok := specLine(n, text); ok {
			if err := fn(l); err != nil {
				return err
			}
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return &SpecFileError{Line: n + 1, Err: fmt.Errorf("%w (more than %d bytes)", ErrLineTooLong, MaxSpecLine)}
	case err != nil:
		return &SpecFileError{Line: n + 1, Err: err}
	}
	return nil
}

// specLine strips line number n down to its command; ok is false for a
// blank or comment line.
func specLine(n int, s string) (SpecLine, bool) {
	s = strings.TrimSuffix(s, "\r")
	t := strings.TrimLeft(s, " \t")
	indent := len(s) - len(t)
	t = strings.TrimRight(t, " \t")
	if t == "" || t[0] == '#' {
		return SpecLine{}, false
	}
	return SpecLine{Line: n, Indent: indent, Text: t}, true
}

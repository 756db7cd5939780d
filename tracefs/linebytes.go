package tracefs

import (
	"fmt"
	"strconv"
)

// The one rule for the bytes of a definition line: what the kernel's
// reader (trace_parse_run_command, then argv_split over the kernel's
// ctype table) makes of each byte. A whole line (byteProblem), a field of
// it (fieldProblem) and probegen's probe commands all ask LineByte.

// ByteKind is what a byte of a definition line is to the kernel.
type ByteKind uint8

// The kinds of bytes; a byte is of exactly one.
const (
	PlainByte   ByteKind = iota // part of its field
	SpaceByte                   // ' ': separates fields
	NewlineByte                 // ends the command and starts a second one
	NULByte                     // ends the command
	ControlByte                 // any other ASCII control character or DEL
	CommentByte                 // '#': starts a comment, the rest is dropped
	NBSPByte                    // 0xa0: Latin-1 NBSP, a space to the kernel
)

// LineByte is the kind of byte c in a definition line.
func LineByte(c byte) ByteKind {
	switch {
	case c == ' ':
		return SpaceByte
	case c == '\n':
		return NewlineByte
	case c == 0:
		return NULByte
	case c < 0x20 || c == 0x7f:
		return ControlByte
	case c == '#':
		return CommentByte
	case c == 0xa0:
		// The kernel's ctype table counts Latin-1 NBSP as a space, so
		// argv_split would cut a field there (a UTF-8 "à", c3 a0, in two).
		return NBSPByte
	}
	return PlainByte
}

// Control reports the ASCII control characters and DEL, newline and NUL
// included.
func (k ByteKind) Control() bool {
	return k == NewlineByte || k == NULByte || k == ControlByte
}

// byteProblem says why line can't be written as one command, and at which
// byte, or "" if it can.
func byteProblem(line string) (string, int) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch LineByte(c) {
		case NewlineByte:
			return fmt.Sprintf("newline at byte %d would start a second command", i), i
		case NULByte:
			return fmt.Sprintf("NUL at byte %d would end the command", i), i
		case ControlByte:
			return fmt.Sprintf("control character %q at byte %d", rune(c), i), i
		case CommentByte:
			return fmt.Sprintf("'#' at byte %d would start a comment and drop the rest", i), i
		case NBSPByte:
			return fmt.Sprintf("byte 0xa0 at byte %d, which the kernel reads as a space", i), i
		}
	}
	return "", 0
}

// fieldProblem says why s can't be one space-separated field of a
// definition, or "" if it can.
func fieldProblem(s string) string {
	for i := 0; i < len(s); i++ {
		switch k := LineByte(s[i]); {
		case k == SpaceByte:
			return "contains a space"
		case k.Control():
			return "contains control character " + strconv.QuoteRune(rune(s[i]))
		case k == CommentByte:
			return "contains '#', which starts a comment"
		case k == NBSPByte:
			return "contains byte 0xa0, which the kernel reads as a space"
		}
	}
	return ""
}

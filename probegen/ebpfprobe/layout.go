package ebpfprobe

import (
	"strconv"

	"github.com/dwprobe/dwprobe/probegen/answer"
)

// DefaultMaxString is a string argument's bytes in a record (with its
// NUL) when Options.MaxString is 0.
const DefaultMaxString = 64

// commSize is a task's name's bytes with its NUL (TASK_COMM_LEN).
const commSize = 16

// Layout is where Generate's instructions write each argument in the
// output buffer: a fault mask, then one field per argument, each 8-byte
// aligned.
type Layout struct {
	// Mask is the offset of a uint64 whose bit i is set when a read of
	// argument i faulted at this hit (the kernel's trace prints
	// "(fault)"); the field holds zeros then.
	Mask int
	// Fields are the arguments, in order.
	Fields []Field
	// Size is the buffer's bytes up to the end of the last field, from
	// its start (Options.Offset included).
	Size int
}

// Field is one argument's place in the buffer.
type Field struct {
	// Name is the argument's name in the definition; an unnamed one
	// ($arg1, %di as written) is named as the kernel names it: argN, N
	// its position from 1.
	Name string
	// Offset and Size are the field's bytes in the buffer. A scalar's
	// field is 8 bytes holding its value as a little-endian 64-bit
	// integer, sign-extended when Type.Signed (a bitfield extracted); a
	// string's is Options.MaxString bytes, NUL-terminated when it fits;
	// an array's (Type.Array) holds its elements as in memory, at least
	// 8 bytes.
	Offset, Size int
	// String says the field holds a string.
	String bool
	Type   answer.CType
	// Unreadable is why the argument is not read at this point (its
	// field stays zero), with Options.SkipUnreadable; "" otherwise.
	Unreadable string
}

// layoutOf places args after a fault mask at o.Offset. It depends on the
// arguments' types only, so that every point of one spec has the same.
func layoutOf(args []answer.ArgRead, o Options) Layout {
	l := Layout{Mask: o.Offset}
	off := o.Offset + 8
	for i, a := range args {
		f := Field{Name: a.Name, Offset: off, Size: 8, Type: a.Type}
		if f.Name == "" {
			f.Name = "arg" + strconv.Itoa(i+1)
		}
		switch {
		case a.Loc.Kind == answer.LocComm:
			f.String, f.Size = true, commSize
		case a.Type.String:
			f.String, f.Size = true, o.maxString()
		case a.Type.Array > 0:
			f.Size = max(8, a.Type.Array*elemSize(a.Type))
		}
		if a.Loc.Kind == answer.LocUnreadable || a.Loc.Kind == answer.LocKernel {
			f.Unreadable = a.Loc.Reason
			if f.Unreadable == "" {
				f.Unreadable = a.Loc.Text
			}
		}
		l.Fields = append(l.Fields, f)
		off += (f.Size + 7) &^ 7
	}
	l.Size = off
	return l
}

// elemSize is the bytes of one value of t: the kernel's default type is a
// machine word.
func elemSize(t answer.CType) int {
	if t.Size == 0 {
		return 8
	}
	return t.Size
}

package ebpfprobe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// ErrShort: a buffer shorter than its Layout.
var ErrShort = errors.New("buffer shorter than its layout")

// Value is one argument as read at one hit.
type Value struct {
	// Field is the argument's field.
	Field *Field
	// Raw is a scalar's value, sign-extended when Field.Type.Signed.
	Raw uint64
	// Str is a string's bytes up to its NUL.
	Str string
	// Fault says the read faulted (the kernel's trace prints
	// "(fault)"); Raw and Str are zero.
	Fault bool
}

// Int is a scalar's value as a signed integer.
func (v Value) Int() int64 { return int64(v.Raw) }

// String prints v as the kernel's trace prints the argument (its
// print_type_*): a string quoted, a hex type 0x… (and the default type,
// which is x64: DEFAULT_FETCH_TYPE), a signed one in signed decimal,
// others in unsigned decimal, "(fault)" for a fault; an argument not read
// at its point (Field.Unreadable) prints as "(unreadable)".
func (v Value) String() string {
	t := v.Field.Type
	switch {
	case v.Field.Unreadable != "":
		return "(unreadable)"
	case v.Fault:
		return "(fault)"
	case v.Field.String:
		return strconv.Quote(v.Str)
	case t.Hex || t.Size == 0:
		return "0x" + strconv.FormatUint(v.truncated(), 16)
	case t.Signed:
		return strconv.FormatInt(int64(v.Raw), 10)
	}
	return strconv.FormatUint(v.truncated(), 10)
}

// truncated is Raw in the argument's size, as the kernel prints an
// unsigned or hex type.
func (v Value) truncated() uint64 {
	if s := v.Field.Type.Size; s > 0 && s < 8 && v.Field.Type.BitWidth == 0 {
		return v.Raw & (1<<(8*s) - 1)
	}
	return v.Raw
}

// Decode returns the arguments in buf, a buffer Generate's instructions
// wrote by l. The error wraps ErrShort.
func (l *Layout) Decode(buf []byte) ([]Value, error) {
	if len(buf) < l.Size {
		return nil, fmt.Errorf("%d bytes, layout of %d: %w", len(buf), l.Size, ErrShort)
	}
	mask := binary.LittleEndian.Uint64(buf[l.Mask:])
	out := make([]Value, len(l.Fields))
	for i := range l.Fields {
		f := &l.Fields[i]
		v := Value{Field: f, Fault: mask&(1<<i) != 0}
		b := buf[f.Offset : f.Offset+f.Size]
		switch {
		case v.Fault || f.Unreadable != "":
		case f.String:
			if j := bytes.IndexByte(b, 0); j >= 0 {
				b = b[:j]
			}
			v.Str = string(b)
		default:
			v.Raw = binary.LittleEndian.Uint64(b)
		}
		out[i] = v
	}
	return out, nil
}

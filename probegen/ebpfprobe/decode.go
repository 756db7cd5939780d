package ebpfprobe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/probegen/answer"
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
	// Elems are an array's elements (Field.Type.Array), each as Raw.
	Elems []uint64
	// Fault says the read faulted (the kernel's trace prints
	// "(fault)"); Raw and Str are zero.
	Fault bool
	// Symbol is a symbol type's value as the kernel prints it
	// (SYMBOL+0xOFF/0xSIZE), set by a Tracer from the running kernel's
	// symbols (KernelSymbols.Format); "" prints the address.
	Symbol string
}

// Int is a scalar's value as a signed integer.
func (v Value) Int() int64 { return int64(v.Raw) }

// String prints v as the kernel's trace prints the argument (its
// print_type_*): a string between double quotes, as it is (the kernel
// escapes nothing); a char as 'C'; a symbol as Symbol, or 0xADDR; a hex
// type 0x… (and the default type, which is x64: DEFAULT_FETCH_TYPE), a
// signed one in signed decimal, others in unsigned decimal, "(fault)" for
// a fault; an argument not read at its point (Field.Unreadable) prints as
// "(unreadable)".
func (v Value) String() string {
	switch {
	case v.Field.Unreadable != "":
		return "(unreadable)"
	case v.Fault:
		return "(fault)"
	case v.Field.String:
		return `"` + v.Str + `"`
	case v.Field.Type.Fetch == "symbol":
		if v.Symbol != "" {
			return v.Symbol
		}
		return "0x" + strconv.FormatUint(v.Raw, 16)
	case v.Field.Type.Array > 0:
		// print_probe_args: {E,E,…}
		elems := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = formatScalar(v.Field.Type, e)
		}
		return "{" + strings.Join(elems, ",") + "}"
	}
	return formatScalar(v.Field.Type, v.Raw)
}

// formatScalar prints raw, a value of t sign- or zero-extended, as the
// kernel prints t.
func formatScalar(t answer.CType, raw uint64) string {
	if s := t.Size; s > 0 && s < 8 && t.BitWidth == 0 && !t.Signed {
		raw &= 1<<(8*s) - 1
	}
	switch {
	case strings.HasPrefix(t.Fetch, "char"):
		return "'" + string([]byte{byte(raw)}) + "'"

	case t.Hex || t.Size == 0:
		return "0x" + strconv.FormatUint(raw, 16)
	case t.Signed:
		return strconv.FormatInt(int64(raw), 10)
	}
	return strconv.FormatUint(raw, 10)
}

// elems splits an array's field into its elements, each sign-extended
// when t.Signed.
func elems(t answer.CType, b []byte) []uint64 {
	size := elemSize(t)
	out := make([]uint64, t.Array)
	for i := range out {
		var e [8]byte
		copy(e[:], b[i*size:(i+1)*size])
		v := binary.LittleEndian.Uint64(e[:])
		if shift := 64 - 8*size; t.Signed && shift > 0 {
			v = uint64(int64(v<<shift) >> shift)
		}
		out[i] = v
	}
	return out
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
		case f.Type.Array > 0:
			v.Elems = elems(f.Type, b)
		default:
			v.Raw = binary.LittleEndian.Uint64(b)
		}
		out[i] = v
	}
	return out, nil
}

package ebpfprobe

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/tracefs"
)

// TestRecord decodes a record as Program writes it and prints its values
// as the kernel's trace prints them.
func TestRecord(t *testing.T) {
	args := []answer.ArgRead{
		{Name: "name", Type: str, Loc: reg("di")},
		{Name: "local", Type: s64, Loc: reg("bp")},
		{Name: "scale", Type: s32, Loc: reg("cx")},
		{Name: "flags", Type: typ(tracefs.FetchType{Size: 4, Hex: true}), Loc: reg("si")},
		{Name: "u", Type: u16, Loc: reg("dx")},
		{Name: "bad", Type: s32, Loc: reg("ax")},
		{Name: "gone", Type: s32, Loc: answer.Location{Kind: answer.LocUnreadable, Reason: "optimized out"}},
		{Name: "reg", Loc: reg("r8")},
		{Name: "arr", Type: typ(tracefs.FetchType{Size: 2, Signed: true, Array: 3}), Loc: reg("r9", tracefs.Load{})},
		{Name: "xs", Type: typ(tracefs.FetchType{Size: 1, Hex: true, Array: 2}), Loc: reg("r9", tracefs.Load{})},
	}
	l := layoutOf(args, Options{MaxString: 8, Offset: HeaderSize})
	buf := make([]byte, l.Size)
	le := binary.LittleEndian
	le.PutUint64(buf, 4321<<32|4322)
	le.PutUint64(buf[8:], 1)
	le.PutUint64(buf[l.Mask:], 1<<5)
	copy(buf[l.Fields[0].Offset:], "gamma\x00zz")
	le.PutUint64(buf[l.Fields[1].Offset:], uint64(1<<64-11)) // -11
	le.PutUint64(buf[l.Fields[2].Offset:], uint64(1<<64-2))  // -2, sign-extended
	le.PutUint64(buf[l.Fields[3].Offset:], 0xbeef)
	le.PutUint64(buf[l.Fields[4].Offset:], 65535)
	le.PutUint64(buf[l.Fields[7].Offset:], 0xffff888003a1c000)
	copy(buf[l.Fields[8].Offset:], []byte{1, 0, 0xfe, 0xff, 3, 0})
	copy(buf[l.Fields[9].Offset:], []byte{0xab, 0xff})
	rec, err := l.Record(buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range rec.Values {
		got = append(got, v.Field.Name+"="+v.String())
	}
	want := `name="gamma" local=-11 scale=-2 flags=0xbeef u=65535 bad=(fault) gone=(unreadable) reg=0xffff888003a1c000 arr={1,-2,3} xs={0xab,0xff}`
	if rec.PID != 4321 || rec.TID != 4322 || rec.Cookie != 1 || strings.Join(got, " ") != want {
		t.Errorf("pid %d tid %d cookie %d: %s\nwant pid 4321 tid 4322 cookie 1: %s", rec.PID, rec.TID, rec.Cookie, strings.Join(got, " "), want)
	}
	if rec.Values[1].Int() != -11 {
		t.Errorf("Int() = %d", rec.Values[1].Int())
	}
	if _, err := l.Record(buf[:l.Size-1]); !errors.Is(err, ErrShort) {
		t.Errorf("a short record: %v, want ErrShort", err)
	}
	if _, err := l.Record(buf[:3]); !errors.Is(err, ErrShort) {
		t.Errorf("a short header: %v, want ErrShort", err)
	}
}

// TestValueKernelFormats prints the types whose text is the kernel's own
// choice as its print_type_* do: a string as it is between quotes, a
// char as 'C' (an array of them element by element), a symbol by its
// Symbol or as an address; an unnamed argument is argN.
func TestValueKernelFormats(t *testing.T) {
	char := answer.CType{Fetch: "char", FetchType: tracefs.FetchType{Size: 1}}
	chars := answer.CType{Fetch: "char[3]", FetchType: tracefs.FetchType{Size: 1, Array: 3}}
	sym := answer.CType{Fetch: "symbol"}
	args := []answer.ArgRead{
		{Name: "s", Type: str, Loc: reg("di")},
		{Name: "c", Type: char, Loc: reg("si", tracefs.Load{})},
		{Name: "cs", Type: chars, Loc: reg("si", tracefs.Load{})},
		{Name: "f", Type: sym, Loc: reg("dx")},
		{Name: "g", Type: sym, Loc: reg("dx")},
		{Type: s64, Loc: reg("cx")},
	}
	l := layoutOf(args, Options{MaxString: 16})
	vals := []Value{
		{Field: &l.Fields[0], Str: `a "b"` + "\t"},
		{Field: &l.Fields[1], Raw: 'v'},
		{Field: &l.Fields[2], Elems: []uint64{'a', 'b', 'c'}},
		{Field: &l.Fields[3], Raw: 0xffffffff81200000, Symbol: "vfs_read+0x0/0x370"},
		{Field: &l.Fields[4], Raw: 0x1234},
		{Field: &l.Fields[5], Raw: 7},
	}
	var got []string
	for _, v := range vals {
		got = append(got, v.Field.Name+"="+v.String())
	}
	want := `s="a "b"` + "\t" + `" c='v' cs={'a','b','c'} f=vfs_read+0x0/0x370 g=0x1234 arg6=7`
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

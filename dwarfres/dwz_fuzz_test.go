package dwarfres

import (
	"bytes"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// withAlt attaches alt to f as its supplementary file, as a dwz link
// found on disk would.
func withAlt(f, alt *File) *File {
	f.altf.once.Do(func() { f.altf.file = alt })
	return f
}

// FuzzDwzReaders feeds a dwz -m program's .debug_info and its common
// file's .debug_info and .debug_str, mutated, to the probe search and the
// variable readers: DW_FORM_GNU_ref_alt and DW_FORM_GNU_strp_alt values
// pointing anywhere, origins looping across files, must give an error or
// a result, never a panic or a hang.
func FuzzDwzReaders(f *testing.F) {
	mainSecs := fuzzSeed("dwz-m/dwzapp-gcc-O2-dwarf5")
	altSecs := fuzzSeed("dwz-m/common.debug")
	if mainSecs != nil && altSecs != nil {
		mi, ai, as := mainSecs[".debug_info"], altSecs[".debug_info"], altSecs[".debug_str"]
		f.Add(mi, ai, as)
		f.Add(mi, ai[:len(ai)/2], as)                 // the common file cut short
		f.Add(mi, ai, as[:len(as)/3])                 // strings past its end
		f.Add(mi, bytes.Repeat([]byte{0xff}, 64), as) // a common file of garbage
	}
	f.Add([]byte{7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, info, altInfo, altStr []byte) {
		if len(info)+len(altInfo)+len(altStr) > 1<<18 || mainSecs == nil || altSecs == nil {
			return
		}
		m, a := map[string][]byte{}, map[string][]byte{}
		for k, v := range mainSecs {
			m[k] = v
		}
		for k, v := range altSecs {
			a[k] = v
		}
		m[".debug_info"], a[".debug_info"], a[".debug_str"] = info, altInfo, altStr
		mf := withAlt(memFile(m), memFile(a))
		for _, fn := range []string{"pt_scale", "scale_b", "main"} {
			exerciseQuery(t, mf, fn, "p", "k")
		}
		mf.FindLineRange(LineQuery{Function: "scale_a", End: 1 << 30})
	})
}

// FuzzAltLinks: any .gnu_debugaltlink, .debug_sup or .zdebug_* content
// parses or is refused, never a panic.
func FuzzAltLinks(f *testing.F) {
	f.Add([]byte("common.debug\x00\x12\x34"))
	f.Add([]byte{5, 0, 0, 'c', 0, 2, 0xab, 0xcd})
	f.Add([]byte{5, 0, 1, 0, 0x80})
	f.Add(dwarftest.ZlibGNU([]byte("x")))
	f.Add([]byte("ZLIB\x00\x00\x00\x00\x00\x00\x00\x10\x78\x9c"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseAltLink(b)
		parseSup(b)
	})
}

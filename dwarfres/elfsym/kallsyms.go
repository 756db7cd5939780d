package elfsym

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// KallsymsPath is the running kernel's symbol list.
const KallsymsPath = "/proc/kallsyms"

// Kallsym is one line of a kallsyms listing: "ADDR TYPE NAME", then
// "\t[MODULE]" for a module's symbol.
type Kallsym struct {
	Addr   uint64 // 0 when kptr_restrict hides addresses
	Type   byte   // nm's letter: 't'/'T' text, 'd'/'D' data, ...
	Name   string
	Module string // "" for the kernel's own
}

// ReadKallsyms calls fn with each symbol of the kallsyms listing r, in
// order, while fn returns true; lines that are not "ADDR TYPE NAME
// [[MODULE]]" are passed over. It is the one reader of the format.
func ReadKallsyms(r io.Reader, fn func(Kallsym) bool) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || len(f) > 4 || len(f[1]) != 1 {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		k := Kallsym{Addr: addr, Type: f[1][0], Name: f[2]}
		if len(f) == 4 {
			k.Module = strings.Trim(f[3], "[]")
		}
		if !fn(k) {
			break
		}
	}
	return sc.Err()
}

// SetKernelData tells a module how to learn whether the kernel it is
// loaded into lists data symbols in kallsyms (CONFIG_KALLSYMS_ALL), which
// KallsymsHasData then answers: a module global is read through @SYMBOL,
// which the kernel resolves through kallsyms. hasData is called once, when
// first asked; unset, the answer is yes.
func (im *Image) SetKernelData(hasData func() bool) { im.kernelData = hasData }

// RunningKallsymsHasData reports whether the running kernel's
// /proc/kallsyms lists data symbols, as a kernel built with
// CONFIG_KALLSYMS_ALL does (tens of thousands; without it a few special
// ones remain). True when it cannot be read.
func RunningKallsymsHasData() bool {
	return kallsymsHasData(KallsymsPath)
}

// kallsymsHasData is RunningKallsymsHasData for a kallsyms file at path:
// more than minDataSyms symbols of a data type (d, b, r, either case).
func kallsymsHasData(path string) bool {
	const minDataSyms = 1000
	fh, err := os.Open(path)
	if err != nil {
		return true
	}
	defer fh.Close()
	n, lines := 0, 0
	err = ReadKallsyms(fh, func(k Kallsym) bool {
		lines++
		if strings.IndexByte("dDbBrR", k.Type) >= 0 {
			n++
		}
		return n <= minDataSyms
	})
	return n > minDataSyms || lines == 0 || err != nil
}

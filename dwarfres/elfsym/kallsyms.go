package elfsym

import (
	"bufio"
	"os"
	"strings"
)

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
	return kallsymsHasData("/proc/kallsyms")
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
	sc := bufio.NewScanner(fh)
	n, lines := 0, 0
	for sc.Scan() {
		lines++
		// "ffffffff81000000 T _text" (then "\t[module]" for modules)
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && strings.Contains("dDbBrR", f[1]) && len(f[1]) == 1 {
			if n++; n > minDataSyms {
				return true
			}
		}
	}
	return lines == 0 || sc.Err() != nil
}

package probegen

import (
	"debug/elf"
	"fmt"
	"strconv"

	"github.com/dwprobe/dwprobe/dwarfres"
)

// Symbolizer names a data address as SYMBOL+OFFSET (perf writes globals as
// @symbol); ok is false when no symbol covers it.
type Symbolizer func(addr uint64) (name string, off uint64, ok bool)

// FetchArg renders a decoded location as a kprobe/uprobe fetcharg body:
// %di, +8(%bp), +16(+8(%di)), @jiffies, +4(@init_task), \42. Frame-base and
// entry-value locations must be resolved by the caller (they depend on the
// probe address): they are refused here, as are registers the kernel has
// no name for on machine m.
func FetchArg(m elf.Machine, loc dwarfres.Loc, sym Symbolizer) (string, error) {
	switch loc.Kind {
	case dwarfres.LocReg:
		return DWARFRegister(m, loc.Reg)
	case dwarfres.LocConst:
		return `\` + strconv.FormatInt(loc.Const, 10), nil
	case dwarfres.LocMem:
		var base string
		if loc.HasAddr {
			if sym == nil {
				return "", fmt.Errorf("global at %#x: no symbol table: %w", loc.Addr, ErrNotSupported)
			}
			name, off, ok := sym(loc.Addr)
			if !ok {
				return "", fmt.Errorf("no symbol covers the global at %#x: %w", loc.Addr, ErrNotSupported)
			}
			base = "@" + name
			if off != 0 {
				base += "+" + strconv.FormatUint(off, 10)
			}
			// The first load reads the global itself: "@sym" already
			// means its value, so fold the first (zero) offset away.
			if len(loc.Derefs) == 0 {
				return "", fmt.Errorf("global at %#x: %w", loc.Addr, ErrNotSupported)
			}
			derefs := loc.Derefs
			if derefs[0] != 0 {
				return "", fmt.Errorf("global at %#x with offset %d: %w", loc.Addr, derefs[0], ErrNotSupported)
			}
			return wrap(base, derefs[1:]), nil
		}
		r, err := DWARFRegister(m, loc.Reg)
		if err != nil {
			return "", err
		}
		return wrap(r, loc.Derefs), nil
	case dwarfres.LocAddrValue:
		// The address itself as a value: perf has no form for it; an
		// immediate carries it.
		return `\` + strconv.FormatUint(loc.Addr, 10), nil
	}
	return "", fmt.Errorf("location kind %d needs the probe address resolved first: %w", loc.Kind, ErrNotSupported)
}

// wrap applies each dereference: +off(inner), innermost first.
func wrap(inner string, derefs []int64) string {
	for _, d := range derefs {
		if d >= 0 {
			inner = "+" + strconv.FormatInt(d, 10) + "(" + inner + ")"
		} else {
			inner = strconv.FormatInt(d, 10) + "(" + inner + ")"
		}
	}
	return inner
}

package probegen

import (
	"debug/elf"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

// uprobeLocalEntry is how far past addr a uprobe written at addr goes: on
// ppc64le, where a function symbol starts at addr and the spec names no
// offset (FUNC, FUNC+0, FUNC%return, or a line whose code starts there),
// the symbol's local entry offset (arch.LocalEntryOffset of its
// st_other). Calls from the same program enter at the local entry, past
// the TOC set-up of the global one, so a uprobe at the symbol would miss
// them; a kprobe needs no move, the kernel makes it (kprobe_lookup_name).
// perf does the same on a ppc64le host (arch__post_process_probe_trace_events
// and arch__fix_tev_from_maps, tools/perf/arch/powerpc/util/sym-handling.c);
// perf on another host leaves the uprobe at the global entry.
func uprobeLocalEntry(t *dwarfres.File, p *grammar.Point, addr uint64) uint64 {
	if a, ok := arch.For(t.Machine); !ok || a != arch.PPC64LE || p.Offset != 0 {
		return 0
	}
	data, _ := t.SymbolTable()
	var off uint64
	t.EachRawSymbol(data, func(s elfobj.RawSym) {
		if off == 0 && s.Value == addr && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			off = arch.PPC64LE.LocalEntryOffset(s.Other)
		}
	})
	return off
}

// atLocalEntry is p moved lep bytes on, with its scope's address.
func atLocalEntry(p point, lep uint64) point {
	p.addr += lep
	if p.scope != nil {
		sc := *p.scope
		sc.Addr += lep
		p.scope = &sc
	}
	return p
}

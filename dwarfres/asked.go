package dwarfres

import (
	"sync"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// askedAnswers keeps the FuncAt and ProbePointAt answers at the probe
// addresses a Query's Asked named, computed while their unit was decoded:
// a probe in a thousand units (kmalloc) asks them at a tenth of its
// points, whose units the tree cache has let go by then.
type askedAnswers struct {
	mu sync.Mutex
	at map[uint64]askedAnswer
}

type askedAnswer struct {
	fd   FuncDecl
	fdOK bool
	pt   PointAt
	ptOK bool
}

func (a *askedAnswers) get(addr uint64) (askedAnswer, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.at[addr]
	return v, ok
}

// answerEarly answers FuncAt and ProbePointAt in t for the probes found
// in it that asked names, when t is the unit FuncAt would decode for the
// address (an answer from another unit is left to FuncAt). A fault in t
// leaves the questions to be asked again, which reports it.
func (f *File) answerEarly(t *cuTree, ps []Probe, asked func(uint64) bool) {
	for _, p := range ps {
		if !asked(p.Addr) {
			continue
		}
		if u := f.aranges.unitFor(f, p.Addr); u == nil || u.off != t.u.off {
			continue
		}
		if _, ok := f.asked.get(p.Addr); ok {
			continue
		}
		v, err := t.answer(p.Addr)
		if err != nil {
			continue
		}
		f.asked.mu.Lock()
		if f.asked.at == nil {
			f.asked.at = map[uint64]askedAnswer{}
		}
		f.asked.at[p.Addr] = v
		f.asked.mu.Unlock()
	}
}

// answer is FuncAt and ProbePointAt at addr in t, a fault in t an error.
func (t *cuTree) answer(addr uint64) (v askedAnswer, err error) {
	defer elfobj.Guard(&err, t.f.Path)
	v.fd, v.fdOK = t.funcAt(addr)
	v.pt, v.ptOK = t.pointAt(addr)
	return v, nil
}

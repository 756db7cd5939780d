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

// answerEarly answers f's FuncAt and ProbePointAt in t for the probes
// found in it that asked names, when t is the unit FuncAt would decode for
// the address (an answer from another unit is left to FuncAt). A fault in
// t leaves the questions to be asked again, which reports it.
func (a *askedAnswers) answerEarly(f *File, t *cuTree, ps []Probe, asked func(uint64) bool) {
	for _, p := range ps {
		if !asked(p.Addr) {
			continue
		}
		if u := f.aranges.unitFor(f, p.Addr); u == nil || u.off != t.u.off {
			continue
		}
		if _, ok := a.get(p.Addr); ok {
			continue
		}
		v, err := answer(t, p.Addr)
		if err != nil {
			continue
		}
		a.mu.Lock()
		if a.at == nil {
			a.at = map[uint64]askedAnswer{}
		}
		a.at[p.Addr] = v
		a.mu.Unlock()
	}
}

// answer is FuncAt and ProbePointAt at addr in t, a fault in t an error.
func answer(t *cuTree, addr uint64) (v askedAnswer, err error) {
	defer elfobj.Guard(&err, t.f.Path)
	v.fd, v.fdOK = addrIn{t, addr}.funcDecl()
	v.pt, v.ptOK = addrIn{t, addr}.point()
	return v, nil
}

package grammar

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/tracefs"
)

// DefaultGroup is the group perf uses for kprobes when none is given.
// Uprobes default to ExecGroup(binary) instead.
const DefaultGroup = "probe"

// maxEventIndex is perf's MAX_EVENT_INDEX: suffixes run from _1 to _1023.
const maxEventIndex = 1024

// returnSuffix is what perf appends to the event name of a return probe,
// even to a name the user chose.
const returnSuffix = "__return"

// EventBase returns the event name perf 6.1 would try first for one probe
// found from p, before any uniqueness suffix (see Namer). realname is the
// name of what was actually probed: the function DIE name when the point was
// resolved through DWARF, else the symbol name (perf's tev->point.realname).
// It is only used when p does not name the event itself: SRC:ALN, SRC;PTN
// and glob functions. The rules, in perf's order:
//
//   - EVENT= given: that name ("myev=vfs_read" -> "myev");
//   - FUNC:RLN with RLN != 0: "<FUNC>_L<RLN>" ("vfs_read:12" -> "vfs_read_L12");
//   - 0xADDR: "abs_<hex>" ("0xffffffff8134cc50" -> "abs_ffffffff8134cc50");
//   - FUNC without glob characters: FUNC ("vfs_read+4", "vfs_read;pat" -> "vfs_read");
//   - otherwise realname ("fs/read_write.c:470" -> "vfs_read", "vfs_rea*" -> each match).
//
// Then a name of 64 bytes or more is shortened with a hash
// (tracefs.ShortEventName), one leading '.' is dropped, a C symbol is cut
// at its first '.' or '@' ("getname_flags.part.0" -> "getname_flags",
// "malloc@GLIBC_2.2.5" -> "malloc"), other symbols get their bad bytes
// replaced ("main.main" -> "main_main", "geo::Box::grow" ->
// "geo_Box_grow", see eventStem), and return probes get "__return"
// ("vfs_read%return" -> "vfs_read__return", "myev=vfs_read%return" ->
// "myev__return"). The result is not validated: perf refuses e.g. the
// "vfs_rea*_L12" of "vfs_rea*:12" only when naming, and so does Namer.
func EventBase(p *Point, realname string) string {
	var ev string
	switch {
	case p.Event != "":
		ev = p.Event
	case p.Function != "" && p.HasLine && p.Line != 0 && p.Lazy == "" && p.Offset == 0:
		// Built by parse_perf_probe_command from the function as typed.
		ev = p.Function + "_L" + strconv.Itoa(p.Line)
	case p.IsAddr:
		// try_to_find_absolute_address sets realname to "abs_%lx".
		ev = "abs_" + strconv.FormatUint(p.Addr, 16)
	case p.Function != "" && !strings.HasPrefix(p.Function, "0x") && !lazymatch.NewNameMatcher(p.Function).IsGlob():
		ev = p.Function
	default:
		ev = realname
	}
	ev = eventStem(tracefs.ShortEventName(ev))
	if p.Return || p.RetInsns {
		ev += returnSuffix
	}
	return ev
}

// eventStem is get_new_event_name's cleaning of a name. For C symbols (perf
// 6.1): a leading '.' (ppc64 dot symbols) goes, and ".part.0", ".isra.0",
// ".constprop.0", "@GLIBC_2.2.5" and the like are cut off. Other names
// (C++ "geo::Box::grow", Rust "r::work", Go "main.main") get upstream
// perf's replacement of the bytes an event name can't hold
// ("geo_Box_grow", "main_main"); glob characters stay, for perf's refusal.
func eventStem(ev string) string {
	ev = strings.TrimPrefix(ev, ".")
	i := strings.IndexAny(ev, ".@")
	switch {
	case i > 0 && (ev[i] == '@' || isCloneSuffix(ev[i+1:])):
		return ev[:i]
	case ev != "" && isNameChar(ev[0]) && strings.Trim(ev, nameAndGlobChars) != "":
		return tracefs.SymbolEventName(ev)
	}
	return ev
}

// nameAndGlobChars are the bytes eventStem leaves alone.
const nameAndGlobChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*?["

// isCloneSuffix reports whether s, what follows a C symbol's first '.',
// is one of gcc's clone suffixes ("part.0", "isra.0", "cold") or a number.
func isCloneSuffix(s string) bool {
	for _, w := range []string{"part", "isra", "constprop", "cold", "lto_priv", "localalias", "clone", "llvm"} {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return s != "" && isDigit(s[0])
}

// ExecGroup returns perf's default group for uprobes in the binary at path:
// "probe_" followed by the leading [A-Za-z0-9_] run of its base name
// ("/lib/x86_64-linux-gnu/libc.so.6" -> "probe_libc", "/tmp/my-app" ->
// "probe_my").
func ExecGroup(binary string) (string, error) {
	b := path.Base(binary)
	i := 0
	for i < len(b) && isNameChar(b[i]) {
		i++
	}
	g := DefaultGroup + "_" + b[:i]
	if err := tracefs.ValidateName(tracefs.GroupName, g); err != nil {
		return "", err
	}
	return g, nil
}

// Namer hands out event names the way perf's get_new_event_name does: the
// base name if it is free, else base_1, base_2, ... up to base_1023.
//
// perf compares against the event names (without group) of every event in
// kprobe_events or uprobe_events, whatever its group, so existing should be
// those. On kernels that can append probes to an event (tracefs README says
// "Create/append"), perf does not mark a name as taken while it names the
// probes of one spec, so all the probes of one spec that share a base share
// the name and are appended to one event: use Peek for each probe of a spec
// and Add the names once the spec is done. perf -D never marks names, so two
// identical specs print the same name there. Without multi-probe support
// every probe needs its own name: use Next.
type Namer struct {
	taken map[string]struct{}
}

// NewNamer returns a Namer that treats the names in existing as taken.
func NewNamer(existing []string) *Namer {
	n := &Namer{taken: make(map[string]struct{}, len(existing))}
	for _, e := range existing {
		n.taken[e] = struct{}{}
	}
	return n
}

// has reports whether name is taken.
func (n *Namer) has(name string) bool {
	_, ok := n.taken[name]
	return ok
}

// Add marks name as taken.
func (n *Namer) Add(name string) { n.taken[name] = struct{}{} }

// Next is Peek followed by Add of the returned name.
func (n *Namer) Next(base string, allowSuffix bool) (string, error) {
	name, err := n.Peek(base, allowSuffix)
	if err == nil {
		n.Add(name)
	}
	return name, err
}

// Peek returns the name Next would return, without taking it. base is
// normally EventBase's result. If base is taken and allowSuffix is false
// (perf probe without -f, first probe of a spec) the error wraps
// tracefs.ErrEventExists. As in perf 6.1 a suffix replaces a trailing "__return"
// rather than following it: "vfs_read__return" gives "vfs_read_1". A name
// that is not a valid event name wraps tracefs.ErrBadEventName (perf's "Internal
// error: ... is an invalid event name"), and running out of suffixes wraps
// ErrTooManyEvents.
func (n *Namer) Peek(base string, allowSuffix bool) (string, error) {
	if err := tracefs.ValidateName(tracefs.EventName, base); err != nil {
		return "", err
	}
	if !n.has(base) {
		return base, nil
	}
	if !allowSuffix {
		return "", fmt.Errorf("%w: %s (delete it first, or allow a numbered duplicate)", tracefs.ErrEventExists, base)
	}
	stem := strings.TrimSuffix(base, returnSuffix)
	for i := 1; i < maxEventIndex; i++ {
		name := stem + "_" + strconv.Itoa(i)
		if err := tracefs.ValidateName(tracefs.EventName, name); err != nil {
			return "", err
		}
		if !n.has(name) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%w: %s_1 to %s_%d are all taken", ErrTooManyEvents, stem, stem, maxEventIndex-1)
}

// IsCIdent is perf's is_c_func_name and the kernel's is_good_name.
func IsCIdent(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isNameChar(c byte) bool { return isAlpha(c) || isDigit(c) || c == '_' }

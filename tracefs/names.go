package tracefs

import (
	"fmt"
)

// NameKind says what a name names: the kernel's rules for each differ in
// length, in the reserved words and in the sentinel of a refusal.
type NameKind int

// The names of a definition.
const (
	EventName NameKind = iota + 1 // p:GROUP/EVENT
	GroupName                     // p:GROUP/EVENT
	ArgName                       // NAME=FETCHARG
)

// Kernel limits on names (Linux 6.1, kernel/trace/trace_probe.h).
const (
	// MaxNameLen is MAX_EVENT_NAME_LEN: group and event names must be
	// strictly shorter.
	MaxNameLen = 64
	// MaxArgNameLen is MAX_ARG_NAME_LEN: longer NAME= are ARG_NAME_TOO_LONG.
	MaxArgNameLen = 32
)

// maxLen is the longest name of kind k.
func (k NameKind) maxLen() int {
	if k == ArgName {
		return MaxArgNameLen
	}
	return MaxNameLen - 1
}

// sentinel is the error a bad name of kind k wraps.
func (k NameKind) sentinel() error {
	switch k {
	case GroupName:
		return ErrBadGroupName
	case ArgName:
		return ErrBadArgName
	}
	return ErrBadEventName
}

// reservedArgNames are the field names every trace event already has
// (trace_probe.c's reserved_field_names), which an argument may not take.
var reservedArgNames = map[string]bool{
	"common_type": true, "common_flags": true, "common_preempt_count": true,
	"common_pid": true, "common_tgid": true,
	"__probe_ip": true, "__probe_ret_ip": true, "__probe_func": true,
}

// ValidateName checks s as a name of kind k: a C identifier
// ([A-Za-z_][A-Za-z0-9_]*, the kernel's is_good_name and perf's
// is_c_func_name; perf holds groups to it too, though the kernel takes '-'
// there since 6.1), shorter than MAX_EVENT_NAME_LEN or at most
// MAX_ARG_NAME_LEN bytes, and not a reserved field name for an argument.
// Errors wrap ErrBadEventName, ErrBadGroupName or ErrBadArgName.
func ValidateName(k NameKind, s string) error {
	if msg := nameProblem(k, s); msg != "" {
		return fmt.Errorf("%w %q: %s", k.sentinel(), s, msg)
	}
	return nil
}

func nameProblem(k NameKind, s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > k.maxLen():
		return fmt.Sprintf("longer than %d bytes", k.maxLen())
	case !isName(s, false):
		return "must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)"
	case k == ArgName && reservedArgNames[s]:
		return "reserved by the kernel"
	}
	return ""
}

// SanitizeName turns any string into a valid name of kind k, so names
// derived from symbols, file names or types never need a second check:
// each run of bytes outside [A-Za-z0-9_] becomes one '_', a leading digit
// gets a '_' prefix, and the result is cut to the kind's length. Only ""
// stays empty; a reserved argument name gets a '_' prefix.
func SanitizeName(k NameKind, s string) string {
	b := make([]byte, 0, len(s)+1)
	bad := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isNameByte(c) {
			b = append(b, c)
			bad = false
		} else if !bad {
			b = append(b, '_')
			bad = true
		}
	}
	if len(b) > 0 && isDigit(b[0]) || k == ArgName && reservedArgNames[string(b)] {
		b = append([]byte{'_'}, b...)
	}
	if len(b) > k.maxLen() {
		b = b[:k.maxLen()]
	}
	return string(b)
}

// isName is the kernel's is_good_name (event and argument names); with
// dash it is is_good_system_name (group names may contain '-' since 6.1).
func isName(s string, dash bool) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isNameByte(c) && !(c == '-' && dash) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}

// SymbolEventName is upstream perf's event name for a C++, Rust or Go
// symbol (get_new_event_name with not_C_symname, perf 6.13): every byte
// outside [A-Za-z0-9] becomes '_', runs of them one '_', and those at the
// start go ("geo::Box::grow" -> "geo_Box_grow", "add<long>" ->
// "add_long_", "main.(*Server).poll" -> "main_Server_poll"). Unlike
// SanitizeName it keeps perf's quirks: '_' counts as a bad byte too
// ("__x" -> "x") and no length cut (see ShortEventName).
func SymbolEventName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isNameByte(c) && c != '_':
			b = append(b, c)
		case len(b) > 0 && b[len(b)-1] != '_':
			b = append(b, '_')
		}
	}
	return string(b)
}

// hashedNameLen is how much of a too long event name upstream perf keeps
// before "_HASH": 46 bytes, leaving room for "_" + 8 hex digits +
// "__return" + NUL in MAX_EVENT_NAME_LEN.
const hashedNameLen = 46

// ShortEventName is upstream perf's probe_trace_event__hash_event (perf
// 6.13): a name of MaxNameLen bytes or more becomes its first 46 bytes,
// '_' and the first 8 hex digits of perf's str_hash of the whole name
// (h = h*31 + c over its bytes, printed with %lx and cut by snprintf).
// Shorter names are returned as they are.
func ShortEventName(s string) string {
	if len(s) < MaxNameLen {
		return s
	}
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*31 + uint64(int64(int8(s[i]))) // C's char is signed on x86
	}
	hex := fmt.Sprintf("%x", h)
	if len(hex) > 8 {
		hex = hex[:8]
	}
	return s[:hashedNameLen] + "_" + hex
}

package dwarfres

import (
	"debug/dwarf"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// atMIPSLinkageName is DW_AT_MIPS_linkage_name, which gcc wrote before
// DWARF 4 named DW_AT_linkage_name.
const atMIPSLinkageName dwarf.Attr = 0x2007

// Demangle returns the C++ or Rust (legacy or v0) name of a mangled
// symbol the way perf lists it: no parameters and no return type, the
// template arguments kept ("add<long>", "geo::Box::operator<", "r::work",
// the Rust hash dropped). ok is false when name is not mangled or does not
// demangle; the caller then uses name as it is.
func Demangle(name string) (string, bool) {
	if !isMangled(name) {
		return name, false
	}
	d, err := demangle.ToString(name, demangle.NoParams)
	if err != nil || d == "" {
		return name, false
	}
	return inherentImpl(d), true
}

// inherentImpl writes a Rust v0 inherent method as legacy mangling and
// perf's -F of it do: "<r::Counter>::bump" is "r::Counter::bump". A trait
// method ("<r::Counter as core::fmt::Debug>::fmt") stays as it is.
func inherentImpl(d string) string {
	if !strings.HasPrefix(d, "<") {
		return d
	}
	depth := 0
	for i := 0; i < len(d); i++ {
		switch d[i] {
		case '<':
			depth++
		case '>':
			if depth--; depth == 0 {
				inner := d[1:i]
				if strings.Contains(inner, " as ") || !strings.HasPrefix(d[i+1:], "::") {
					return d
				}
				return inner + d[i+1:]
			}
		}
	}
	return d
}

// IsScoped reports whether a function name is qualified by a C++ or Rust
// scope ("ns::Class::method", "crate::module::function"). Such a name is
// matched against each function's qualified name instead of its DW_AT_name.
func IsScoped(name string) bool { return strings.Contains(name, "::") }

// scopeLeaf returns the last component of a scoped name, the part a
// function's DW_AT_name holds: "geo::Box::grow" -> "grow",
// "ns::f<a::b>" -> "f<a::b>". Scopes inside <> and () do not count.
func scopeLeaf(name string) string {
	depth, leaf := 0, 0
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ':':
			if depth == 0 && i+1 < len(name) && name[i+1] == ':' {
				leaf = i + 2
				i++
			}
		}
	}
	return name[leaf:]
}

// linkageName is DW_AT_linkage_name (or the MIPS one) of DIE i or of its
// specification or abstract origin, "" when there is none (C functions,
// extern "C", main).
func (t *cuTree) linkageName(i int) string {
	for _, a := range []dwarf.Attr{dwarf.AttrLinkageName, atMIPSLinkageName} {
		if x, ok := t.attrIntegrated(i, a); ok {
			if x.form == formString {
				return string(x.blk)
			}
			return t.f.dieString(t.u, x.form, x.v)
		}
	}
	return ""
}

// qualName is the function's name with its scopes, as perf -F lists C++ and
// Rust functions: the demangled linkage name when it has one, else the
// names of the enclosing namespaces, classes, structures and unions of its
// declaration joined by "::".
func (t *cuTree) qualName(i int) string {
	if ln := t.linkageName(i); ln != "" {
		if d, ok := Demangle(ln); ok {
			return d
		}
	}
	decl := i
	for n := 0; n < 8; n++ { // the declaration sits in its class
		o := t.origin(decl)
		if o < 0 {
			break
		}
		decl = o
	}
	parts := []string{t.name(i)}
	for p := int(t.dies[decl].Parent); p > 0; p = int(t.dies[p].Parent) {
		switch t.dies[p].Tag {
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			parts = append(parts, t.name(p))
		}
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, "::")
}

// funcMatches reports whether function DIE i is the one q names: by its
// qualified name for a scoped query, else by DW_AT_name.
//
// A template's DW_AT_name is the compiler's spelling ("add<long int>" for
// gcc) while perf -F lists the demangled one ("add<long>"): a name with
// '<' is also tried against the last component of the qualified name.
func (t *cuTree) funcMatches(i int, q Query) bool {
	if IsScoped(q.fn()) {
		return q.Function.Match(t.qualName(i))
	}
	if q.Function.Match(t.name(i)) {
		return true
	}
	if isMangled(q.fn()) {
		return q.Function.Match(t.linkageName(i)) // picks one overload
	}
	return hasTemplateArgs(q.fn()) && q.Function.Match(scopeLeaf(t.qualName(i)))
}

// isMangled reports a C++ or Rust mangled name.
func isMangled(name string) bool {
	return strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "_R")
}

// hasTemplateArgs reports a name written with C++ template arguments.
func hasTemplateArgs(name string) bool { return strings.Contains(name, "<") }

// needsDecodedUnit reports whether a query's name can only be checked on a
// decoded unit (scopes, template spellings), so units can't be ruled out
// by the bytes of their DW_AT_names.
func needsDecodedUnit(name string) bool { return IsScoped(name) || hasTemplateArgs(name) }

// Results lists the results of the scope's function as Go describes
// them: its formal parameters with DW_AT_variable_parameter set (unnamed
// ones are ~r0, ~r1, ...), in order. They have no location at the entry,
// so Vars leaves them out.
func (s *Scope) Results() []Entry {
	b, err := s.bind()
	if err != nil {
		return nil
	}
	t := b.t
	var out []Entry
	for j := b.sp + 1; j < t.end(b.sp); j++ {
		if int(t.dies[j].Parent) != b.sp || t.dies[j].Tag != dwarf.TagFormalParameter {
			continue
		}
		if a, err := t.attrs(j); err == nil {
			if x, ok := a.get(dwarf.AttrVarParam); ok && x.v != 0 {
				out = append(out, Entry{t, j})
			}
		}
	}
	return out
}

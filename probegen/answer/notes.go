package answer

// NoteKind says what a note of a resolution is about, for a library
// caller that acts on notes rather than shows them.
type NoteKind uint8

const (
	// NoteOther: none of the kinds below.
	NoteOther NoteKind = iota
	// NoteNotrace: the function has no ftrace call site; a kernel built
	// without CONFIG_KPROBE_EVENTS_ON_NOTRACE refuses kprobes in it.
	NoteNotrace
	// NoteInitText: the point is in init text (or a module's init
	// section), which the kernel frees.
	NoteInitText
	// NoteNotUnique: the symbol is not unique; the target is written
	// from another symbol (_text+OFFS) or a copy's own name.
	NoteNotUnique
	// NotePrologue: the point was moved past the function's prologue,
	// or to a return instruction.
	NotePrologue
	// NoteNearest: the line asked for has no code; the nearest was
	// probed (probegen.ResolveOptions.Nearest).
	NoteNearest
	// NoteOverload: a C++ name has several overloads; all are probed.
	NoteOverload
	// NoteSymbolsOnly: the target has no debuginfo; its symbol table
	// answered.
	NoteSymbolsOnly
	// NoteArgFilled: a variable missing at some points is written as a
	// placeholder there.
	NoteArgFilled
	// NoteArgSkipped: $vars, $params or an SDT note's operand left an
	// argument out.
	NoteArgSkipped
	// NoteGlobal: how a global variable is read may surprise (a copy
	// relocation, kallsyms without data symbols, a module-local symbol).
	NoteGlobal
	// NoteUnsafe: registering the probe crashes kernels of a known bug
	// (probegen/modtext.go: the last function of an x86-64 module's text).
	NoteUnsafe
)

var noteKindNames = [...]string{NoteOther: "other", NoteNotrace: "notrace", NoteInitText: "init-text", NoteNotUnique: "not-unique", NotePrologue: "prologue", NoteNearest: "nearest", NoteOverload: "overload", NoteSymbolsOnly: "symbols-only", NoteArgFilled: "arg-filled", NoteArgSkipped: "arg-skipped", NoteGlobal: "global", NoteUnsafe: "unsafe"}

func (k NoteKind) String() string { return enumName(noteKindNames[:], k, "NoteKind") }

// Note is one note of a resolution: what it is about, and its text (for
// people: dwprobe prints it as "note: TEXT").
type Note struct {
	Kind NoteKind
	Text string
}

func (n Note) String() string { return n.Text }

// NoteTexts are the texts of notes, in order.
func NoteTexts(ns []Note) []string {
	if ns == nil {
		return nil
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}

package grammar

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dwprobe/dwprobe/tracefs"
)

// RetInsnSuffix is what FUNC%ret writes after the function: a probe at
// each of its return instructions, read before it returns, which is what
// works in Go programs instead of %return.
const RetInsnSuffix = "ret"

// Point is a parsed probe point:
//
//	[[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] | SRC:ALN | SRC;PTN | 0xADDR[%return]
//
// The @SRC, :RLN, +OFFS and %return parts may come in any order, as in perf;
// ;PTN always ends the point. "@SRC:ALN" and "@SRC;PTN" are accepted as
// spellings of SRC:ALN and SRC;PTN (perf prints points that way).
type Point struct {
	Group, Event string // as given by the user; empty if not given
	Function     string // may contain glob chars; empty for SRC:ALN, SRC;PTN and 0xADDR
	File         string // @SRC, or the SRC of SRC:ALN / SRC;PTN
	Line         int    // FUNC:RLN relative line, or SRC:ALN absolute line; 0 if none
	HasLine      bool
	Offset       uint64
	HasOffset    bool
	Return       bool
	// RetInsns (FUNC%ret) probes each return instruction of FUNC instead
	// of its return address: what works in Go programs (see ErrGoReturn).
	RetInsns bool
	// Lazy is the PTN of ;PTN exactly as written: backslashes are kept,
	// because they are escapes for the lazy (glob) matcher, as in perf.
	Lazy   string
	Addr   uint64 // absolute address 0x...
	IsAddr bool
	// SDT: an SDT marker, %[GROUP:]EVENT (Group and Event globs;
	// probegen/sdtprobe resolves it).
	SDT bool
}

// AbsLine reports whether Line is an absolute line in File (SRC:ALN) rather
// than a line relative to Function's entry (FUNC:RLN).
func (p *Point) AbsLine() bool { return p.HasLine && p.Function == "" && !p.IsAddr }

// LineGiven reports whether the point names a line to probe. Like perf,
// which tests pp->line's value, FUNC:0 is FUNC: line 0 of a function is its
// entry, at every instance.
func (p *Point) LineGiven() bool { return p.HasLine && p.Line != 0 }

// Arg is one argument token, as perf splits it: [NAME=]EXPR[:TYPE][@user].
type Arg struct {
	Raw  string // the token as written
	Name string // NAME= part, if any
	Expr string // variable / register / $retval / @sym / raw fetcharg text
	Type string // :TYPE part, if any
	User bool   // @user suffix
	Col  int    // 1-based column of the token in the whole command string
	// Fetch is Expr read once, as the kernel reads a fetcharg
	// (tracefs.ReadFetch): the read plan of a raw fetcharg ("+8(%di)",
	// "$arg2"), which is written as given. For a C expression it is
	// BaseText with ParseFetch's reason, and unused.
	Fetch tracefs.Fetch
}

// Spec is a whole probe command: a point followed by its arguments.
type Spec struct {
	Raw   string
	Point Point
	Args  []Arg
}

// ParseSpec parses a full perf probe command: the point, then arguments
// separated by spaces or tabs. Like perf's argv_split there is no quoting:
// a space always separates tokens. Unlike perf, other whitespace and control
// characters (newline, CR, ...) are rejected, since they would end or corrupt
// the line later written to kprobe_events.
func ParseSpec(cmd string) (*Spec, error) {
	if err := CheckChars(cmd, cmd, 0, true); err != nil {
		return nil, err
	}
	toks := SplitArgs(cmd)
	if len(toks) == 0 {
		return nil, synErr(cmd, len(cmd)+1, "probe point missing")
	}
	if n := len(toks) - 1; n > tracefs.MaxArgs {
		return nil, synErr(cmd, toks[tracefs.MaxArgs+1].Off+1,
			fmt.Sprintf("too many probe arguments (%d, at most %d)", n, tracefs.MaxArgs))
	}
	p, err := parsePoint(cmd, toks[0].S, toks[0].Off)
	if err != nil {
		return nil, err
	}
	spec := &Spec{Raw: cmd, Point: *p}
	seen := make(map[string]bool)
	for _, t := range toks[1:] {
		a, err := ParseArg(cmd, t.S, t.Off)
		if err != nil {
			return nil, err
		}
		if a.Name != "" {
			if seen[a.Name] {
				return nil, &SyntaxError{Spec: cmd, Col: a.Col, Err: tracefs.ErrBadArgName,
					Msg: fmt.Sprintf("argument name %q used twice", a.Name)}
			}
			seen[a.Name] = true
		}
		// perf 6.1 refuses local variables in return probes: at function
		// return their locations are no longer valid.
		if p.Return && isCVarname(a.Expr) {
			exprCol := a.Col
			if a.Name != "" {
				exprCol += len(a.Name) + 1
			}
			return nil, synErr(cmd, exprCol, fmt.Sprintf("local variable %q can't be used with %%return", a.Expr))
		}
		spec.Args = append(spec.Args, a)
	}
	return spec, nil
}

// ParsePoint parses a probe point alone (no arguments, so no whitespace).
func ParsePoint(s string) (*Point, error) {
	if err := CheckChars(s, s, 0, false); err != nil {
		return nil, err
	}
	if s == "" {
		return nil, synErr(s, 1, "probe point missing")
	}
	return parsePoint(s, s, 0)
}

// String renders p in perf's synthesize_perf_probe_point form, e.g.
// "vfs_read:12@fs/read_write.c" or "@fs/read_write.c:470", with the
// differences needed for ParsePoint(p.String()) to give p back: the
// [GROUP:]EVENT= prefix and ;PTN are kept, the file is never shortened, and
// special characters in names are backslash-escaped.
func (p *Point) String() string {
	if p.SDT {
		return p.SDTString()
	}
	var b strings.Builder
	if p.Event != "" {
		if p.Group != "" {
			b.WriteString(p.Group)
			b.WriteByte(':')
		}
		b.WriteString(p.Event)
		b.WriteByte('=')
	}
	fn := funcText(p.Function)
	if p.IsAddr {
		fmt.Fprintf(&b, "%#x", p.Addr)
	} else {
		b.WriteString(fn)
	}
	if p.HasOffset {
		fmt.Fprintf(&b, "+%d", p.Offset)
	}
	if p.HasLine && p.Function != "" {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Return {
		b.WriteString("%return")
	}
	if p.RetInsns {
		b.WriteString("%" + RetInsnSuffix)
	}
	if p.File == "*" {
		b.WriteString(`@\*`) // a file named "*", not FUNC@*
	} else if p.File != "" {
		b.WriteByte('@')
		b.WriteString(escape(p.File))
	} else if p.Function != "" && (p.HasLine || p.Lazy != "") && looksLikeFile(fn) {
		b.WriteString("@*") // else read back as SRC:ALN
	}
	if p.HasLine && p.Function == "" {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Lazy != "" {
		b.WriteByte(';')
		b.WriteString(p.Lazy)
	}
	return b.String()
}

// funcText writes a function name so that the parser reads it back as
// that function: escaped, or quoted where the escaped text would read as an
// absolute address (a quoted name never holds '"'). Whether it could read
// as a file is decided on this text, as isFileSpec decides on what it reads.
func funcText(name string) string {
	if strings.HasPrefix(name, "0x") && !strings.Contains(name, `"`) {
		return `"` + name + `"`
	}
	return escape(name)
}

// specialChars are the characters perf gives a meaning inside a probe point;
// a backslash makes any of them literal. '"' quotes a name (upstream perf).
const specialChars = `\;:+@%="`

func escape(s string) string {
	if !strings.ContainsAny(s, specialChars) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(specialChars, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescape drops each escaping backslash (perf's strdup_esc). The caller has
// already rejected a trailing lone backslash.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// findUnescaped returns the index of the first byte of s[from:] that is in
// set, not escaped by a backslash and not inside a quoted name, or len(s).
func findUnescaped(s string, from int, set string) int {
	for i := from; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '"' && strings.IndexByte(set, '"') < 0:
			i = closingQuote(s, i)
		case strings.IndexByte(set, s[i]) >= 0:
			return i
		}
	}
	return len(s)
}

// closingQuote returns the index of the '"' closing the quoted name opened
// at s[open], or len(s)-1 when it is not closed (the caller reports it).
func closingQuote(s string, open int) int {
	if j := strings.IndexByte(s[open+1:], '"'); j >= 0 {
		return open + 1 + j
	}
	return len(s) - 1
}

func synErr(spec string, col int, msg string) *SyntaxError {
	return &SyntaxError{Spec: spec, Col: col, Msg: msg}
}

// CheckChars rejects control characters (tracefs.LineByte's) in s, which
// starts at byte base of spec. In a whole command (command true) spaces
// and tabs separate tokens; in a single token both are errors. '#' and
// byte 0xa0 are not refused here: tracefs refuses them where they reach
// a definition line.
func CheckChars(spec, s string, base int, command bool) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch k := tracefs.LineByte(c); {
		case c == '\t' && command:
		case k.Control():
			return synErr(spec, base+i+1,
				fmt.Sprintf("control character %s not allowed", strconv.QuoteRune(rune(c))))
		case k == tracefs.SpaceByte && !command:
			return synErr(spec, base+i+1, "unexpected space in probe point")
		}
	}
	return nil
}

// Token is a word of a probe command and where it starts.
type Token struct {
	S   string
	Off int // byte offset in the command
}

// SplitArgs splits at runs of spaces and tabs, as perf's argv_split does at
// whitespace (no quote processing).
func SplitArgs(s string) []Token {
	var toks []Token
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		toks = append(toks, Token{s[i:j], i})
		i = j
	}
	return toks
}

// isSDT is perf's is_sdt_event: "%..." or "sdt_...:..." without '='.
func isSDT(s string) bool {
	return strings.HasPrefix(s, "%") ||
		(strings.HasPrefix(s, "sdt_") && strings.Contains(s, ":") && !strings.Contains(s, "="))
}

// parsePoint follows perf's parse_perf_probe_point. s starts at byte base of
// spec; columns in errors are relative to spec.
func parsePoint(spec, s string, base int) (*Point, error) {
	pp := &pointParser{spec: spec, base: base, s: s, lineAt: -1, offAt: -1, retAt: -1, fileAt: -1}
	if isSDT(s) {
		return parseSDTPoint(spec, s, base)
	}
	steps := []func() error{pp.splitLazy, pp.eventPrefix, pp.name, pp.options, pp.lazy, pp.exclusions}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return &pp.p, nil
}

// pointParser holds a probe point being parsed: the text, what was found,
// and where, for the columns of errors.
type pointParser struct {
	spec string // the whole command, for errors
	base int    // s starts at byte base of spec
	s    string // the point
	head string // s before the lazy pattern
	semi int    // index of the ';' starting the lazy pattern, or -1
	p    Point
	// The name (after any EVENT=) is s[start:nameEnd].
	start, nameEnd int
	// Where each option starts in s, -1 when absent.
	lineAt, offAt, retAt, fileAt int
}

func (pp *pointParser) col(i int) int { return pp.base + i + 1 }

func (pp *pointParser) errAt(i int, format string, a ...any) error {
	return synErr(pp.spec, pp.col(i), fmt.Sprintf(format, a...))
}

// splitLazy finds the first unescaped ';', which starts the lazy pattern
// running to the end of the point. A lone backslash at the very end
// escapes nothing.
func (pp *pointParser) splitLazy() error {
	s := pp.s
	pp.semi = -1
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 == len(s) {
				return pp.errAt(i, "trailing backslash escapes nothing")
			}
			i++
			continue
		}
		if s[i] == '"' && pp.semi < 0 {
			if strings.IndexByte(s[i+1:], '"') < 0 {
				return pp.errAt(i, "quoted name not closed")
			}
			i = closingQuote(s, i)
			continue
		}
		if s[i] == ';' && pp.semi < 0 {
			pp.semi = i
		}
	}
	pp.head = s
	if pp.semi >= 0 {
		pp.head = s[:pp.semi]
	}
	return nil
}

// eventPrefix reads [[GROUP:]EVENT=]: an '=' before any of "@+%" (';'
// ends head).
func (pp *pointParser) eventPrefix() error {
	head := pp.head
	e := findUnescaped(head, 0, "=@+%")
	if e == len(head) || head[e] != '=' {
		return nil
	}
	ev, evStart := head[:e], 0
	if g := strings.IndexByte(ev, ':'); g >= 0 {
		if err := tracefs.ValidateName(tracefs.GroupName, ev[:g]); err != nil {
			return &SyntaxError{Spec: pp.spec, Col: pp.col(0), Err: tracefs.ErrBadGroupName, Msg: err.Error()}
		}
		pp.p.Group = ev[:g]
		ev, evStart = ev[g+1:], g+1
	}
	if err := tracefs.ValidateName(tracefs.EventName, ev); err != nil {
		return &SyntaxError{Spec: pp.spec, Col: pp.col(evStart), Err: tracefs.ErrBadEventName, Msg: err.Error()}
	}
	pp.p.Event = ev
	pp.start = e + 1
	return nil
}

// isFileSpec is perf's test for SRC:ALN or SRC;PTN: none of "+@%", a ':'
// or ';', and a '.' before that ':' or ';'. Here '/' also marks a file,
// and only the part before ';' is searched for "+@%" (the pattern may
// contain anything).
//
// perf's '.' test reads Go's "main.fn:3" and Rust's "r::work:2" as files;
// so a name with "::", a parenthesis (Go's "pkg.(*T).M"), or a last
// element whose extension is not a source file's ("main.positional",
// "example.com/app/shapes.Area") is a function here. A quoted name
// ("\"ns::C::m\"") is always one.
func (pp *pointParser) isFileSpec() bool {
	head := pp.head
	if findUnescaped(head, pp.start, "+@%") < len(head) {
		return false
	}
	c := findUnescaped(head, pp.start, ":")
	if c == len(head) && pp.semi < 0 {
		return false
	}
	return looksLikeFile(head[pp.start:c])
}

// sourceExts are the extensions that make a dotted name a source file
// rather than a Go or Rust function.
var sourceExts = map[string]bool{
	"c": true, "h": true, "cc": true, "cp": true, "cpp": true, "cxx": true, "c++": true,
	"hh": true, "hpp": true, "hxx": true, "h++": true, "ipp": true, "tcc": true, "inl": true,
	"inc": true, "def": true, "s": true, "S": true, "asm": true, "go": true, "rs": true,
	"m": true, "mm": true, "y": true, "l": true, "lds": true, "d": true, "f": true,
	"f90": true, "C": true, "H": true, "zig": true, "swift": true, "cu": true,
}

// looksLikeFile reports whether name, the text before ':' or ';', is a
// source file (SRC:ALN, SRC;PTN) rather than a function.
func looksLikeFile(name string) bool {
	if strings.HasPrefix(name, "\"") || strings.Contains(name, "::") || strings.ContainsAny(name, "()") {
		return false
	}
	base := name[strings.LastIndexByte(name, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return strings.Contains(name, "/")
	}
	ext := base[dot+1:]
	// perf reads gcc's clones ("getname_flags.part.0", "f.cold") and
	// versioned symbols ("malloc\@GLIBC_2.2.5") as files: so does this.
	return sourceExts[ext] || gccSuffixes[ext] || strings.Trim(ext, "0123456789") == ""
}

// gccSuffixes end the names of gcc's function clones.
var gccSuffixes = map[string]bool{"cold": true, "part": true, "isra": true, "constprop": true, "lto_priv": true, "localalias": true}

// name reads the function, file or absolute address, which runs to the
// first of ":+@%".
//
// A name in double quotes is a function taken as written, as upstream perf
// accepts for C++, Rust and Go names: '"ns::C::operator<"'.
func (pp *pointParser) name() error {
	if pp.start < len(pp.head) && pp.head[pp.start] == '"' {
		return pp.quotedName()
	}
	pp.nameEnd = nameEnd(pp.head, pp.start)
	name := unescape(pp.head[pp.start:pp.nameEnd])
	switch {
	case name == "":
	case pp.isFileSpec():
		pp.p.File, pp.fileAt = name, pp.start
	case strings.HasPrefix(name, "0x"):
		a, ok := ParseNum(name)
		if !ok {
			return pp.errAt(pp.start, "invalid absolute address %q", name)
		}
		pp.p.Addr, pp.p.IsAddr = a, true
	default:
		pp.p.Function = name
	}
	return nil
}

// nameEnd returns where the name starting at s[from] ends: at the first of
// ":+@%" not escaped, a "::" (C++ and Rust scopes) being part of the name.
func nameEnd(s string, from int) int {
	for {
		i := findUnescaped(s, from, ":+@%")
		if i+1 >= len(s) || s[i] != ':' || s[i+1] != ':' {
			return i
		}
		from = i + 2
	}
}

// quotedName reads a "..." function name (splitLazy checked it is closed).
func (pp *pointParser) quotedName() error {
	end := closingQuote(pp.head, pp.start)
	name := pp.head[pp.start+1 : end]
	if name == "" {
		return pp.errAt(pp.start, "empty quoted name")
	}
	pp.p.Function, pp.nameEnd = name, end+1
	if pp.nameEnd < len(pp.head) && !strings.ContainsRune(":+@%", rune(pp.head[pp.nameEnd])) {
		return pp.errAt(pp.nameEnd, "unexpected %q after the quoted name", pp.head[pp.nameEnd])
	}
	return nil
}

// options reads the :RLN, +OFFS, @SRC and %return parts, each up to the
// next of ":+@%", in any order.
func (pp *pointParser) options() error {
	head := pp.head
	for i := pp.nameEnd; i < len(head); {
		j := findUnescaped(head, i+1, ":+@%")
		var err error
		switch arg := head[i+1 : j]; head[i] {
		case ':':
			err = pp.line(i, arg)
		case '+':
			err = pp.offset(i, arg)
		case '@':
			err = pp.file(i, arg)
		case '%':
			err = pp.ret(i, arg)
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (pp *pointParser) line(i int, arg string) error {
	n, err := pp.number(i, arg, pp.lineAt, "line number", math.MaxInt32)
	if err != nil {
		return err
	}
	pp.p.Line, pp.p.HasLine, pp.lineAt = int(n), true, i
	return nil
}

func (pp *pointParser) offset(i int, arg string) error {
	n, err := pp.number(i, arg, pp.offAt, "offset", math.MaxUint64)
	if err != nil {
		return err
	}
	pp.p.Offset, pp.p.HasOffset, pp.offAt = n, true, i
	return nil
}

// number reads arg, the number of the option at i (what names it; at is
// where it was seen before, -1 if not), up to limit.
func (pp *pointParser) number(i int, arg string, at int, what string, limit uint64) (uint64, error) {
	if at >= 0 {
		return 0, pp.errAt(i, "%s given twice", what)
	}
	if arg == "" {
		return 0, pp.errAt(i+1, "%s missing after '%c'", what, pp.s[i])
	}
	n, ok := ParseNum(arg)
	if !ok || n > limit {
		return 0, pp.errAt(i+1, "invalid %s %q", what, arg)
	}
	return n, nil
}

// file reads @SRC. FUNC@* (upstream perf) says FUNC is a function in any
// file: a way to write a name perf would read as a file, "main.go_fn@*:3".
func (pp *pointParser) file(i int, arg string) error {
	if pp.fileAt >= 0 {
		return pp.errAt(i, "SRC@SRC is not allowed")
	}
	if arg == "" {
		return pp.errAt(i+1, "file name missing after '@'")
	}
	if arg == "*" {
		pp.fileAt = i
		return nil
	}
	pp.p.File, pp.fileAt = unescape(arg), i
	return nil
}

// ret reads %return, or %ret (a probe at each return instruction).
func (pp *pointParser) ret(i int, arg string) error {
	switch {
	case arg == "":
		return pp.errAt(i+1, "probe place missing after '%%' (only %%return and %%ret are supported)")
	case arg != "return" && arg != RetInsnSuffix:
		return pp.errAt(i, "%%%s is not supported (only %%return and %%ret)", arg)
	case pp.retAt >= 0:
		return pp.errAt(i, "%%return or %%ret given twice")
	}
	pp.p.Return, pp.p.RetInsns, pp.retAt = arg == "return", arg == RetInsnSuffix, i
	return nil
}

// lazy takes the pattern after ';' as written.
func (pp *pointParser) lazy() error {
	if pp.semi < 0 {
		return nil
	}
	pp.p.Lazy = pp.s[pp.semi+1:]
	if pp.p.Lazy == "" {
		return pp.errAt(pp.semi+1, "lazy pattern missing after ';'")
	}
	return nil
}

// exclusions applies perf's rules on the parts that do not go together.
// perf tests the values (a zero line or offset counts as absent); here
// writing one is enough, except that "+0%return" stays valid since
// "r SYM+0" is what the kernel accepts.
func (pp *pointParser) exclusions() error {
	p, lazy := &pp.p, pp.semi >= 0
	noAnchor := p.Function == "" && !p.IsAddr
	switch {
	case p.IsAddr && pp.fileAt >= 0:
		return pp.errAt(pp.fileAt, "absolute address can't be used with @SRC")
	case p.IsAddr && p.HasLine:
		return pp.errAt(pp.lineAt, "absolute address can't be used with a line number")
	case p.IsAddr && p.HasOffset:
		return pp.errAt(pp.offAt, "absolute address can't be used with an offset")
	case p.IsAddr && lazy:
		return pp.errAt(pp.semi, "absolute address can't be used with a lazy pattern")
	case lazy && p.HasLine:
		return pp.errAt(pp.semi, "lazy pattern can't be used with a line number")
	case lazy && p.HasOffset:
		return pp.errAt(pp.semi, "lazy pattern can't be used with an offset")
	case p.HasLine && p.HasOffset:
		return pp.errAt(max(pp.lineAt, pp.offAt), "offset can't be used with a line number")
	case noAnchor && p.File == "":
		return pp.errAt(pp.start, "function, source file or address missing")
	case noAnchor && p.HasOffset:
		return pp.errAt(pp.offAt, "offset requires an entry function")
	case noAnchor && (p.Return || p.RetInsns):
		return pp.errAt(pp.retAt, "%%return requires a function")
	case noAnchor && !p.HasLine && !lazy:
		return pp.errAt(len(pp.s), "source file requires a line number (SRC:ALN) or a lazy pattern (SRC;PTN)")
	case p.AbsLine() && p.Line == 0:
		return pp.errAt(pp.lineAt+1, "line number in a source file must be positive")
	case p.RetInsns && (p.HasLine || lazy || p.HasOffset || p.File != ""):
		return pp.errAt(pp.retAt, "%%ret takes only a function")
	case p.Return && p.HasLine:
		return pp.errAt(pp.retAt, "%%return can't be used with a line number")
	case p.Return && lazy:
		return pp.errAt(pp.retAt, "%%return can't be used with a lazy pattern")
	case p.Return && p.Offset != 0:
		return pp.errAt(pp.retAt, "%%return can't be used with a non-zero offset")
	}
	return nil
}

// ParseNum parses like C strtoul(s, &end, 0) with *end == '\0': decimal,
// 0x hexadecimal or 0 octal, and nothing else (no sign, no space, no Go
// underscores or 0b/0o prefixes).
func ParseNum(s string) (uint64, bool) {
	digits, b := s, uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		digits, b = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		digits, b = s[1:], 8
	}
	if digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digitVal(digits[i]) >= b {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, int(b), 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func digitVal(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}

// isCVarname is perf's is_c_varname: a C local variable, as opposed to a
// register (%ax), special ($retval) or symbol (@sym) argument.
func isCVarname(s string) bool {
	return s != "" && (isAlpha(s[0]) || s[0] == '_')
}

// ParseArg splits one argument token like perf's parse_perf_probe_arg:
// NAME is up to the first '=', a final "@user" marks user memory, and TYPE
// follows the first ':' of the rest.
func ParseArg(spec, raw string, off int) (Arg, error) {
	a := Arg{Raw: raw, Col: off + 1}
	str, at := raw, 0
	if i := strings.IndexByte(str, '='); i >= 0 {
		name := str[:i]
		if err := tracefs.ValidateName(tracefs.ArgName, name); err != nil {
			return a, &SyntaxError{Spec: spec, Col: off + 1, Err: tracefs.ErrBadArgName, Msg: err.Error()}
		}
		a.Name = name
		str, at = str[i+1:], i+1
	}
	if len(str) > len("@user") && strings.HasSuffix(str, "@user") {
		a.User = true
		str = str[:len(str)-len("@user")]
	}
	if i := strings.IndexByte(str, ':'); i >= 0 {
		if i+1 == len(str) {
			return a, synErr(spec, off+at+i+2, "type missing after ':'")
		}
		a.Type = str[i+1:]
		str = str[:i]
	}
	if str == "" {
		return a, synErr(spec, off+at+1, "argument expression missing")
	}
	a.Expr, a.Fetch = str, tracefs.ReadFetch(str)
	return a, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dwprobe/dwprobe/probegen"
)

// options holds perf probe 6.1's options, with its names.
type options struct {
	vmlinux     string
	btf         string
	exec        string
	module      string
	symfs       string
	targetNS    string
	source      string
	prefixMaps  []string
	defs        []string
	adds        []string
	line        string
	vars        []string
	funcs       string
	filter      string
	noInlines   bool
	nearest     bool
	fprobe      bool // --fprobe: function entries and returns as f: fprobe events
	maxProbes   int
	verbose     int
	quiet       bool
	force       bool
	dryRun      bool
	externs     bool
	rangeOpt    bool
	detail      bool // --detail: -L lists each line's points and variables
	del         []string
	list        string
	apply       string
	bootconfig  bool
	json        bool
	points      bool // resolve whole points (Resolution.Probes), not definitions alone: --json, trace
	funcsSet    bool
	sdt         bool   // --sdt: list -x's SDT markers
	symbolsOnly bool   // open the target's DWARF or its symbols, never BTF (-l, --fleet)
	exe         string // -x's path as its uprobes name it (probegen.Target.Exe), once opened
	listSet     bool
	show        string // "help", "version", "man" or "completion": print it and stop
	completion  string // the shell of --completion
	debuginfod  string // --debuginfod[=URLS]: "system" for $DEBUGINFOD_URLS
	buildIndex  bool   // build (or verify) the target's index and stop
	noIndex     bool   // scan the debuginfo, as without an index
	diffNew     string // --diff: the new build of the target, whose -D specs are compared (diff.go)
	diffSource  string // --diff-source: the new build's source tree
	fleet       string // --fleet: the file of builds -D's specs are checked against (fleet.go)
	fleetJobs   int    // --fleet-jobs: builds checked at once; 0: as memory allows
	junit       string // --junit: where a --fleet run writes its JUnit XML report
	// ctx is the run's: a signal ends the opening, decompression,
	// download and walks of the target (dispatch sets it).
	ctx context.Context
}

const usageHead = `usage: dwprobe [options] PROBE [ARG...]

Turn source-level probe specs into kprobe/uprobe definitions using DWARF
debuginfo, with perf probe 6.1's options, spec syntax and output.

PROBE (perf probe syntax):
  [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN]
  [[GROUP:]EVENT=]SRC:ALN | SRC;PTN | 0xADDR[%return]
    FUNC     function name, may be a glob (vfs_rea*)
    @SRC     source file of the function (fs/read_write.c)
    :RLN     line relative to the function's declaration line
    +OFFS    byte offset from the function entry (checked against
             instruction boundaries on x86_64)
    %return  return probe
    ;PTN     lazy pattern: a probe on every line of FUNC (or SRC) whose
             source matches PTN, a glob with spaces ignored ('schedule;rq=cpu_rq*');
             needs the source (-s)
    SRC:ALN  absolute line ALN of source file SRC
  %[GROUP:]EVENT | sdt_PROVIDER:NAME [[NAME=]argN[:TYPE]...]
             SDT marker of the -x binary (globs; --sdt lists them): its
             note's arguments arg1..argN, or those picked
  Special characters in names are escaped with a backslash.
  @FILE in place of PROBE (-D, -a, -V) reads PROBEs from FILE, one per
  line (@-: stdin; blank lines and # comments skipped). Every PROBE of a
  file is tried: a failing one is reported as FILE:LINE:COL: message, the
  others are still printed, and the exit status is the first failure's
  (-a adds nothing unless every PROBE resolves).

Examples:
  dwprobe -k vmlinux -D vfs_read             p:probe/vfs_read vfs_read+0
  dwprobe -k vmlinux -D 'vfs_read:12'        p:probe/vfs_read_L12 vfs_read+114
  dwprobe -k vmlinux -D 'vfs_read%return'    r:probe/vfs_read__return vfs_read+0
  dwprobe -k vmlinux -D fs/read_write.c:470
  dwprobe -k vmlinux -s ~/linux -D 'vfs_read;ret = rw_verify_area*'
  dwprobe -k vmlinux -s ~/linux -L vfs_read
  dwprobe -k vmlinux -F 'vfs_*'
  dwprobe -x ./app -a 'work:3 p->name:string'   add a uprobe (as root)
  dwprobe -x ./app 'work:3 p->name:string'      the same
  dwprobe -x /usr/bin/python3.11 -a 'sdt_python:function__entry file=arg1:string'
  dwprobe -l                                     list the probes, mapped back to source
  dwprobe -d 'probe_app:*'                       delete probes
  dwprobe -k vmlinux -D vfs_read > defs; dwprobe --apply defs
  dwprobe -k vmlinux --bootconfig -D vfs_read    boot-time tracing
  dwprobe -k vmlinux -D @specs.txt --json        check a list of probes
  dwprobe -k old/vmlinux -s old/linux --diff new/vmlinux --diff-source new/linux -D @specs.txt
                                                 what changed for a list of probes
  dwprobe --fleet builds.txt -D @specs.txt --junit report.xml
                                                 check a list of probes against many kernels
                                                 (builds.txt: NAME BUILD-ID|VMLINUX [SOURCE] a line;
                                                 build-ids through debuginfod)
  dwprobe trace -x ./app 'work:3 p->name:string' -- ./app
                                                 live values through BPF (dwprobe trace --help)

Options:
`

func newFlags(o *options, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("dwprobe", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.StringVarP(&o.vmlinux, "vmlinux", "k", "", "vmlinux with debuginfo (default: the running kernel's, found as perf does)")
	fs.StringVar(&o.btf, "btf", "", "resolve kernel probes from the BTF of FILE (a raw blob or an ELF with .BTF), as without debuginfo")
	fs.StringVarP(&o.exec, "exec", "x", "", "target executable or shared library (uprobes)")
	fs.StringVarP(&o.module, "module", "m", "", "target kernel module: NAME (found for the kernel's release, as modprobe does) or the path of a .ko, .ko.xz, .ko.zst or .ko.gz")
	fs.StringVarP(&o.source, "source", "s", "", "root of the source tree, for -L and lazy patterns")
	fs.StringArrayVar(&o.prefixMaps, "source-prefix-map", nil, "find sources built under OLD (e.g. /build/reproducible-path/linux-6.1.192) in NEW (repeatable)")
	fs.StringArrayVarP(&o.defs, "definition", "D", nil, "print the kprobe/uprobe definition of PROBE (or of each PROBE of @FILE), do not add it (repeatable)")
	fs.StringArrayVarP(&o.adds, "add", "a", nil, "add PROBE (or every PROBE of @FILE) to kprobe_events (uprobe_events with -x) (repeatable)")
	fs.StringArrayVarP(&o.del, "del", "d", nil, "delete the probe events matching [GROUP:]EVENT, a glob or filter (repeatable)")
	fs.StringVarP(&o.list, "list", "l", "", "list the current probe events, optionally those matching [GROUP:]EVENT")
	fs.Lookup("list").NoOptDefVal = "*"
	fs.StringVar(&o.apply, "apply", "", "add the definition lines of FILE (\"-\": stdin), as -D prints them, all or none")
	fs.StringVarP(&o.line, "line", "L", "", "show source lines that can be probed: FUNC[:RLN[+NUM|-RLN2]][@SRC] or SRC:ALN[+NUM|-ALN2]")
	fs.StringArrayVarP(&o.vars, "vars", "V", nil, "show the variables reachable at PROBE (or at each PROBE of @FILE)")
	fs.BoolVar(&o.externs, "externs", false, "with -V, show the unit's external variables too")
	fs.BoolVar(&o.rangeOpt, "range", false, "with -V, show where each variable has a location")
	fs.BoolVar(&o.detail, "detail", false, "with -L, show each probeable line's points (inlined copies too) and the variables readable there")
	fs.StringVarP(&o.funcs, "funcs", "F", "", "list functions, optionally filtered by FILTER")
	fs.Lookup("funcs").NoOptDefVal = "\x00"
	fs.BoolVar(&o.sdt, "sdt", false, "list the SDT markers of -x's binary (sdt_PROVIDER:NAME, as -D takes them), filtered by --filter")
	fs.StringVar(&o.filter, "filter", "", "filter for -F (default \"!_* & !*@plt\") and -V")
	fs.BoolVar(&o.noInlines, "no-inlines", false, "probe only the out-of-line instances of functions")
	fs.BoolVar(&o.nearest, "nearest", false, "when a FUNC:RLN or SRC:ALN line has no code, probe the nearest line that has some")
	fs.BoolVar(&o.fprobe, "fprobe", false, "write kernel probes at function entries and returns as f: fprobe events (Linux 6.5 and later)")
	fs.IntVar(&o.maxProbes, "max-probes", probegen.DefaultMaxProbes, "maximum number of probe points one PROBE may resolve to")
	fs.CountVarP(&o.verbose, "verbose", "v", "be more verbose (repeat for more)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print only errors")
	fs.BoolVarP(&o.force, "force", "f", false, "with -a, add under a numbered name (EVENT_1) when the event exists")
	fs.BoolVarP(&o.dryRun, "dry-run", "n", false, "do everything but write to tracefs")
	fs.BoolVarP(&o.bootconfig, "bootconfig", "b", false, "with -D, print the kprobes as a bootconfig for boot-time tracing")
	fs.BoolVar(&o.json, "json", false, "print results as JSON, one object per line (schema in the man page, \"JSON output\")")
	fs.BoolVar(&o.buildIndex, "build-index", false, "build (or verify) the index of the -k/-x target's debuginfo, then stop")
	fs.BoolVar(&o.noIndex, "no-index", false, "do not use (or build) the debuginfo index: scan the debuginfo")
	fs.StringVar(&o.diffNew, "diff", "", "with -D, resolve the specs in NEW too, a new build of the -k vmlinux, -m module or -x binary, and say how each changed: unchanged, args, points, moved or broken (with the line now holding a moved statement)")
	fs.StringVar(&o.diffSource, "diff-source", "", "root of the source tree of --diff's NEW, as -s is the first build's")
	fs.StringVar(&o.fleet, "fleet", "", "with -D, check the specs against each kernel build of FILE (one a line: [NAME] BUILD-ID|VMLINUX [SOURCE]; build-ids fetched through debuginfod), each diffed against the first build of its machine, and summarise each spec across the builds")
	fs.IntVar(&o.fleetJobs, "fleet-jobs", 0, "with --fleet, check N builds at once (default: as many as the cores and the memory allow)")
	fs.StringVar(&o.junit, "junit", "", "with --fleet, also write the report as JUnit XML to FILE: a testsuite per build, a testcase per spec")
	for _, n := range []string{"cache", "demangle", "demangle-kernel", "no-demangle"} {
		fs.Bool(n, false, "perf option (not yet supported)")
	}
	fs.StringVar(&o.symfs, "symfs", "", "look for -x's binary, the vmlinux, modules and debuginfo (/boot, /lib/modules, /usr/lib/debug) under DIR")
	fs.StringVar(&o.targetNS, "target-ns", "", "look for -x's binary and its debuginfo in the mount namespace of process PID (a container)")
	fs.StringVar(&o.debuginfod, "debuginfod", "", debuginfodUsage)
	fs.Lookup("debuginfod").NoOptDefVal = debuginfodSystem
	fs.BoolP("help", "h", false, "show this help on stdout")
	fs.Bool("version", false, "show the version and VCS revision dwprobe was built from")
	fs.Bool("man", false, "print the man page (roff)")
	fs.StringVar(&o.completion, "completion", "", "print the completion script for SHELL (bash or zsh)")
	fs.Usage = func() { writeHelp(stderr, fs) }
	return fs
}

// unsupported lists options that parse but are not implemented yet; using
// one is an error rather than being silently ignored.
var unsupported = []string{"cache", "demangle", "demangle-kernel", "no-demangle"}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "trace" {
		return runTrace(ctx, args[1:], stdout, stderr)
	}
	o, err := parseOptions(args, stderr)
	if err != nil {
		return asUsage(err)
	}
	if o.show != "" {
		return show(o, stdout)
	}
	out := &countingWriter{w: stdout}
	err = dispatch(ctx, o, out, stderr)
	return withHints(interrupted(ctx, err, out.n > 0), o)
}

// parseOptions reads the command line and refuses what does not go
// together.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	var o options
	fs := newFlags(&o, stderr)
	args, err := expandLongOpts(fs, args)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(joinOptArgs(args)); err != nil {
		return nil, fmt.Errorf("%w (see dwprobe --help)", err)
	}
	if o.show = shown(fs); o.show != "" {
		return &o, nil
	}
	o.funcsSet = fs.Changed("funcs")
	o.listSet = fs.Changed("list")
	for _, n := range unsupported {
		if fs.Changed(n) {
			return nil, fmt.Errorf("option --%s is not yet supported", n)
		}
	}
	if err := positional(&o, fs.Args()); err != nil {
		return nil, err
	}
	if err := checkModuleOptions(&o); err != nil {
		return nil, err
	}
	if err := checkTargetNS(&o); err != nil {
		return nil, err
	}
	if o.exec != "" && o.vmlinux != "" {
		return nil, errors.New("-x and -k are exclusive: probe a user binary or a kernel, not both")
	}
	if o.exec != "" && o.btf != "" {
		return nil, errors.New("--btf describes a kernel's vmlinux: it does not go with -x")
	}
	switch modes(&o) {
	case 0:
		fs.Usage()
		return nil, errors.New("nothing to do: give PROBE, -a, -d, -l, --apply, -D, -L, -V, -F or --sdt")
	case 1:
	default:
		return nil, errors.New("-a (or PROBE), -d, -l, --apply, -D, -L, -V, -F and --sdt are exclusive")
	}
	if err := checkSourceDir(o.source); err != nil {
		return nil, err
	}
	if err := checkDiffOptions(&o); err != nil {
		return nil, err
	}
	if err := checkFleetOptions(&o); err != nil {
		return nil, err
	}
	if o.maxProbes <= 0 {
		return nil, fmt.Errorf("--max-probes must be positive, not %d", o.maxProbes)
	}
	if o.sdt && o.exec == "" {
		return nil, errors.New("--sdt lists the SDT markers of a user binary: give it with -x")
	}
	if o.bootconfig && len(o.defs) == 0 {
		return nil, errors.New("--bootconfig goes with -D: it prints definitions for boot-time tracing, it does not add them")
	}
	if o.detail && o.line == "" {
		return nil, errors.New("--detail goes with -L: it shows the points and variables of each line -L lists")
	}
	if o.bootconfig && o.json {
		return nil, errors.New("--bootconfig and --json are two output formats: choose one (-D --json gives the definitions)")
	}
	return &o, nil
}

// modes counts the modes asked for; exactly one must be.
func modes(o *options) int {
	n := 0
	for _, b := range []bool{len(o.defs) > 0, o.line != "", o.funcsSet, len(o.vars) > 0,
		len(o.adds) > 0, len(o.del) > 0, o.listSet, o.apply != "", o.sdt, o.buildIndex} {
		if b {
			n++
		}
	}
	return n
}

// dispatch runs the one mode o asks for.
func dispatch(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	o.ctx = ctx
	// These need no debuginfo of the target, or open it themselves.
	switch {
	case len(o.del) > 0:
		return runDelete(ctx, o, stdout, stderr)
	case o.listSet:
		return runList(o, stdout, stderr)
	case o.apply != "":
		return runApply(ctx, o, stdout, stderr)
	case o.fleet != "":
		return runFleet(ctx, o, stdout, stderr)
	}
	tgt, done, err := openFor(o)
	if err != nil {
		return err
	}
	defer done()
	o.exe = tgt.Exe()
	if tgt.Source == probegen.SourceBTF {
		return dispatchBTF(ctx, o, tgt, stdout, stderr)
	}
	if err := needsDebuginfo(o, tgt); err != nil {
		return err
	}
	if o.buildIndex {
		return runBuildIndex(o, tgt, stdout, stderr)
	}
	useIndex(o, tgt, stderr)
	switch {
	case len(o.adds) > 0:
		return runAdd(ctx, o, tgt, stdout, stderr)
	case o.diffNew != "":
		return runDiff(ctx, o, tgt, stdout, stderr)
	case len(o.defs) > 0 && o.bootconfig:
		return runBootconfig(ctx, o, tgt, stdout, stderr)
	case len(o.defs) > 0:
		return runDefinitions(ctx, o, tgt, stdout, stderr)
	case o.line != "":
		return runLines(o, tgt, stdout, stderr)
	case o.sdt:
		return runSDT(o, tgt, stdout)
	case len(o.vars) > 0:
		return runVars(ctx, o, tgt, stdout, stderr)
	default:
		return runFuncs(o, tgt, stdout)
	}
}

// positional takes the words after the options as perf does: an absolute
// path first is the binary to probe (as -x) unless -x was given, and the
// other words are joined into one probe to add ("dwprobe -x app work:3
// p->name:string").
func positional(o *options, rest []string) error {
	if len(rest) == 0 {
		return nil
	}
	if len(o.defs) > 0 || o.line != "" || o.funcsSet || o.sdt || len(o.vars) > 0 || len(o.del) > 0 || o.listSet || o.apply != "" {
		return unexpectedArgs(o, rest)
	}
	if rest[0] == "-" {
		return errors.New("'-' is not a probe (--apply - reads definitions from stdin)")
	}
	if o.exec == "" && o.module == "" && strings.HasPrefix(rest[0], "/") {
		// perf's set_target: a module when it ends in .ko.
		if probegen.IsModuleFile(rest[0]) {
			o.module = rest[0]
		} else {
			o.exec = rest[0]
		}
		if rest = rest[1:]; len(rest) == 0 {
			return fmt.Errorf("no probe after the binary %s", o.exec+o.module)
		}
	}
	if allSpecFiles(rest) {
		o.adds = append(o.adds, rest...) // dwprobe -x app @a.txt @b.txt
		return nil
	}
	o.adds = append(o.adds, strings.Join(rest, " "))
	return nil
}

// joinOptArgs lets -F and -l take their optional argument as the next word,
// as perf's option parser does ("-F 'vfs_*'"): pflag only takes "-F=x".
func joinOptArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-F", "--funcs", "-l", "--list":
			if i+1 < len(args) && args[i+1] != "" && args[i+1][0] != '-' {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		case "--":
			return append(out, args[i:]...)
		}
		out = append(out, a)
	}
	return out
}

// runningKernel reads the release and GNU build-id of the running kernel.
func runningKernel() (rel, bid string) {
	return probegen.RunningBuild()
}

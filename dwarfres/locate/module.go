package locate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
)

// moduleExts are the names a module file ends with: plain, and each
// compression the kernel installs modules with.
var moduleExts = []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"}

// ModuleName is the name modprobe knows the module file at path by: its
// base name without .ko (and a compression suffix), with '-' read as '_'
// as the kernel and modprobe do ("nf-tables.ko" is nf_tables). ok is
// false when path is no module file name.
func ModuleName(path string) (name string, ok bool) {
	base := filepath.Base(path)
	for _, ext := range moduleExts {
		if n, found := strings.CutSuffix(base, ext); found && n != "" {
			return NormModuleName(n), true
		}
	}
	return "", false
}

// NormModuleName folds '-' into '_': module names are equal when they
// differ only there.
func NormModuleName(name string) string {
	return strings.ReplaceAll(name, "-", "_")
}

// IsModulePath reports whether arg names a module file rather than a
// module: it has a directory or a module file suffix, as perf decides.
func IsModulePath(arg string) bool {
	_, ok := ModuleName(arg)
	return ok || strings.ContainsRune(arg, '/')
}

// ModuleDep is one line of modules.dep: a module, its file relative to
// the release's module directory (or absolute), and the files it needs.
type ModuleDep struct {
	Name string
	Path string
	Deps []string
}

// ParseModulesDep reads modules.dep as depmod writes it, one
// "PATH: DEP..." line per module. A line without the colon is malformed
// (a *elfobj.DecodeError naming its line, wrapping elfobj.ErrMalformed).
func ParseModulesDep(r io.Reader) ([]ModuleDep, error) {
	var out []ModuleDep
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := uint64(1); sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		path, deps, found := strings.Cut(line, ":")
		name, ok := ModuleName(strings.TrimSpace(path))
		if !found || !ok {
			return nil, &elfobj.DecodeError{Section: "modules.dep", Offset: n, Msg: fmt.Sprintf("line %d is not \"MODULE.ko: DEPS\"", n)}
		}
		d := ModuleDep{Name: name, Path: strings.TrimSpace(path)}
		if f := strings.Fields(deps); len(f) > 0 {
			d.Deps = f
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("modules.dep: %w", err)
	}
	return out, nil
}

// ModuleNotFoundError reports a module name not found for Release; it
// wraps ErrModuleNotFound. Tried are the files read and the directories
// searched; Builtin is set when modules.builtin lists the name (it is in
// the vmlinux, not a module).
type ModuleNotFoundError struct {
	Name    string
	Release string
	Tried   []string
	Builtin bool
}

func (e *ModuleNotFoundError) Error() string {
	if e.Builtin {
		return fmt.Sprintf("%s: %v: it is built into kernel %s (probe it without a module)", e.Name, ErrModuleNotFound, e.Release)
	}
	return fmt.Sprintf("%s: %v for kernel %s; looked in %s", e.Name, ErrModuleNotFound, e.Release, strings.Join(e.Tried, ", "))
}

func (e *ModuleNotFoundError) Unwrap() error { return ErrModuleNotFound }

// moduleRoots are where a system installs its kernels' modules:
// /lib/modules, where perf and kmod look by default, and /usr/lib/modules,
// where a merged-/usr system keeps them (kmod built with
// --with-module-directory=/usr/lib/modules, as Fedora's and Arch's are;
// and a merged-/usr root taken without its /lib -> usr/lib link).
var moduleRoots = []string{"/lib/modules", "/usr/lib/modules"}

// ModuleDir is where the modules of release are installed, under l.Root:
// the first of moduleRoots that has a directory for release, else
// /lib/modules's.
func (l *Locator) ModuleDir(release string) string {
	dirs := l.moduleDirs(release)
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return dirs[0]
}

// moduleDirs is release's directory under each of moduleRoots, in l.Root.
func (l *Locator) moduleDirs(release string) []string {
	var dirs []string
	for _, r := range moduleRoots {
		dirs = append(dirs, filepath.Join(Rooted(l.Root, r), release))
	}
	return dirs
}

// FindModule returns the file of module name for kernel release, as
// modprobe finds it: through the release's modules.dep, or, without one,
// by searching the release's module directory as perf does (ModuleDir:
// /lib/modules, else /usr/lib/modules). Errors wrap
// ErrModuleNotFound (a *ModuleNotFoundError) or the file system's.
func (l *Locator) FindModule(release, name string) (string, error) {
	name = NormModuleName(name)
	dir := l.ModuleDir(release)
	nf := &ModuleNotFoundError{Name: name, Release: release}
	dep := filepath.Join(dir, "modules.dep")
	nf.Tried = append(nf.Tried, dep)
	p, err := findInModulesDep(dep, name)
	switch {
	case err == nil && p != "":
		return moduleFile(dir, p), nil
	case err == nil:
		nf.Builtin = inModulesBuiltin(filepath.Join(dir, "modules.builtin"), name)
		return "", nf
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	nf.Tried = append(nf.Tried, dir)
	if p := walkForModule(dir, name); p != "" {
		return p, nil
	}
	for _, d := range l.moduleDirs(release) {
		if d != dir {
			nf.Tried = append(nf.Tried, d)
		}
	}
	return "", nf
}

// moduleFile is the file of a modules.dep path: relative to dir, or
// absolute (older depmods wrote absolute paths).
func moduleFile(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// findInModulesDep looks name up in the modules.dep file at path; "" and
// no error when it is not listed.
func findInModulesDep(path, name string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	deps, err := ParseModulesDep(fh)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	for _, d := range deps {
		if d.Name == name {
			return d.Path, nil
		}
	}
	return "", nil
}

// inModulesBuiltin reports whether the modules.builtin file at path lists
// name (one module path per line).
func inModulesBuiltin(path, name string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := ModuleName(strings.TrimSpace(line)); ok && n == name {
			return true
		}
	}
	return false
}

// walkForModule returns the first file under dir (in lexical order) that
// is module name, or "".
func walkForModule(dir, name string) string {
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if n, ok := ModuleName(p); ok && n == name {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// VermagicRelease is the kernel release a module's vermagic names: its
// first word ("6.1.0-56-cloud-amd64 SMP mod_unload modversions"), or "".
func VermagicRelease(vermagic string) string {
	w := strings.Fields(vermagic)
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

// ModuleDebugTree is a tree of separate module debuginfo laid out as the
// modules are installed, as Debian's -dbg packages ship it
// (DIR/lib/modules/RELEASE/kernel/fs/overlayfs/overlay.ko) and Fedora's
// (the same with .debug appended): perf's Ubuntu and Fedora debuginfo
// paths. A module found elsewhere (a copy) is looked for by its name under
// its vermagic's release. The build-id of the file found is checked when
// it is attached.
type ModuleDebugTree string

// Find looks for module w.Module's debuginfo under the tree.
func (d ModuleDebugTree) Find(w Wanted) (string, []string, error) {
	if w.Module == "" {
		return "", nil, nil
	}
	var paths []string
	if _, rel, ok := strings.Cut(filepath.ToSlash(w.Path), "/lib/modules/"); ok {
		rel = stripCompression(rel)
		p := filepath.Join(string(d), "lib/modules", rel)
		paths = append(paths, p, p+".debug")
	}
	p, tried, err := firstExisting(paths, isRegular)
	if p != "" || err != nil || w.Release == "" {
		return p, tried, err
	}
	dir := filepath.Join(string(d), "lib/modules", w.Release)
	if p := walkForModule(dir, w.Module); p != "" {
		return p, append(tried, p), nil
	}
	return "", append(tried, filepath.Join(dir, "**", w.Module+".ko")), nil
}

// stripCompression drops a compression suffix from a module path: the
// debuginfo of overlay.ko.xz is overlay.ko.
func stripCompression(p string) string {
	for _, ext := range moduleExts[1:] {
		if s, ok := strings.CutSuffix(p, ext); ok {
			return s + ".ko"
		}
	}
	return p
}

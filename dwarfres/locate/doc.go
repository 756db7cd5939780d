// Package locate finds where a target's debuginfo is, as perf, gdb and
// modprobe look for it: it answers paths, and the places it tried, and
// opens no DWARF (dwarfres.Locator opens what it finds).
//
// The search is a chain of Sources, each answering for a Wanted binary
// (the facts of the binary, given as plain values: path, build-id,
// .gnu_debuglink, module name and vermagic release) with a path or the
// places it looked; nothing found is a *NotFoundError naming every place.
//
// Files:
//   - locator.go: Locator (the chains for separate debuginfo and for a
//     kernel's vmlinux), NewLocator/NewRootLocator (perf's order),
//     Debuginfo, Vmlinux, the build-id trees and the Fetcher of a chain.
//   - source.go: Source, Wanted, BuildIDDir, VmlinuxPaths (perf's
//     vmlinux_path), Fetcher and Fetched (a debuginfod client as a Source).
//   - debuglink.go: ParseDebugLink, DebugLinkDirs (gdb's places, with the
//     CRC check), DistroDebugPaths (perf's distro_dwarf_types).
//   - buildidcache.go: PerfBuildIDCache and PerfCacheDir (perf's
//     $PERF_BUILDID_DIR, ~/.debug).
//   - module.go: module names, ParseModulesDep, FindModule (modules.dep,
//     modules.builtin, a search of the tree; in /lib/modules, else
//     /usr/lib/modules), ModuleDebugTree, vermagic.
//   - altfile.go: AltCandidates, where a dwz common file
//     (.gnu_debugaltlink, .debug_sup) is looked for.
//   - root.go: paths under a root (--symfs, /proc/PID/root): Rooted,
//     Inner, ResolveUnder.
//   - errors.go: the sentinels (re-exported by dwarfres), elfobj.DecodeError,
//     NotFoundError. The command words them.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 3,
// importing elfobj only, never dwarfres itself.
package locate

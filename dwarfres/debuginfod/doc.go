// Package debuginfod is a debuginfod client as elfutils' libdebuginfod:
// every server of DEBUGINFOD_URLS asked at once (the first good answer
// taken, the other transfers cancelled), http(s):// and file:// URLs,
// files cached in its layout (shared with gdb, perf and debuginfod-find),
// DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT (a low-speed limit, as
// libdebuginfod sets curl's), DEBUGINFOD_MAXTIME and DEBUGINFOD_MAXSIZE
// read as elfutils reads them, stricter where that protects the user (a
// size bound by default, the ELF magic checked at the body's start, no
// password of a URL in a message). It fetches /debuginfo, /executable and
// /source by build-id; a Client is the locate.Fetcher a debuginfo search
// asks last (locate.Fetched).
//
// Files:
//   - client.go: Client, New, FromEnv, WithContext, CacheDir, CachePath,
//     Fetch, Debuginfo (every server at once, into a target committed
//     once), file:// URLs, Evict, Error, Redact and the sentinels. The
//     cache is walked once and held open (safefs.OpenDir): every file is
//     made, renamed and removed relative to its build-id directory's
//     descriptor.
//   - save.go: a server's answer checked (status, an HTML page, size
//     within MaxSize or DefaultMaxSize, length, the first bytes: the ELF
//     magic, or a source that is a web page; the ELF build-id; Verify), a
//     gzip answer decoded bounded, and written to the cache whole or not
//     at all; the low-speed watch; stale temporaries of killed downloads
//     removed; progress lines.
//
// The test harness running a real debuginfod server is
// dwarfres/dwarftest/debuginfodtest.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 4,
// importing elfobj, locate and dwarfres/internal only, never dwarfres
// itself.
package debuginfod

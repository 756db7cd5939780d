// Package debuginfod is a debuginfod client as elfutils' libdebuginfod:
// servers tried in order, files cached in its layout (shared with gdb,
// perf and debuginfod-find), DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH,
// DEBUGINFOD_TIMEOUT (a low-speed limit, as libdebuginfod sets curl's),
// DEBUGINFOD_MAXTIME and DEBUGINFOD_MAXSIZE read as elfutils reads them. It fetches /debuginfo,
// /executable and /source by build-id; a Client is the locate.Fetcher a
// debuginfo search asks last (locate.Fetched).
//
// Files:
//   - client.go: Client, New, FromEnv, WithContext, CacheDir, CachePath,
//     Fetch, Debuginfo, Evict, Error and the sentinels.
//   - save.go: a server's answer checked (status, an HTML page, size,
//     length, ELF build-id), a gzip answer decoded bounded, and written to
//     the cache whole or not at all; the low-speed watch; stale
//     temporaries of killed downloads removed; progress lines.
//
// The test harness running a real debuginfod server is
// dwarfres/dwarftest/debuginfodtest.
package debuginfod

// Package debuginfod is a debuginfod client as elfutils' libdebuginfod:
// servers tried in order, files cached in its layout (shared with gdb,
// perf and debuginfod-find), DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH and
// DEBUGINFOD_TIMEOUT read as elfutils reads them. It fetches /debuginfo,
// /executable and /source by build-id; a Client is the locate.Fetcher a
// debuginfo search asks last (locate.Fetched).
//
// Files:
//   - client.go: Client, New, FromEnv, CacheDir, CachePath, Fetch,
//     Debuginfo, Error and ErrFetch.
//   - save.go: a server's answer checked (status, length, ELF build-id)
//     and written to the cache whole or not at all; the idle timeout;
//     progress lines.
//
// The test harness running a real debuginfod server is
// dwarfres/dwarftest/debuginfodtest.
package debuginfod

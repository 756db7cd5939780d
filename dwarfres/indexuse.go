package dwarfres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dwprobe/dwprobe/dwarfres/internal/safefs"
)

// IndexOptions says where a binary's index lives and whom to tell.
type IndexOptions struct {
	Dir string // "": DefaultIndexDir
	// Progress, if set, is called while the index is built, with the
	// units read so far and their total.
	Progress func(done, total int)
	// Note, if set, gets the report of a first use that has something to
	// say (IndexReport.Noteworthy).
	Note func(IndexReport)
}

// IndexReport says what loading or building an index did.
type IndexReport struct {
	Path  string
	Built bool // built by this use, not loaded
	Used  bool // queries choose their units through it
	// Stale is why the file that was there was rebuilt: an *IndexError
	// wrapping ErrIndexCorrupt, ErrIndexForeign or ErrIndexVersion.
	Stale error
	// Err is why the index was not saved (an *IndexError wrapping
	// ErrIndexUnwritable; the built index is still used) or not used at
	// all (Used is false): that, or the debuginfo's own error.
	Err error
}

// Noteworthy reports whether the user should hear of r: an index rebuilt,
// unsaved, or unused for want of a directory. Loading one, or building the
// first, is routine; so is having none for a binary whose debuginfo does
// not read (the scan reports that).
func (r IndexReport) Noteworthy() bool {
	var ie *IndexError
	return r.Stale != nil || errors.As(r.Err, &ie)
}

// attachedIndex is a File's index: the options UseIndex set, and the index
// they give, found or built once, when first needed.
type attachedIndex struct {
	mu   sync.Mutex
	opts *IndexOptions
	once sync.Once
	idx  *Index
	path string
	// dropped: a lookup found idx inconsistent (Index.failed); it was
	// reported once and queries scan from then on.
	dropped sync.Once
}

// UseIndex makes f's queries choose their units through its index in
// o.Dir, loaded or built (and saved) on first need. Answers are the same
// without it; only the work to reach them differs.
func (f *File) UseIndex(o IndexOptions) {
	f.ix.mu.Lock()
	defer f.ix.mu.Unlock()
	if f.ix.opts == nil {
		f.ix.opts = &o
	}
}

// index is the attached index, loaded or built on the first call; nil
// when none is attached or it cannot be had.
func (f *File) index() *Index {
	f.ix.mu.Lock()
	o := f.ix.opts
	f.ix.mu.Unlock()
	if o == nil {
		return nil
	}
	f.ix.once.Do(func() {
		var r IndexReport
		f.ix.idx, r = f.EnsureIndex(*o)
		f.ix.path = r.Path
		if r.Noteworthy() && o.Note != nil {
			o.Note(r)
		}
	})
	ix := f.ix.idx
	if ix == nil {
		return nil
	}
	if err := ix.failed(); err != nil {
		// A lookup found the file inconsistent: what it answered before
		// was answered again by a scan (the lookup said it could not
		// answer), and the rest of the run scans.
		f.ix.dropped.Do(func() {
			if o.Note != nil {
				o.Note(IndexReport{Path: f.ix.path, Err: &IndexError{Path: f.ix.path, Err: err}})
			}
		})
		return nil
	}
	return ix
}

// EnsureIndex loads f's index from o.Dir, or builds and saves it when it
// is missing or unusable, and returns it with what happened; a nil Index
// (with r.Err) when it can be neither loaded nor built. Processes building
// the same index at once each produce a whole file (write and rename);
// a lock only spares them the duplicate work.
func (f *File) EnsureIndex(o IndexOptions) (ix *Index, r IndexReport) {
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultIndexDir(); err != nil {
			r.Err = &IndexError{Path: "index directory", Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
			return nil, r
		}
	}
	if !f.HasDWARF() {
		r.Err = fmt.Errorf("%s: %w", f.Path, ErrNoDebugInfo)
		return nil, r
	}
	if err := safefs.CheckDir(dir); errors.Is(err, safefs.ErrUntrusted) {
		r.Err = untrusted(err)
		return nil, r
	}
	b := indexer{f}
	key, name, err := b.indexKey()
	if err != nil {
		r.Err = err
		return nil, r
	}
	r.Path = filepath.Join(dir, name)
	if ix, r.Stale = b.readIndex(r.Path, key); ix != nil {
		r.Used = true
		return ix, r
	}
	unlock, err := lockIndex(f.context(), r.Path)
	if err != nil {
		r.Err = err
		return nil, r
	}
	defer unlock()
	// Another process may have built it while this one waited.
	if ix, err := b.readIndex(r.Path, key); ix != nil && err == nil {
		r.Used = true
		return ix, r
	}
	ix, err = b.buildIndex(o.Progress)
	if err == nil {
		err = f.context().Err() // interrupted once built: nothing is written
	}
	if err != nil {
		r.Err = err
		return nil, r
	}
	r.Built, r.Used = true, true
	r.Err = writeIndex(r.Path, encodeIndex(ix, key))
	tidyIndexDir(dir, time.Now())
	return ix, r
}

// lockIndex takes an exclusive lock beside path, creating the directory;
// failing to, the directory cannot take the index either. Waiting for
// another process's build ends with ctx's error once ctx is done.
func lockIndex(ctx context.Context, path string) (func(), error) {
	unwritable := func(err error) error {
		return &IndexError{Path: filepath.Dir(path), Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
	}
	if err := safefs.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		if errors.Is(err, safefs.ErrUntrusted) {
			return nil, untrusted(err)
		}
		return nil, unwritable(err)
	}
	lf, err := safefs.OpenLock(path + ".lock")
	if errors.Is(err, safefs.ErrUntrusted) {
		return nil, untrusted(err)
	}
	if err != nil {
		return nil, unwritable(err)
	}
	// Polled, not blocking: a blocking flock is deaf to signals.
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			break
		}
		select {
		case <-ctx.Done():
			lf.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	// A lock that cannot be taken (a file system without flock) only
	// costs duplicate work: carry on.
	return func() {
		syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
		lf.Close()
	}, nil
}

// untrusted is the IndexError of a safefs refusal, naming the path and why.
func untrusted(err error) error {
	var ue *safefs.UntrustedError
	if !errors.As(err, &ue) {
		return &IndexError{Path: "index directory", Err: fmt.Errorf("%w: %v", ErrIndexUntrusted, err)}
	}
	return &IndexError{Path: ue.Path, Err: fmt.Errorf("%w: %s", ErrIndexUntrusted, ue.Why)}
}

// The cache's bounds: a temporary file older than staleTemp is a writer's
// that was killed between write and rename; an index (and its lock) not
// used for evictAfter is of a binary gone or no longer probed. loadIndex
// marks an index used through its mtime.
const (
	staleTemp  = time.Hour
	evictAfter = 30 * 24 * time.Hour
)

// tidyIndexDir removes, from the index directory dir (already checked),
// stale temporaries and indexes unused for evictAfter, with their locks
// (and IndexPays's markers of that age);
// it runs after a build, under that build's lock. Only regular files the
// user owns are removed (root's indexes are not a user's to evict), and
// a lock is only removed with its index or alone: a process holding it
// only loses the work it spared.
func tidyIndexDir(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		var age time.Duration
		switch {
		case strings.HasPrefix(name, ".tmp-") && strings.HasSuffix(name, ".idx"):
			age = staleTemp
		case strings.HasSuffix(name, ".idx"), strings.HasSuffix(name, ".idx.lock"),
			strings.HasSuffix(name, ".idx.seen"): // IndexPays's markers
			age = evictAfter
		default:
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < age {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != uint32(os.Geteuid()) {
			continue
		}
		if strings.HasSuffix(name, ".idx.lock") {
			if _, err := os.Lstat(strings.TrimSuffix(p, ".lock")); err == nil {
				continue // its index decides
			}
		}
		os.Remove(p)
	}
}

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

	"github.com/dwprobe/dwprobe/dwarfres/elfobj"
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
		f.ix.idx, r = EnsureIndex(f, *o)
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

// EnsureIndex is the index cache's door: it loads f's index from o.Dir,
// or builds and saves it when it is missing or unusable, and returns it
// with what happened; a nil Index (with r.Err) when it can be neither
// loaded nor built. Processes building
// the same index at once each produce a whole file (write and rename);
// a lock only spares them the duplicate work. The directory is walked
// and checked once (safefs.OpenDir, creating it) and everything after
// is done relative to the descriptor held: a link swapped meanwhile
// redirects nothing. Opening it removes the temporaries killed builders
// left.
func EnsureIndex(f *File, o IndexOptions) (ix *Index, r IndexReport) {
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultIndexDir(); err != nil {
			r.Err = err
			return nil, r
		}
	}
	if !f.HasDWARF() {
		r.Err = fmt.Errorf("%s: %w", f.Path, ErrNoDebugInfo)
		return nil, r
	}
	d, err := openIndexDir(dir)
	if err != nil {
		r.Err = err
		return nil, r
	}
	defer d.Close()
	tidyIndexDir(d, time.Now(), tempsOnly)
	b := indexer{f}
	key, name, err := b.indexKey()
	if err != nil {
		r.Err = err
		return nil, r
	}
	r.Path = filepath.Join(dir, name)
	if ix, r.Stale = b.readIndex(d, name, key); ix != nil {
		r.Used = true
		return ix, r
	}
	unlock, err := lockIndex(f.context(), d, name)
	if err != nil {
		r.Err = err
		return nil, r
	}
	defer unlock()
	// Another process may have built it while this one waited.
	if ix, err := b.readIndex(d, name, key); ix != nil && err == nil {
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
	r.Err = writeIndex(d, name, encodeIndex(ix, key))
	tidyIndexDir(d, time.Now(), evictOld)
	return ix, r
}

// openIndexDir walks to the index directory dir, creating it, checked
// (safefs.OpenDir). Errors are *IndexError: not trusted, not a
// directory, or not writable (it cannot be created).
func openIndexDir(dir string) (*safefs.Dir, error) {
	d, err := safefs.OpenDir(dir, true, 0o755)
	var nd *safefs.NotDirError
	switch {
	case err == nil:
		return d, nil
	case errors.Is(err, safefs.ErrUntrusted):
		return nil, untrusted(err)
	case errors.As(err, &nd):
		return nil, &IndexError{Path: nd.Path, Err: fmt.Errorf("%w (%s)", ErrIndexNotDir, nd.Kind())}
	}
	return nil, &IndexError{Path: dir, Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
}

// lockIndex takes an exclusive lock beside the index name in d; failing
// to, the directory cannot take the index either. Waiting for another
// process's build ends with ctx's error once ctx is done.
func lockIndex(ctx context.Context, d *safefs.Dir, name string) (func(), error) {
	lf, err := d.OpenLock(name + ".lock")
	var nr *elfobj.NotRegularError
	if errors.Is(err, safefs.ErrUntrusted) {
		return nil, untrusted(err)
	}
	if errors.As(err, &nr) {
		return nil, &IndexError{Path: nr.Path, Err: fmt.Errorf("%w (%s)", ErrIndexNotRegular, safefs.KindOf(nr.Mode))}
	}
	if err != nil {
		return nil, &IndexError{Path: d.Path, Err: fmt.Errorf("%w: %v", ErrIndexUnwritable, err)}
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

// What tidyIndexDir removes: stale temporaries only (each time the
// directory is opened), or unused indexes too (after a build).
const (
	tempsOnly = false
	evictOld  = true
)

// tidyIndexDir removes, from the index directory d, stale temporaries
// and, with evict, indexes unused for evictAfter, with their locks (and
// IndexPays's markers of that age); eviction runs after a build, under
// that build's lock. Only regular files the user owns are removed
// (root's indexes are not a user's to evict), and a lock is only removed
// with its index or alone: a process holding it only loses the work it
// spared.
func tidyIndexDir(d *safefs.Dir, now time.Time, evict bool) {
	ents, err := d.List()
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name
		var age time.Duration
		switch {
		case strings.HasPrefix(name, ".tmp-") && strings.HasSuffix(name, ".idx"):
			age = staleTemp
		case !evict:
			continue
		case strings.HasSuffix(name, ".idx"), strings.HasSuffix(name, ".idx.lock"),
			strings.HasSuffix(name, ".idx.seen"): // IndexPays's markers
			age = evictAfter
		default:
			continue
		}
		if !e.Mode.IsRegular() || now.Sub(e.ModTime) < age || e.Uid != uint32(os.Geteuid()) {
			continue
		}
		if strings.HasSuffix(name, ".idx.lock") {
			if s, err := d.Lstat(strings.TrimSuffix(name, ".lock")); s != nil || err != nil {
				continue // its index decides
			}
		}
		d.Remove(name)
	}
}

package dwarfres

import "context"

// SetContext makes f's long walks (the index build, the scans of every
// unit) stop once ctx is done, returning ctx's error: a signal ends them
// within one unit's work. Call it before the first query; a File without
// one is never interrupted.
func (f *File) SetContext(ctx context.Context) {
	f.ctx = ctx
	if f.dbg != nil {
		f.dbg.SetContext(ctx)
	}
}

// context is f's context (SetContext), Background when none was set.
func (f *File) context() context.Context {
	if f.ctx == nil {
		return context.Background()
	}
	return f.ctx
}

package probegen_test

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/probegen"
)

// TestOpenLazyPattern: a target Open made finds its own sources, so a
// lazy pattern resolves with the Resolver's default options, as
// dwprobe -D 'work;total+=*' resolves it (the source is where the
// debuginfo names it).
func TestOpenLazyPattern(t *testing.T) {
	tgt := openApp(t, "-O0")
	if tgt.Sources() == nil {
		t.Fatal("no Sources on a target Open made")
	}
	_, res, err := tgt.Resolver(probegen.ResolveOptions{}).Resolve("work;total+=*")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Defs) == 0 {
		t.Errorf("work;total+=* resolved to no point")
	}
}

// TestStreamOrder: Stream hands the results on in the order of the specs,
// failures included, whatever the number of workers; ResolveAll is the
// same list.
func TestStreamOrder(t *testing.T) {
	tgt := openApp(t, "-O0")
	specs := []string{"work", "nosuch", "main", "work%return", "work:2", "bad spec ::", "main:3"}
	for _, workers := range []int{1, 4} {
		r := tgt.Resolver(probegen.ResolveOptions{})
		r.Workers = workers
		var got []string
		err := r.Stream(func(yield func(string) bool) error {
			for _, s := range specs {
				if !yield(s) {
					break
				}
			}
			return nil
		}, func(sr probegen.SpecResult) error {
			got = append(got, sr.Spec)
			if (sr.Err == nil) == (sr.Resolution == nil) {
				t.Errorf("%d workers, %s: Err %v and Resolution %v", workers, sr.Spec, sr.Err, sr.Resolution)
			}
			return nil
		})
		if err != nil || strings.Join(got, "|") != strings.Join(specs, "|") {
			t.Errorf("%d workers: %q, %v; want %q", workers, got, err, specs)
		}
		all := r.ResolveAll(specs)
		for i, sr := range all {
			if sr.Spec != specs[i] {
				t.Errorf("ResolveAll[%d] is %q, want %q", i, sr.Spec, specs[i])
			}
		}
	}
}

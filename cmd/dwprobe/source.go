package main

import (
	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/probegen"
)

// newSources finds source files under -s and --source-prefix-map, then
// from debuginfod by t's build-id.
func newSources(o *options, t *dwarfres.File) (*probegen.Sources, error) {
	s, err := probegen.NewSources(o.source, o.prefixMaps)
	if err != nil {
		return nil, err
	}
	if d := debuginfodOf(o); d != nil && t != nil && t.BuildID() != "" {
		s.Fetch = fetchSource(d, t.BuildID())
	}
	return s, nil
}

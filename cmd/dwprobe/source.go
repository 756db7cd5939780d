package main

import "github.com/dwprobe/dwprobe/probegen"

// newSources finds source files under -s and --source-prefix-map.
func newSources(o *options) (*probegen.Sources, error) {
	return probegen.NewSources(o.source, o.prefixMaps)
}

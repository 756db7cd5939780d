// Package diff compares what specs resolve to in two builds of a target
// (dwprobe --diff): Resolutions tells, for one spec, whether its probes
// are unchanged, read their arguments differently, gained or lost points,
// moved to another statement or broke; Suggest finds, for a spec that
// moved or broke, the line of the new build holding the statement it
// probed in the old; LineTexts gives the source text that identifies a
// line across builds, whose numbers shift. Points are compared by
// function, inline chain and line, never by address.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 11,
// a way of answering above probegen, beside probegen/ebpfprobe; it
// imports probegen, probegen/answer, probegen/grammar, probegen/sources
// (the old statement's text), dwarfres, lazymatch and tracefs, and only
// the command line imports it.
package diff

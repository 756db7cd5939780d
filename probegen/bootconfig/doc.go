// Package bootconfig prints kprobe definitions as a bootconfig, the
// kernel's boot-time tracing reads them (dwprobe --bootconfig): Render
// takes the definitions a resolution gives (Probe.Definition of
// probegen/answer) and writes one "ftrace.event.kprobes.EVENT.probes =
// ..." line per event, refusing what boot-time tracing cannot express.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 11,
// a way of printing an answer, beside probegen/ebpfprobe; it imports
// only probegen/grammar (for DefaultGroup) and tracefs, and only the
// command line imports it.
package bootconfig

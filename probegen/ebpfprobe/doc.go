// Package ebpfprobe puts dwprobe's resolved probe points into cilium/ebpf
// programs: where to attach (a link.Uprobe's file offset, a link.Kprobe's
// symbol and offset) and BPF instructions that read each argument's
// location plan (probegen.Location) from the context's struct pt_regs,
// for x86_64 and arm64, so that a Go eBPF tool reads a local at FUNC:LINE
// without knowing DWARF or writing assembly.
//
// The layers, each usable alone:
//
//   - UprobeOf, KprobeOf: a probegen.Probe as cilium/ebpf's attach
//     options; Attach, AttachCookie attach a program there.
//   - Generate: instructions reading arguments into a buffer, by the
//     calling convention of RegContext and RegBuffer, and the Layout of
//     what they write; Layout.Decode reads the buffer back as Values
//     printed as the kernel's trace prints them.
//   - Program, CollectionSpec: a complete program writing one ring
//     buffer record per hit; Layout.Record decodes one.
//   - Trace: CollectionSpec loaded and attached at every point of a
//     spec, with a reader of decoded Records.
//
// Files:
//
//	attach.go    UprobeOf, KprobeOf, Attach, AttachCookie
//	generate.go  Options, Generate: the argument reads
//	layout.go    Layout, Field: where Generate writes each argument
//	decode.go    Value, Layout.Decode
//	program.go   Program, CollectionSpec, Record, Layout.Record
//	tracer.go    Tracer, Trace
//	errors.go    the sentinel errors and ArgError
//
// Tests: attach_test.go, generate_test.go (the instructions per machine),
// program_test.go and decode_test.go are tables; verifier_test.go loads a
// program of every kind of plan into the running kernel; live_test.go
// attaches at a line of testdata/visit.c (built with gcc at test time, at
// -O0 and -O2, with an inlined copy) and compares what BPF reads with what
// the program prints and what uprobe_events traces; qemu_test.go boots the
// corpus's kernels (6.1 and 6.12, amd64 and arm64) with testdata/ktrace,
// which attaches kprobes with Trace in the guest, and compares what BPF
// reads with what kprobe_events traces there.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 7,
// importing probegen and below; only the command line imports it.
package ebpfprobe

// Package ebpfprobe puts dwprobe's resolved probe points into cilium/ebpf
// programs, so that a Go eBPF tool reads a local at FUNC:LINE, a member
// chain or a global without knowing DWARF or writing BPF assembly, and
// gets the values the kernel's own trace of the same definition prints.
//
// # From a spec to values
//
// probegen resolves a spec ("vfs_read:23 file->f_path.dentry->d_name.name:string")
// into probegen.Probes: a place (a kprobe's symbol and offset, a
// uprobe's binary and file offset) and, for each argument, a
// probegen/answer.Location: a base (a register, a global's address, a constant,
// $comm) and a chain of loads. This package turns each Location into BPF
// instructions reading it from the probe's struct pt_regs, for x86_64
// and arm64 (the probed machine's, not necessarily this host's).
//
// The layers, each usable alone:
//
//   - UprobeOf, KprobeOf: a Probe as cilium/ebpf's attach options;
//     Attach and AttachCookie attach a program there.
//   - Generate: instructions reading arguments into a buffer, by the
//     calling convention of RegContext and RegBuffer, and the Layout of
//     what they write; Layout.Decode reads the buffer back as Values.
//   - Program, CollectionSpec: a complete program per point writing one
//     ring buffer record per hit (task, time, CPU, the values); Layout.Record
//     decodes one.
//   - Trace: CollectionSpec loaded into the running kernel and attached
//     at every point, with a Tracer reading decoded Records; Tracer.Run
//     delivers them to a function until a count, a duration, a context's
//     end or a traced command's end.
//
// # Reading as the kernel reads
//
// A value read here is the one the kernel's kprobe or uprobe event of
// the same definition reads at the same hit, and Value.String prints it
// as the kernel's trace prints it (Tracer.Line prints a whole hit as the
// kernel's trace line):
//
//   - Memory: a uprobe's reads are of user memory. A kprobe's read of an
//     address below the kernel's half goes to user memory and any other
//     to kernel memory, as the kernel's own fetches choose, so that
//     filename:string at do_sys_openat2 reads the user's path. A load the
//     definition marks as user memory (+u, ustring) is read as such.
//   - Globals: a kernel global's address is moved by the running
//     kernel's KASLR offset (Options.KernelOffset; Trace measures it from
//     /proc/kallsyms). A PIE's global is found from the probe's address.
//     A module's global is refused: only the kernel that loaded it knows
//     where it is.
//   - Types: strings are cut at Options.MaxString bytes (the kernel's
//     limit is 4 KiB); a symbol prints as SYMBOL+0xOFF/0xSIZE from the
//     running kernel's symbols (KernelSymbols); char as 'c'; bitfields are
//     extracted and sign-extended as the kernel does. An unnamed argument
//     is argN, and where the kernel names or types an argument itself
//     (a BTF kernel's $argN, $retval) the Probe says so already.
//   - Faults: a read that faults prints "(fault)"; with
//     Options.SkipUnreadable an argument with no location at its point
//     prints "(unreadable)" instead of refusing the program.
//
// A Tracer's probes are perf events of the process that made them: when
// it exits, even by kill -9, nothing stays registered in the kernel.
//
// Its place in dwprobe's import order (probegen/layers_test.go): layer 11,
// importing probegen/answer (the probes it turns into programs) and
// below, not the resolver (probegen); only the command line imports it.
package ebpfprobe

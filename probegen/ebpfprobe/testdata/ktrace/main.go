// Command ktrace is the guest side of TestQEMUKprobeBPF: it attaches the
// probe points of a JSON file ([]probegen.Probe, resolved on the host
// against the guest's vmlinux) with ebpfprobe.Trace, runs a command, and
// prints what BPF read at each hit of the command's process:
//
//	BPF pid=PID point=I NAME=VALUE ...
//
// with each value as the kernel's trace prints it.
//
//	ktrace ARCH PROBES.json CMD [ARG...]
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/ebpfprobe"
	"github.com/dwprobe/dwprobe/tracefs/arch"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ktrace:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 3 {
		return errors.New("usage: ktrace ARCH PROBES.json CMD [ARG...]")
	}
	a := map[string]*arch.Arch{"x86_64": arch.X86_64, "arm64": arch.ARM64,
		"ppc64le": arch.PPC64LE, "s390x": arch.S390X, "riscv64": arch.RISCV64}[args[0]]
	b, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	var probes []probegen.Probe
	if err := json.Unmarshal(b, &probes); err != nil {
		return err
	}
	off, err := ebpfprobe.RunningKernelOffset(probes)
	if err != nil {
		return err
	}
	fmt.Printf("KASLR offset=%#x\n", off)
	tr, err := ebpfprobe.Trace(a, probes, ebpfprobe.ProgramOptions{})
	if err != nil {
		return err
	}
	defer tr.Close()
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	tr.SetDeadline(time.Now().Add(time.Second))
	for {
		rec, err := tr.Read()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.PID != uint32(cmd.Process.Pid) {
			continue
		}
		var vals []string
		for _, v := range rec.Values {
			vals = append(vals, v.Field.Name+"="+v.String())
		}
		fmt.Printf("BPF pid=%d point=%d %s\n", rec.PID, rec.Cookie, strings.Join(vals, " "))
	}
}

package dwarftest

import (
	"encoding/binary"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// BTF marshals types (and what they refer to) into a raw little-endian
// BTF blob, as /sys/kernel/btf/vmlinux holds one.
func BTF(t testing.TB, types ...btf.Type) []byte {
	t.Helper()
	b, err := btf.NewBuilder(types, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(nil, &btf.MarshalOptions{Order: binary.LittleEndian})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

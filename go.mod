module github.com/dwprobe/dwprobe

go 1.26.8

require (
	github.com/cilium/ebpf v0.22.0
	github.com/go-delve/delve v1.27.2
	github.com/klauspost/compress v1.20.3
	github.com/spf13/pflag v1.0.10
	github.com/ulikunitz/xz v0.5.17
	golang.org/x/arch v0.32.0
	golang.org/x/sys v0.49.0
)

require github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724

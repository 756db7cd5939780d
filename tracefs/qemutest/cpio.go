package qemutest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
)

// WriteInitramfs writes a newc cpio archive at file: busybox for arch as
// /bin/busybox (the init installs its applet links), guest-init.sh as
// /init, defs as /defs.txt, workload as /workload.sh and the extra files
// (guest path -> host path).
func WriteInitramfs(file, arch string, defs []string, workload string, extra map[string]string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := &cpioWriter{w: f, dirs: map[string]bool{"": true}}
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp", "etc", "root"} {
		w.dir(d)
	}
	// The kernel opens /dev/console for init before devtmpfs is mounted.
	w.node("dev/console", 0o020600, 5, 1)
	if err := w.hostFile("bin/busybox", filepath.Join(dwarftest.CorpusDir(), arch, "busybox-bin")); err != nil {
		f.Close()
		return err
	}
	init, err := os.ReadFile(filepath.Join(scriptsDir(), "guest-init.sh"))
	if err != nil {
		f.Close()
		return err
	}
	w.file("init", 0o755, init)
	w.file("defs.txt", 0o644, []byte(strings.Join(append(defs, ""), "\n")))
	w.file("workload.sh", 0o755, []byte(workload))
	guests := make([]string, 0, len(extra))
	for g := range extra {
		guests = append(guests, g)
	}
	sort.Strings(guests)
	for _, g := range guests {
		if err := w.hostFile(g, extra[g]); err != nil {
			f.Close()
			return err
		}
	}
	w.node("TRAILER!!!", 0, 0, 0)
	if w.err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", file, w.err)
	}
	return f.Close()
}

// cpioWriter writes a newc ("070701") cpio archive, the format the kernel
// unpacks into its initramfs. The first write error sticks in err.
type cpioWriter struct {
	w    io.Writer
	ino  int
	dirs map[string]bool // directories written, by archive path
	err  error
}

// dir writes the directory p and its missing parents.
func (c *cpioWriter) dir(p string) {
	if c.dirs[p] {
		return
	}
	c.dir(parentDir(p))
	c.dirs[p] = true
	c.entry(p, 0o040755, 0, 0, nil)
}

// parentDir returns the archive path of p's directory, "" for the root.
func parentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

func (c *cpioWriter) file(p string, perm uint32, data []byte) {
	c.dir(parentDir(p))
	c.entry(p, 0o100000|perm&0o7777, 0, 0, data)
}

// hostFile copies host into the archive at the guest path guest, keeping
// its permission bits.
func (c *cpioWriter) hostFile(guest, host string) error {
	st, err := os.Stat(host)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(host)
	if err != nil {
		return err
	}
	c.file(strings.TrimPrefix(path.Clean("/"+guest), "/"), uint32(st.Mode().Perm()), data)
	return nil
}

// node writes an entry without data: a device node or the trailer.
func (c *cpioWriter) node(p string, mode uint32, major, minor int) {
	c.entry(p, mode, major, minor, nil)
}

func (c *cpioWriter) entry(name string, mode uint32, rmajor, rminor int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&0o170000 == 0o040000 {
		nlink = 2
	}
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize (with its NUL), check.
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmajor, rminor, len(name)+1, 0)
	var b bytes.Buffer
	b.WriteString(hdr)
	b.WriteString(name)
	b.WriteByte(0)
	pad4(&b)
	b.Write(data)
	pad4(&b)
	_, c.err = c.w.Write(b.Bytes())
}

// pad4 pads b with NULs to a multiple of four bytes.
func pad4(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}

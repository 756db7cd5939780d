package locate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A root is a directory standing for a system's "/": perf's --symfs DIR,
// or /proc/PID/root of --target-ns PID. These are the one rule for paths
// under it; they compare path components, never string prefixes.

// Rooted is the system path p under root; p itself when root is "".
func Rooted(root, p string) string {
	if root == "" {
		return p
	}
	return filepath.Join(root, p)
}

// Inner is p as seen inside root: "/" and the rest of p below root
// (lexically, symlinks not followed); ok is false when p is not under
// root. /a/bc is not under /a/b.
func Inner(root, p string) (inner string, ok bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	if first, _, _ := strings.Cut(rel, "/"); first == ".." {
		return "", false
	}
	return "/" + rel, true
}

// maxLinks bounds the symlinks followed in one path, as the kernel's 40.
const maxLinks = 40

// ResolveUnder resolves the absolute path p inside root as a process
// whose root is root sees it: every symlink followed, an absolute one from
// root, ".." never above root. It returns the resolved path inside root.
func ResolveUnder(root, p string) (string, error) {
	parts := strings.Split(p, "/")
	cur, links := "", 0
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = parentOf(cur)
			continue
		}
		next := cur + "/" + c
		fi, err := os.Lstat(root + next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", &os.PathError{Op: "resolve", Path: next, Err: syscall.ELOOP}
		}
		t, err := os.Readlink(root + next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(t, "/") {
			cur = ""
		}
		parts = append(strings.Split(t, "/"), parts...)
	}
	if cur == "" {
		return "/", nil
	}
	return cur, nil
}

// parentOf is the directory of an inner path, "" (the root) for the root.
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

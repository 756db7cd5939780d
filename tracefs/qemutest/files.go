package qemutest

import (
	"os"
	"path/filepath"
	"testing"
)

// GuestFiles writes each text of files (guest path -> content) to a host
// file of its own in a temporary directory of t and adds it to extra
// (guest path -> host path), the extra files Boot puts in the guest.
func GuestFiles(t testing.TB, extra, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for guest, text := range files {
		host := filepath.Join(dir, filepath.FromSlash(guest))
		if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(host, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		extra[guest] = host
	}
}

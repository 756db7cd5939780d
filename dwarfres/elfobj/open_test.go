package elfobj

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRegularFIFO: a named pipe is refused at once, naming it, where
// os.Open would wait for a writer.
func TestOpenRegularFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenRegular(p)
	var nr *NotRegularError
	if !errors.As(err, &nr) || !errors.Is(err, ErrNotELF) || err.Error() != p+": not a regular file (a named pipe)" {
		t.Errorf("OpenRegular(FIFO): %v", err)
	}
	if _, err := Open(p); !errors.As(err, &nr) {
		t.Errorf("Open(FIFO): %v", err)
	}
}

var sink byte // keeps the test's reads

// TestTruncatedWhileMapped: a file truncated after it was mapped faults
// on its lost pages; with SetPanicOnFault the fault reaches Guard, which
// reports it naming the file (wrapping ErrMalformed: exit 4), instead of
// the process dying of SIGBUS.
func TestTruncatedWhileMapped(t *testing.T) {
	src, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true")
	}
	p := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(p, src, 0o644)
	o, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("mapped %d bytes", len(o.data))
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	err = func() (err error) {
		defer Guard(&err, "query")
		for i := len(o.data) - 1; i >= 0; i -= 4096 {
			sink += o.data[i]
		}
		return nil
	}()
	var fe *FaultError
	if !errors.As(err, &fe) || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), "truncated or changed while it was read") {
		t.Errorf("err %v, want a fault naming %s", err, p)
	}
}

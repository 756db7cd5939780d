package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestOptions pins option handling: perf's names, unsupported options that
// say so, exclusive modes, and help.
func TestOptions(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	cases := []struct {
		name    string
		args    []string
		wantErr string // "" = success
		wantOut string // substring of stdout
	}{
		{"help", []string{"--help"}, "help shown", ""},
		{"nothing to do", []string{"-x", app}, "nothing to do", ""},
		{"exclusive modes", []string{"-x", app, "-D", "work", "-L", "work"}, "exclusive", ""},
		{"-x and -k", []string{"-x", app, "-k", app, "-D", "work"}, "exclusive", ""},
		{"add dry run", []string{"-n", "-x", app, "-a", "work"}, "", "p:probe_app/work "},
		{"vars", []string{"-x", app, "-V", "work"}, "", "Available variables at work\n"},
		{"positional dry run", []string{"-n", "-x", app, "work", "p->id"}, "", "p:probe_app/work "},
		{"module", []string{"-m", "ext4", "-D", "ext4_sync_fs"}, "not yet supported", ""},
		{"max-probes", []string{"-x", app, "--max-probes", "2", "-D", "item_score"}, "too many (> 2) probe points found (raise --max-probes)", ""},
		{"max-probes, symbols", []string{"-x", app, "--max-probes", "1", "-D", "*%return"}, "> --max-probes 1)", ""},
		{"bad max-probes", []string{"-x", app, "--max-probes", "0", "-D", "work"}, "positive", ""},
		{"-D", []string{"-x", app, "-D", "work"}, "", "p:probe_app/work "},
		{"-D twice", []string{"-x", app, "-D", "work", "-D", "compute%return"}, "", "r:probe_app/compute__return "},
		{"no-inlines", []string{"-x", app, "--no-inlines", "-D", "item_score"}, "", "p:probe_app/item_score "},
		{"-F filter word", []string{"-x", app, "-F", "comp*"}, "", "compute\n"},
		{"-F filter option", []string{"-x", app, "-F", "--filter", "work"}, "", "work\n"},
		{"-L", []string{"-x", app, "-L", "compute"}, "", "<compute@"},
		{"named event", []string{"-x", app, "-D", "grp:ev=work"}, "", "p:grp/ev "},
		{"bad group", []string{"-x", app, "-D", "1grp:ev=work"}, "group", ""},
		{"arguments", []string{"-x", app, "-D", "work p"}, "", " p=%di:x64\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), c.args, &out, &errb)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, c.wantErr)
			}
			if !strings.Contains(out.String(), c.wantOut) {
				t.Errorf("stdout %q lacks %q", out.String(), c.wantOut)
			}
		})
	}
}

// TestNoInlines: --no-inlines keeps only the out-of-line copy.
func TestNoInlines(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	var all, outl bytes.Buffer
	if err := run(context.Background(), []string{"-x", app, "-D", "item_score"}, &all, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-x", app, "--no-inlines", "-D", "item_score"}, &outl, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if n, m := strings.Count(all.String(), "\n"), strings.Count(outl.String(), "\n"); n != 6 || m != 1 {
		t.Errorf("item_score: %d probes, %d without inlines; want 6 and 1", n, m)
	}
}

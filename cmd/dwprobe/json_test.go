package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/tracefs"
)

// jsonLinesOf decodes stdout of a --json run: one object per line.
func jsonLinesOf(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if m["schema"] != float64(jsonSchema) {
			t.Errorf("line %q: schema %v", l, m["schema"])
		}
		objs = append(objs, m)
	}
	return objs
}

// fixtureJSON normalises the fixture's path and the source tree's in
// --json output.
func fixtureJSON(t *testing.T, app, out string) string {
	t.Helper()
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := filepath.EvalSymlinks(app)
	return strings.NewReplacer(exe, "APP", src+"/", "").Replace(out)
}

// TestJSONDefinitions pins -D --json on the app fixture (gcc -O2, DWARF
// 5): an argument in a register, an inline function's instances with the
// function each is inlined into, a return probe from the symbol table
// (at the declaration's line; $retval typed by the function's return
// type), a failing spec of a file with its column.
func TestJSONDefinitions(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	file := writeSpecs(t, "g1:e1=compute c\n\n item_score\ncompute%return $retval\n  work+\n")
	out, _, err := dw("-x", app, "-D", "@"+file, "--json")
	if exitCode(err) != exitUnresolved {
		t.Errorf("error %v", err)
	}
	got := strings.ReplaceAll(fixtureJSON(t, app, out), file, "FILE")
	want := `{"schema":1,"mode":"definition","spec":"g1:e1=compute c","file":"FILE","line":1,"points":[{"address":"0x1460","symbol":"compute","offset":0,"source_file":"testdata/fixtures/app_util.c","source_line":40,"function":"compute","event":"g1:e1","definition":"p:g1/e1 APP:0x1460 c=%dx:s32","args":[{"name":"c","fetcharg":"%dx","type":"s32","location":"register %dx","c_type":"int","read":{"kind":"register","register":"dx","dwarf_register":1}}]}]}
{"schema":1,"mode":"definition","spec":"item_score","file":"FILE","line":3,"points":[{"address":"0x1143","symbol":"main","offset":115,"source_file":"testdata/fixtures/app_main.c","source_line":61,"function":"item_score","inlined_into":"main","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x1143"},{"address":"0x11de","symbol":"main","offset":270,"source_file":"testdata/fixtures/app_main.c","source_line":69,"function":"item_score","inlined_into":"main","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x11de"},{"address":"0x14f0","symbol":"sum_list","offset":48,"source_file":"testdata/fixtures/app_util.c","source_line":65,"function":"item_score","inlined_into":"sum_list","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x14f0"},{"address":"0x13d0","symbol":"item_score","offset":0,"source_file":"testdata/fixtures/app.h","source_line":61,"function":"item_score","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x13d0"},{"address":"0x1949","symbol":"report","offset":169,"source_file":"testdata/fixtures/app_util2.c","source_line":123,"function":"item_score","inlined_into":"report","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x1949"},{"address":"0x1834","symbol":"geometry","offset":68,"source_file":"testdata/fixtures/app_util2.c","source_line":110,"function":"item_score","inlined_into":"geometry","event":"probe_app:item_score","definition":"p:probe_app/item_score APP:0x1834"}]}
{"schema":1,"mode":"definition","spec":"compute%return $retval","file":"FILE","line":4,"points":[{"address":"0x1460","symbol":"compute","offset":0,"source_file":"testdata/fixtures/app_util.c","source_line":40,"function":"compute","event":"probe_app:compute__return","definition":"r:probe_app/compute__return APP:0x1460 $retval","args":[{"name":"arg1","fetcharg":"$retval","location":"return value","c_type":"int","read":{"kind":"register","register":"ax","dwarf_register":0}}]}]}
{"schema":1,"mode":"definition","spec":"work+","file":"FILE","line":5,"error":{"message":"offset missing after '+'","column":6}}
`
	if got != want {
		t.Errorf("-D --json\n%s\nwant\n%s", got, want)
	}

	// Plain specs: all tried too, each an object without file and line.
	out, _, err = dw("-x", app, "-D", "nosuch_fn", "-D", "work p->name:string", "--json")
	objs := jsonLinesOf(t, out)
	if len(objs) != 2 || objs[0]["error"] == nil || objs[1]["points"] == nil || objs[1]["file"] != nil || exitCode(err) != exitUnresolved {
		t.Errorf("plain specs --json: %v\n%s", err, out)
	}
	if a := objs[1]["points"].([]any)[0].(map[string]any)["args"].([]any)[0].(map[string]any); a["fetcharg"] != "+0(+0(%di))" ||
		a["location"] != "memory at 0 from (memory at 0 from register %di)" {
		t.Errorf("argument %v", a)
	}
	if strings.Contains(out, `\u003e`) {
		t.Errorf("-> HTML-escaped: %s", out)
	}
}

// TestJSONModes: each mode that prints results has its --json objects.
func TestJSONModes(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	for _, c := range []struct {
		name string
		args []string
		mode string
		n    int
		key  string // a field every object has
	}{
		{"-V", []string{"-V", "work", "-V", "item_score"}, "vars", 2, "vars"},
		{"-L", []string{"-L", "compute"}, "lines", 1, "lines"},
		{"-F", []string{"-F", "comp*"}, "functions", 1, "functions"},
		{"-a -n", []string{"-n", "-a", "work", "-a", "compute"}, "add", 2, "points"},
	} {
		out, _, err := dw(append([]string{"-x", app, "--json"}, c.args...)...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		objs := jsonLinesOf(t, out)
		if len(objs) != c.n {
			t.Errorf("%s: %d objects, want %d:\n%s", c.name, len(objs), c.n, out)
		}
		for _, o := range objs {
			if o["mode"] != c.mode || o[c.key] == nil {
				t.Errorf("%s: object %v", c.name, o)
			}
		}
	}
	out, _, _ := dw("-x", app, "--json", "-F", "comp*")
	if out != `{"schema":1,"mode":"functions","functions":["compute"]}`+"\n" {
		t.Errorf("-F --json %q", out)
	}
	out, _, _ = dw("-x", app, "--json", "-V", "work")
	if out != `{"schema":1,"mode":"vars","spec":"work","vars":[{"point":"work+0","variables":["int\ti","int\tsum","struct item*\tp"]}]}`+"\n" {
		t.Errorf("-V --json %q", out)
	}
	out, _, _ = dw("-x", app, "--json", "-L", "work:3-4")
	if want := `{"schema":1,"mode":"lines","function":"work","source_file":"`; !strings.HasPrefix(out, want) ||
		!strings.HasSuffix(out, `/testdata/fixtures/app_util.c","start":3,"source_found":true,"lines":[{"line":3,"probeable":false},{"line":4,"probeable":true,"text":"\tfor (i = 0; i < 4; i++)"}]}`+"\n") {
		t.Errorf("-L --json %q", out)
	}
	if _, _, err := dw("-x", app, "--json", "--bootconfig", "-D", "work"); exitCode(err) != exitUsage {
		t.Errorf("--json --bootconfig: %v", err)
	}
}

// TestJSONLive: -a, -l, -d and --apply report what they did, against the
// modelled tracefs.
func TestJSONLive(t *testing.T) {
	app := fixture(t, "app-gcc-O2-dwarf5")
	_, k := fakeTracefs(t)
	out, _, err := dw("-q", "-x", app, "--json", "-a", "work:7 p->name:string", "-a", "item_score")
	objs := jsonLinesOf(t, out)
	if err != nil || len(objs) != 2 || objs[0]["mode"] != "add" || objs[0]["dry_run"] != nil ||
		objs[0]["points"].([]any)[0].(map[string]any)["event"] != "probe_app:work_L7" || len(objs[1]["points"].([]any)) != 6 {
		t.Errorf("-a --json: %v\n%s", err, out)
	}

	out, _, err = dw("-q", "-k", "/nonexistent", "--json", "-l")
	objs = jsonLinesOf(t, out)
	if err != nil || len(objs) != 7 || objs[0]["mode"] != "list" || objs[0]["kind"] != "uprobe" || objs[len(objs)-1]["event"] != "probe_app:work_L7" {
		t.Errorf("-l --json: %v\n%s", err, out)
	}
	exe, _ := filepath.EvalSymlinks(app)
	last := objs[len(objs)-1]
	if last["point"] != "work:7@testdata/fixtures/app_util.c" || last["binary"] != exe ||
		last["args"].([]any)[0].(map[string]any)["name"] != "name" {
		t.Errorf("-l --json event %v", last)
	}

	out, _, err = dw("-q", "--json", "-d", "probe_app:*")
	objs = jsonLinesOf(t, out)
	if err != nil || len(objs) != 2 || objs[0]["mode"] != "delete" || objs[0]["event"] != "probe_app:item_score" {
		t.Errorf("-d --json: %v\n%s", err, out)
	}

	p := filepath.Join(t.TempDir(), "defs")
	if err := os.WriteFile(p, []byte("p:dwapply/e0 /bin/true:0x10 x=%di\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = dw("-q", "--json", "--apply", p)
	if err != nil || out != `{"schema":1,"mode":"apply","event":"dwapply:e0","kind":"uprobe","definition":"p:dwapply/e0 /bin/true:0x0000000000000010 x=%di","point":"0x10","binary":"/bin/true","args":[{"name":"x","fetcharg":"%di","location":"register %di"}]}`+"\n" {
		t.Errorf("--apply --json: %v\n%s", err, out)
	}
	k.Writes()
}

// TestFetchWhere: a fetcharg's location in words.
func TestFetchWhere(t *testing.T) {
	for f, want := range map[string]string{
		"%di":            "register %di",
		"$retval":        "return value",
		"$stack3":        "stack entry 3",
		"$arg2":          "function argument 2",
		"$comm":          "current task's name",
		"@jiffies":       "global jiffies",
		"@jiffies+8":     "global jiffies+8",
		`\42`:            "immediate 42",
		"+16(%si)":       "memory at 16 from register %si",
		"-8(+0(%bp))":    "memory at -8 from (memory at 0 from register %bp)",
		"+u0(%di)":       "user memory at 0 from register %di",
		"+0(@init_task)": "memory at 0 from (global init_task)",
		"weird":          "fetcharg weird",
	} {
		if got := fetchWhere(tracefs.Arg{Fetch: f, Read: tracefs.ReadFetch(f)}); got != want {
			t.Errorf("fetchWhere(%q) = %q, want %q", f, got, want)
		}
	}
}

// TestE2EJSONKernel: -D --json on the corpus vmlinux names the symbol,
// the source line and a kernel address that a JSON number could not
// hold exactly.
func TestE2EJSONKernel(t *testing.T) {
	out, _, err := runKernel(t, "amd64", "--json", "-D", "vfs_read:12 count")
	if err != nil {
		t.Fatal(err)
	}
	objs := jsonLinesOf(t, out)
	if len(objs) != 1 {
		t.Fatalf("%d objects:\n%s", len(objs), out)
	}
	pts := objs[0]["points"].([]any)
	p := pts[0].(map[string]any)
	if p["symbol"] != "vfs_read" || !strings.HasPrefix(p["address"].(string), "0xffffffff8") ||
		!strings.HasSuffix(p["source_file"].(string), "fs/read_write.c") || p["function"] != "vfs_read" ||
		!strings.HasPrefix(p["definition"].(string), "p:probe/vfs_read_L12 vfs_read+") {
		t.Errorf("point %v", p)
	}
	// The definitions are -D's.
	defs, _, err := runKernel(t, "amd64", "-D", "vfs_read:12 count")
	if err != nil || defs != p["definition"].(string)+"\n" {
		t.Errorf("-D: %v\n%s\n--json: %s", err, defs, p["definition"])
	}
}

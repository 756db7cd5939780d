package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// jsonObjects names each --json struct as README's "JSON output" does.
var jsonObjects = map[string]reflect.Type{
	"spec":          reflect.TypeFor[jsonSpec](),
	"point":         reflect.TypeFor[jsonPt](),
	"arg":           reflect.TypeFor[jsonArg](),
	"read":          reflect.TypeFor[jsonRead](),
	"load":          reflect.TypeFor[jsonLoad](),
	"vars":          reflect.TypeFor[jsonVars](),
	"unreadable":    reflect.TypeFor[jsonUnreadable](),
	"error":         reflect.TypeFor[jsonError](),
	"event":         reflect.TypeFor[jsonEvent](),
	"lines":         reflect.TypeFor[jsonLines](),
	"line":          reflect.TypeFor[jsonListLine](),
	"line_point":    reflect.TypeFor[jsonLinePoint](),
	"variable":      reflect.TypeFor[jsonVariable](),
	"functions":     reflect.TypeFor[jsonFuncs](),
	"deleted":       reflect.TypeFor[jsonDeleted](),
	"sdt":           reflect.TypeFor[jsonSDT](),
	"marker":        reflect.TypeFor[jsonMarker](),
	"diff":          reflect.TypeFor[jsonDiff](),
	"diffpoint":     reflect.TypeFor[jsonDiffPoint](),
	"argchange":     reflect.TypeFor[jsonArgChange](),
	"suggestion":    reflect.TypeFor[jsonSuggestion](),
	"fleet_build":   reflect.TypeFor[jsonFleetBuild](),
	"fleet_spec":    reflect.TypeFor[jsonFleetSpec](),
	"fleet_summary": reflect.TypeFor[jsonFleetSummary](),
	"fleet_change":  reflect.TypeFor[jsonFleetChange](),
}

// TestREADMEJSONSchema: README documents every field of every --json
// object, with its JSON type and whether it may be left out, and nothing
// else: the structs are the schema.
func TestREADMEJSONSchema(t *testing.T) {
	doc := readmeJSONTables(t)
	for name, typ := range jsonObjects {
		want := structRows(typ)
		got := doc[name]
		if !slices.Equal(got, want) {
			t.Errorf("README object %s:\n got %q\nwant %q", name, got, want)
		}
	}
	for name := range doc {
		if jsonObjects[name] == nil {
			t.Errorf("README documents object %s, which no struct is", name)
		}
	}
}

// readmeJSONTables reads the field tables of README's "JSON output": for
// each "Object `NAME`" its rows as "field type" ("field type optional"
// when the meaning starts with "optional").
func readmeJSONTables(t *testing.T) map[string][]string {
	b, err := os.ReadFile("reference.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### JSON output\n")
	if i < 0 {
		t.Fatal("README has no JSON output section")
	}
	s = s[i+1:]
	if j := strings.Index(s, "\n#"); j >= 0 {
		s = s[:j]
	}
	obj := regexp.MustCompile("^Object `([a-z_]+)`")
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\| ([a-z_ ]+) \\| (.*) \\|$")
	out := map[string][]string{}
	cur := ""
	for _, l := range strings.Split(s, "\n") {
		if m := obj.FindStringSubmatch(l); m != nil {
			cur = m[1]
			continue
		}
		if m := row.FindStringSubmatch(l); m != nil && cur != "" {
			r := m[1] + " " + m[2]
			if strings.HasPrefix(m[3], "optional") {
				r += " optional"
			}
			out[cur] = append(out[cur], r)
		}
	}
	return out
}

// structRows are typ's fields as README rows: "name type [optional]".
func structRows(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		tag := strings.Split(f.Tag.Get("json"), ",")
		r := tag[0] + " " + jsonType(f.Type)
		if slices.Contains(tag[1:], "omitempty") {
			r += " optional"
		}
		out = append(out, r)
	}
	return out
}

// jsonType is the README's name of the JSON type of a Go type.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Uint64:
		return "integer"
	case reflect.Slice:
		return "array of " + jsonType(t.Elem())
	case reflect.Pointer:
		return jsonType(t.Elem())
	case reflect.Struct:
		for name, typ := range jsonObjects {
			if typ == t {
				return name
			}
		}
	}
	return "unknown " + t.String()
}

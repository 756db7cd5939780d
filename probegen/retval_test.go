package probegen_test

import (
	"strings"
	"testing"

	"github.com/dwprobe/dwprobe/dwarfres/dwarftest"
	"github.com/dwprobe/dwprobe/probegen"
)

// retvalSource returns a pointer to a structure: $retval's members are
// typed by pick's DWARF return type.
const retvalSource = `struct pair { long a; int b; };
struct item {
	char *name;
	int count;
	struct pair p;
	struct item *next;
};

static struct item two = { "two", 2, { -2, 2 }, 0 };
static struct item one = { "one", 1, { -1, 1 }, &two };

__attribute__((noinline)) struct item *pick(int n)
{
	return n ? &one : &two;
}

__attribute__((noinline)) void nothing(void) {}

int main(int argc, char **argv)
{
	(void)argv;
	nothing();
	return pick(argc)->count;
}
`

// TestRetvalMembers: FUNC%return reads members of the returned pointer
// through +OFF($retval), from the function's DWARF return type, at any
// depth; a void function or a non-pointer return value is refused.
func TestRetvalMembers(t *testing.T) {
	bin := dwarftest.Compile(t, "gcc", "retval.c", retvalSource, "-g", "-O1")
	tgt, err := probegen.Open(probegen.OpenOptions{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	r := tgt.Resolver(probegen.ResolveOptions{})
	for _, tt := range []struct{ spec, args, err string }{
		{"pick%return $retval->name:string", "name=+0(+0($retval)):string", ""},
		{"pick%return $retval->count", "count=+8($retval):s32", ""},
		{"pick%return a=$retval->p.a b=$retval->p.b", "a=+16($retval):s64 b=+24($retval):s32", ""},
		{"pick%return n=$retval->next->name:string c=$retval->next->p.b", "n=+0(+0(+32($retval))):string c=+24(+32($retval)):s32", ""},
		{"pick%return $retval", "$retval", ""},
		{"pick%return $retval->nosuch", "", "no member nosuch"},
		{"pick%return $retval->", "", "bad member"},
		{"pick $retval->name", "", "only available on a return probe"},
		{"nothing%return $retval->x", "", "returns void"},
		{"main%return $retval->x", "", "not a structure, union or pointer to one"},
	} {
		_, res, err := r.Resolve(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		for _, d := range res.Definitions() {
			var got []string
			for _, a := range d.Args {
				got = append(got, a.String())
			}
			if strings.Join(got, " ") != tt.args {
				t.Errorf("%s: %s, want args %s", tt.spec, d.String(), tt.args)
			}
		}
	}
}

package lazymatch_test

import (
	"fmt"

	"github.com/dwprobe/dwprobe/lazymatch"
)

func ExampleParseFilter() {
	// perf probe --vars default filter: hide export-table symbols.
	f, err := lazymatch.ParseFilter("!__k???tab_* & !__crc_*")
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Match("count"), f.Match("__ksymtab_vfs_read"))

	_, err = lazymatch.ParseFilter("a|(b")
	fmt.Println(err)
	// Output:
	// true false
	// filter "a|(b": column 5: missing ')'
}

func ExampleLazy() {
	// perf probe 'schedule;rq=cpu_rq*' matches this source line.
	fmt.Println(lazymatch.Lazy("\trq = cpu_rq(cpu);", "rq=cpu_rq*"))
	// Output: true
}

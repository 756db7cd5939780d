package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
	"github.com/dwprobe/dwprobe/probegen/answer"
	"github.com/dwprobe/dwprobe/probegen/grammar"
	"github.com/dwprobe/dwprobe/probegen/sdtprobe"
)

// resolveSpec resolves one spec through res (probegen.Resolver: an SDT
// marker from the binary's notes, a tracepoint probe from the kernel's
// BTF, anything else from its debuginfo or the reason it has none).
func resolveSpec(res *probegen.Resolver, in specInput) resolved {
	spec, rs, err := res.Resolve(in.raw)
	return resolvedFrom(in, spec, rs, err)
}

// resolvedOf is the result of one spec of a batch (probegen's Stream).
func resolvedOf(in specInput, sr probegen.SpecResult) resolved {
	var err error
	if sr.Err != nil {
		err = sr.Err.Err
	}
	return resolvedFrom(in, sr.Parsed, sr.Resolution, err)
}

// resolvedFrom is in's resolution, or why there is none, worded.
func resolvedFrom(in specInput, spec *grammar.Spec, rs *answer.Resolution, err error) resolved {
	r := resolved{in: in, spec: spec}
	if errors.Is(err, probegen.ErrSDTNeedsBinary) {
		err = errorWith(grammar.ErrNotSupported, "%s: SDT markers are read from a user binary: give it with -x", in.raw)
	}
	r.take(rs, err)
	return r
}

// runSDT implements --sdt: the SDT markers of -x's binary, as perf list
// sdt names them (sdt_PROVIDER:NAME), sorted, each once, those --filter
// passes.
func runSDT(o *options, t *probegen.Target, stdout io.Writer) error {
	ms, err := t.SDTMarkers()
	if err != nil {
		return err
	}
	keep := func(string) bool { return true }
	if o.filter != "" {
		f, err := lazymatch.ParseFilter(o.filter)
		if err != nil {
			return err
		}
		keep = f.Match
	}
	var sel []probegen.SDTMarker
	for _, m := range ms {
		if keep(sdtprobe.MarkerName(m)) {
			sel = append(sel, m)
		}
	}
	if o.json {
		return writeJSON(stdout, sdtJSON(t.Built().Path, sel))
	}
	names := sdtprobe.Names(sel)
	slices.Sort(names)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, n := range names {
		fmt.Fprintln(w, n)
	}
	return nil
}

// jsonSDT is the marker list of --sdt.
type jsonSDT struct {
	Schema  int          `json:"schema"`
	Mode    string       `json:"mode"`
	Binary  string       `json:"binary"`
	Markers []jsonMarker `json:"markers"`
}

// jsonMarker is one SDT marker (one note: a marker at two places is
// two).
type jsonMarker struct {
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	Marker    string `json:"marker"`
	Address   uint64 `json:"address"`
	Offset    uint64 `json:"offset"`
	Semaphore uint64 `json:"semaphore,omitempty"`
	Args      string `json:"args,omitempty"`
}

// sdtJSON is the --sdt listing of the markers of bin, in note order.
func sdtJSON(bin string, ms []probegen.SDTMarker) jsonSDT {
	js := jsonSDT{Schema: jsonSchema, Mode: "sdt", Binary: bin, Markers: []jsonMarker{}}
	for _, m := range ms {
		js.Markers = append(js.Markers, jsonMarker{Name: sdtprobe.MarkerName(m), Provider: m.Provider,
			Marker: m.Name, Address: m.Loc, Offset: m.Offset, Semaphore: m.RefCtr, Args: m.Args})
	}
	return js
}

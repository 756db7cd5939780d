package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/dwprobe/dwprobe/dwarfres"
	"github.com/dwprobe/dwprobe/dwarfres/sdt"
	"github.com/dwprobe/dwprobe/lazymatch"
	"github.com/dwprobe/dwprobe/probegen"
)

// openWithoutDebug opens -x when its debuginfo is missing (openErr) and
// the run may need none: SDT markers are read from .note.stapsdt, so
// -D and -a of sdt_PROVIDER:NAME specs, and --sdt, work on a stripped
// binary. openErr is kept in o for the specs that do need debuginfo.
func openWithoutDebug(o *options, openErr error) (*dwarfres.File, func(), error) {
	if o.exec == "" && sdtSpecGiven(o) {
		return nil, nil, errorWith(probegen.ErrNotSupported, "SDT markers are read from a user binary: give it with -x")
	}
	if o.exec == "" || !errors.Is(openErr, dwarfres.ErrNoDebugInfo) ||
		(len(o.defs) == 0 && len(o.adds) == 0 && !o.sdt) {
		return nil, nil, openErr
	}
	exe, _, err := execPaths(o) // where -x is read: under --symfs or --target-ns
	if err != nil {
		return nil, nil, openErr
	}
	f, err := dwarfres.Open(exe)
	if err != nil {
		return nil, nil, openErr
	}
	o.noDebug = openErr
	return f, func() { f.Close() }, nil
}

// sdtSpecGiven reports whether a spec of -D or -a (not of a spec file)
// names an SDT marker.
func sdtSpecGiven(o *options) bool {
	for _, raw := range append(slices.Clip(o.defs), o.adds...) {
		if s, err := probegen.ParseSpec(raw); err == nil && s.Point.SDT {
			return true
		}
	}
	return false
}

// resolveSpec resolves one spec: an SDT marker from the binary's notes,
// anything else from its debuginfo (or the reason it has none).
func resolveSpec(o *options, t *dwarfres.File, in specInput, exe string, ro probegen.ResolveOptions) resolved {
	r := resolved{in: in}
	if r.spec, r.err = probegen.ParseSpec(in.raw); r.err != nil {
		return r
	}
	if !r.spec.Point.SDT {
		if o.noDebug != nil {
			r.err = o.noDebug
			return r
		}
		return resolveOne(t, in, exe, ro, o.json)
	}
	if exe == "" {
		r.err = errorWith(probegen.ErrNotSupported, "%s: SDT markers are read from a user binary: give it with -x", in.raw)
		return r
	}
	r.take(probegen.SDTResolve(t, r.spec, exe, ro))
	return r
}

// runSDT implements --sdt: the SDT markers of -x's binary, as perf list
// sdt names them (sdt_PROVIDER:NAME), sorted, each once, those --filter
// passes.
func runSDT(o *options, t *dwarfres.File, stdout io.Writer) error {
	ms, err := sdt.Markers(t.Object)
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
	var sel []sdt.Marker
	for _, m := range ms {
		if keep(probegen.SDTMarkerName(m)) {
			sel = append(sel, m)
		}
	}
	if o.json {
		return writeJSON(stdout, sdtJSON(t.Path, sel))
	}
	names := probegen.SDTNames(sel)
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
func sdtJSON(bin string, ms []sdt.Marker) jsonSDT {
	js := jsonSDT{Schema: jsonSchema, Mode: "sdt", Binary: bin, Markers: []jsonMarker{}}
	for _, m := range ms {
		js.Markers = append(js.Markers, jsonMarker{Name: probegen.SDTMarkerName(m), Provider: m.Provider,
			Marker: m.Name, Address: m.Loc, Offset: m.Offset, Semaphore: m.RefCtr, Args: m.Args})
	}
	return js
}

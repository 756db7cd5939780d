package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// writeFleetReports prints a --fleet run's reports on stdout (as JSON
// lines with --json) and writes its JUnit XML to --junit's file.
func writeFleetReports(o *options, stdout io.Writer, reps []*fleetReport) error {
	if o.junit != "" {
		if err := writeJUnitFile(o.junit, reps); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(stdout)
	if o.json {
		if err := writeFleetJSON(w, reps); err != nil {
			return err
		}
	} else {
		writeFleetText(w, reps)
	}
	return w.Flush()
}

// writeFleetText prints each build's answers, as --diff words them (a
// reference's: "resolves", "fails" or "invalid"), then a line per spec:
// in how many builds it resolves, where it fails or changed.
func writeFleetText(w io.Writer, reps []*fleetReport) {
	for _, r := range reps {
		fmt.Fprintf(w, "== %s\n", buildHeading(r))
		for _, s := range r.specs {
			fmt.Fprintf(w, "%-10s %s\n", s.verdict, s.in.raw)
			for _, l := range s.details {
				fmt.Fprintf(w, "           %s\n", l)
			}
		}
	}
	sums := fleetSummaries(reps)
	fmt.Fprintf(w, "== each spec in the %d builds checked\n", checkedBuilds(reps))
	for _, s := range sums {
		fmt.Fprintf(w, "%s: %s\n", s.spec, s.text())
	}
}

// buildHeading is a build's heading: its name, what was read, its machine
// and its reference, or why it could not be checked.
func buildHeading(r *fleetReport) string {
	what := r.b.Path
	if r.b.BuildID != "" {
		what = "build-id " + r.b.BuildID
	}
	if r.err != nil {
		return fmt.Sprintf("%s (%s): not checked: %s", r.b.Name, what, oneLine(r.err.Error()))
	}
	ref := "the reference"
	if r.ref != "" {
		ref = "diffed against " + r.ref
	}
	return fmt.Sprintf("%s (%s, %s): %s", r.b.Name, what, r.machine, ref)
}

func checkedBuilds(reps []*fleetReport) int {
	n := 0
	for _, r := range reps {
		if r.err == nil {
			n++
		}
	}
	return n
}

// fleetSummary is one spec across the builds checked.
type fleetSummary struct {
	spec      string
	builds    int
	resolves  int
	failsIn   []string            // builds where it does not resolve
	changedIn map[string][]string // by change (args, points, moved, broken, invalid): builds
}

func (s fleetSummary) text() string {
	t := fmt.Sprintf("resolves in %d of %d builds", s.resolves, s.builds)
	if len(s.failsIn) > 0 && s.resolves > 0 {
		t += "; not in " + strings.Join(s.failsIn, ", ")
	}
	for _, c := range summaryChanges {
		if b := s.changedIn[c]; len(b) > 0 {
			t += fmt.Sprintf("; %s in %s", c, strings.Join(b, ", "))
		}
	}
	return t
}

// summaryChanges are the verdicts a spec's summary names the builds of.
var summaryChanges = []string{"args", "points", "moved", "broken", "invalid"}

// fleetSummaries summarises each spec across the builds checked, in spec
// order. Every build checked has the same specs, in the same order.
func fleetSummaries(reps []*fleetReport) []fleetSummary {
	var out []fleetSummary
	for _, r := range reps {
		if r.err != nil {
			continue
		}
		for i, s := range r.specs {
			if i == len(out) {
				out = append(out, fleetSummary{spec: s.in.raw, changedIn: map[string][]string{}})
			}
			sum := &out[i]
			sum.builds++
			if s.resolves {
				sum.resolves++
			} else {
				sum.failsIn = append(sum.failsIn, r.b.Name)
			}
			if slices.Contains(summaryChanges, s.verdict) {
				sum.changedIn[s.verdict] = append(sum.changedIn[s.verdict], r.b.Name)
			}
		}
	}
	return out
}

// jsonFleetBuild is one build of a --fleet run (mode "fleet-build").
type jsonFleetBuild struct {
	Schema    int    `json:"schema"`
	Mode      string `json:"mode"`
	Build     string `json:"build"`
	BuildID   string `json:"build_id,omitempty"`
	Path      string `json:"path,omitempty"`
	Machine   string `json:"machine,omitempty"`
	Reference string `json:"reference,omitempty"`
	Error     string `json:"error,omitempty"`
	Specs     int    `json:"specs"`
	Failures  int    `json:"failures"`
}

// jsonFleetSpec is one spec in one build of a --fleet run (mode "fleet").
type jsonFleetSpec struct {
	Schema     int      `json:"schema"`
	Mode       string   `json:"mode"`
	Build      string   `json:"build"`
	Spec       string   `json:"spec"`
	File       string   `json:"file,omitempty"`
	Line       int      `json:"line,omitempty"`
	Resolves   bool     `json:"resolves"`
	Verdict    string   `json:"verdict"`
	Details    []string `json:"details,omitempty"`
	Error      string   `json:"error,omitempty"`
	Suggestion string   `json:"suggestion,omitempty"`
}

// jsonFleetSummary is one spec across the builds checked (mode
// "fleet-summary").
type jsonFleetSummary struct {
	Schema    int               `json:"schema"`
	Mode      string            `json:"mode"`
	Spec      string            `json:"spec"`
	Builds    int               `json:"builds"`
	Resolves  int               `json:"resolves"`
	FailsIn   []string          `json:"fails_in,omitempty"`
	ChangedIn []jsonFleetChange `json:"changed_in,omitempty"`
}

// jsonFleetChange is the builds where a spec got one verdict.
type jsonFleetChange struct {
	Verdict string   `json:"verdict"`
	Builds  []string `json:"builds"`
}

// writeFleetJSON prints per build a fleet-build object and its specs'
// fleet objects, then a fleet-summary object per spec.
func writeFleetJSON(w io.Writer, reps []*fleetReport) error {
	for _, r := range reps {
		jb := jsonFleetBuild{Schema: jsonSchema, Mode: "fleet-build", Build: r.b.Name, BuildID: r.b.BuildID, Path: r.path,
			Machine: r.machine, Reference: r.ref, Specs: len(r.specs), Failures: failures(r)}
		if r.err != nil {
			jb.Error = oneLine(r.err.Error())
		}
		if err := writeJSON(w, jb); err != nil {
			return err
		}
		for _, s := range r.specs {
			js := jsonFleetSpec{Schema: jsonSchema, Mode: "fleet", Build: r.b.Name, Spec: s.in.raw, File: s.in.file, Line: s.in.line,
				Resolves: s.resolves, Verdict: s.verdict, Details: s.details, Error: s.errMsg, Suggestion: s.suggest}
			if err := writeJSON(w, js); err != nil {
				return err
			}
		}
	}
	for _, s := range fleetSummaries(reps) {
		js := jsonFleetSummary{Schema: jsonSchema, Mode: "fleet-summary", Spec: s.spec, Builds: s.builds, Resolves: s.resolves, FailsIn: s.failsIn}
		for _, c := range summaryChanges {
			if b := s.changedIn[c]; len(b) > 0 {
				js.ChangedIn = append(js.ChangedIn, jsonFleetChange{c, b})
			}
		}
		if err := writeJSON(w, js); err != nil {
			return err
		}
	}
	return nil
}

func failures(r *fleetReport) int {
	n := 0
	for _, s := range r.specs {
		if s.failed() {
			n++
		}
	}
	return n
}

// JUnit XML as Jenkins' and Maven Surefire's reports write it, which CI
// systems read: testsuites, a testsuite per build, a testcase per spec;
// a failure for a spec that does not resolve, changed or is no probe
// command; an error for each spec of a build that could not be checked.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Cases      []junitCase      `xml:"testcase"`
	SystemErr  string           `xml:"system-err,omitempty"`
}

type junitProperties struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitOf is the JUnit report of reps. A build not checked has a
// testcase per spec all the same (the specs of a checked build, else
// none), each an error: CI shows what was not tested.
func junitOf(reps []*fleetReport) junitSuites {
	js := junitSuites{Name: "dwprobe --fleet"}
	var specs []fleetSpec
	for _, r := range reps {
		if r.err == nil {
			specs = r.specs
			break
		}
	}
	for _, r := range reps {
		s := junitSuite{Name: r.b.Name, Time: fmt.Sprintf("%.3f", r.took.Seconds())}
		for _, p := range [][2]string{{"build_id", r.b.BuildID}, {"path", r.path}, {"machine", r.machine}, {"reference", r.ref}} {
			if p[1] == "" {
				continue
			}
			if s.Properties == nil {
				s.Properties = &junitProperties{}
			}
			s.Properties.List = append(s.Properties.List, junitProperty{p[0], p[1]})
		}
		if r.err != nil {
			s.SystemErr = oneLine(r.err.Error())
			for _, sp := range specs {
				s.Cases = append(s.Cases, junitCase{Name: sp.in.raw, Classname: junitClass(r), Time: "0",
					Error: &junitProblem{Message: "build not checked: " + s.SystemErr, Type: "build"}})
				s.Errors++
			}
		}
		for _, sp := range r.specs {
			c := junitCase{Name: sp.in.raw, Classname: junitClass(r), Time: "0"}
			if sp.failed() {
				c.Failure = &junitProblem{Message: junitMessage(sp), Type: sp.verdict, Text: strings.Join(sp.details, "\n")}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		js.Tests += s.Tests
		js.Failures += s.Failures
		js.Errors += s.Errors
		js.Suites = append(js.Suites, s)
	}
	return js
}

// junitClass is the class of a build's testcases: CI systems group by it.
func junitClass(r *fleetReport) string { return "dwprobe.fleet." + r.b.Name }

func junitMessage(s fleetSpec) string {
	switch {
	case s.errMsg != "":
		return s.verdict + ": " + s.errMsg
	case len(s.details) > 0:
		return s.verdict + ": " + s.details[0]
	}
	return s.verdict
}

// writeJUnit writes reps as JUnit XML.
func writeJUnit(w io.Writer, reps []*fleetReport) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitOf(reps)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeJUnitFile writes the JUnit report to path whole or not at all: a
// temporary beside it, renamed over it once written.
func writeJUnitFile(path string, reps []*fleetReport) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeJUnit(tmp, reps); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

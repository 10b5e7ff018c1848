package testverify

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// Status is a reported test outcome.
type Status string

const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusError   Status = "error"
	StatusSkipped Status = "skipped"
)

// Case is one test outcome reported by a tool (a JUnit testcase or a
// unittest result line).
type Case struct {
	Class, Name, File string
	Status            Status
	Message           string
}

// Key is the case's TestKey: class components then name.
func (c Case) Key() []string {
	var k []string
	switch {
	case c.Class != "":
		k = splitDots(c.Class)
	case c.File != "":
		k = TestKey(c.File)
	}
	name := strings.TrimSuffix(c.Name, "()")
	if len(k) > 0 && k[len(k)-1] == name {
		return k
	}
	return append(k, name)
}

type xmlNode struct {
	Suites []xmlNode `xml:"testsuite"`
	Cases  []xmlCase `xml:"testcase"`
	Name   string    `xml:"name,attr"`
}

type xmlCase struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	File      string   `xml:"file,attr"`
	Failures  []xmlMsg `xml:"failure"`
	Errors    []xmlMsg `xml:"error"`
	Skipped   []xmlMsg `xml:"skipped"`
}

type xmlMsg struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// ParseJUnit reads a JUnit XML report (a <testsuites> or <testsuite> root,
// suites nested to any depth) as written by pytest, Maven Surefire, Gradle
// and Ant.
func ParseJUnit(data []byte) ([]Case, error) {
	var root xmlNode
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("JUnit XML: %v: %w", err, errs.ErrInput)
	}
	var out []Case
	var walk func(n *xmlNode, depth int)
	walk = func(n *xmlNode, depth int) {
		if depth > 64 {
			return
		}
		for _, c := range n.Cases {
			cs := Case{Class: c.Classname, Name: c.Name, File: c.File, Status: StatusPassed}
			switch {
			case len(c.Errors) > 0:
				cs.Status, cs.Message = StatusError, message(c.Errors[0])
			case len(c.Failures) > 0:
				cs.Status, cs.Message = StatusFailed, message(c.Failures[0])
			case len(c.Skipped) > 0:
				cs.Status, cs.Message = StatusSkipped, message(c.Skipped[0])
			}
			out = append(out, cs)
		}
		for i := range n.Suites {
			walk(&n.Suites[i], depth+1)
		}
	}
	walk(&root, 0)
	return out, nil
}

func message(m xmlMsg) string {
	s := m.Message
	if s == "" {
		s = lastLine([]byte(m.Body))
	}
	if m.Type != "" && !strings.Contains(s, m.Type) {
		s = m.Type + ": " + s
	}
	return oneLine(s, 200)
}

// readReports parses every file matching glob (relative to dir).
func readReports(dir, glob string) ([]Case, error) {
	matches, err := filepath.Glob(reportGlob(dir, glob))
	if err != nil {
		return nil, fmt.Errorf("JUnit XML glob %q: %v: %w", glob, err, errs.ErrUsage)
	}
	sort.Strings(matches)
	var out []Case
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		cases, err := ParseJUnit(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		out = append(out, cases...)
	}
	return out, nil
}

// matchCases turns reported cases into one result per requested test. A
// test passes when at least one case matches and every matching case
// passed. Tests without a case fail, as timed out when the run timed out.
func matchCases(tests []string, cases []Case, res sandbox.Result, timeout time.Duration) []TestResult {
	keys := make([][]string, len(cases))
	for i, c := range cases {
		keys[i] = c.Key()
	}
	out := make([]TestResult, 0, len(tests))
	for _, t := range tests {
		found, bad := matching(TestKey(t), cases, keys)
		out = append(out, caseResult(t, found, bad, res, timeout))
	}
	return out
}

// matching counts the cases whose key (keys[i]) matches want and returns
// the first of them that did not pass (nil: none).
func matching(want []string, cases []Case, keys [][]string) (found int, bad *Case) {
	for i := range cases {
		if !keyMatch(want, keys[i]) {
			continue
		}
		found++
		if cases[i].Status != StatusPassed && bad == nil {
			bad = &cases[i]
		}
	}
	return found, bad
}

// caseResult is test t's result from its found matching cases, bad the
// first that did not pass; with none found, the run says why.
func caseResult(t string, found int, bad *Case, res sandbox.Result, timeout time.Duration) TestResult {
	tr := TestResult{Name: t}
	switch {
	case found == 0 && res.TimedOut:
		tr.TimedOut, tr.Detail = true, "timed out after "+durationText(timeout)+" before reporting this test"
	case found == 0 && res.OOM:
		tr.Detail = "ran out of memory before reporting this test"
	case found == 0:
		tr.Detail = fmt.Sprintf("no result reported (exit status %d: %s)", res.ExitCode, lastLine(res.Stderr, res.Stdout))
		tr.NotRun, tr.Exit, tr.Tail = true, res.ExitCode, outputTail(res.Stdout, res.Stderr)
	case bad != nil:
		tr.Detail = string(bad.Status)
		if bad.Message != "" {
			tr.Detail += ": " + bad.Message
		}
	default:
		tr.Passed = true
	}
	return tr
}

// Package output is the one way a command reports: a typed stream of
// messages (progress, warning, record, summary) sent to a Handler. The
// domain code emits; the handler decides the form, so a command's text on a
// terminal, its --json stream and its HTML report are all fed the same
// messages and cannot drift apart.
//
// Handlers:
//
//   - JSON (--json): JSON Lines on stdout, one message per line, written as
//     it is emitted — a long run's records can be read while it goes on,
//     as with govulncheck's -json stream. Each line is an object with
//     exactly one of "progress", "warning", "record" or "summary"; a record
//     and a summary carry a "kind" naming their schema and a "value".
//   - Text: warnings on stderr, progress on stderr only when it is a
//     terminal, the summary rendered by the command (usually with Table),
//     records silent unless the command renders them.
//   - Collect: keeps every message, for the HTML report or a test.
//
// The package also holds the one atomic file writer (WriteFile, Write)
// every output file goes through.
package output

import (
	"errors"
	"sync"
)

// Progress says how far a step is. Done and Total count the step's items
// when they are known (Total 0: unknown).
type Progress struct {
	Step    string `json:"step"`
	Done    int    `json:"done,omitempty"`
	Total   int    `json:"total,omitempty"`
	Message string `json:"message,omitempty"`
}

// Warning is something the user should know that does not stop the run: a
// skipped input record, a missing clone.
type Warning struct {
	Message string `json:"message"`
}

// Record is one result as it lands (a verdict, a patch check). Kind names
// the schema of Value, e.g. "patch_verdict".
type Record struct {
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

// Summary is a command's result as a whole, emitted once at the end. Kind
// names the schema of Value, e.g. "audit_run".
type Summary struct {
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

// Message is one line of the --json stream: exactly one field is set.
type Message struct {
	Progress *Progress `json:"progress,omitempty"`
	Warning  *Warning  `json:"warning,omitempty"`
	Record   *Record   `json:"record,omitempty"`
	Summary  *Summary  `json:"summary,omitempty"`
}

// Handler receives a command's messages. Methods may be called from
// several goroutines (a worker pool's results); implementations here are
// safe for that. An error from a handler (stdout closed) stops the command.
type Handler interface {
	Progress(Progress) error
	Warning(Warning) error
	Record(Record) error
	Summary(Summary) error
}

// Discard drops every message: the handler of library callers that want
// no report.
var Discard Handler = discard{}

type discard struct{}

func (discard) Progress(Progress) error { return nil }
func (discard) Warning(Warning) error   { return nil }
func (discard) Record(Record) error     { return nil }
func (discard) Summary(Summary) error   { return nil }

// Or returns h, or Discard when h is nil, so emitters need no nil checks.
func Or(h Handler) Handler {
	if h == nil {
		return Discard
	}
	return h
}

// Multi sends every message to each handler in turn (e.g. JSON on stdout
// and warnings on stderr); the first error is returned after all ran.
func Multi(hs ...Handler) Handler { return multi(hs) }

type multi []Handler

func (m multi) each(f func(Handler) error) error {
	var errs []error
	for _, h := range m {
		if err := f(h); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (m multi) Progress(p Progress) error {
	return m.each(func(h Handler) error { return h.Progress(p) })
}
func (m multi) Warning(w Warning) error { return m.each(func(h Handler) error { return h.Warning(w) }) }
func (m multi) Record(r Record) error   { return m.each(func(h Handler) error { return h.Record(r) }) }
func (m multi) Summary(s Summary) error { return m.each(func(h Handler) error { return h.Summary(s) }) }

// Collect keeps every message in order: the HTML report is built from a
// collected stream, and tests assert on one.
type Collect struct {
	mu       sync.Mutex
	Messages []Message
}

func (c *Collect) add(m Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Messages = append(c.Messages, m)
	return nil
}

func (c *Collect) Progress(p Progress) error { return c.add(Message{Progress: &p}) }
func (c *Collect) Warning(w Warning) error   { return c.add(Message{Warning: &w}) }
func (c *Collect) Record(r Record) error     { return c.add(Message{Record: &r}) }
func (c *Collect) Summary(s Summary) error   { return c.add(Message{Summary: &s}) }

// Records returns the values of the collected records of one kind.
func (c *Collect) Records(kind string) []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []any
	for _, m := range c.Messages {
		if m.Record != nil && m.Record.Kind == kind {
			out = append(out, m.Record.Value)
		}
	}
	return out
}

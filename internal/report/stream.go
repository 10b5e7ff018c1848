package report

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/output"
)

// HTML is the report's output.Handler: it keeps the warnings, records and
// summary of a message stream — the same messages the JSON and text
// handlers get — and at Close builds the page from them with Build and
// writes it to Path as one self-contained file. Progress is dropped: a page
// shows what a run found, not how it went.
//
// The handler knows no schema: Build (e.g. the audit pipeline's) turns the
// stream's records of the kinds it knows into sections.
type HTML struct {
	// Path is the HTML file Close writes (atomically, output.WriteFile).
	Path string
	// Of names what the page reports on (an audit directory), for errors.
	Of string
	// Build makes the page from the messages, in the order they came.
	Build func(msgs []output.Message) (*Page, error)

	c output.Collect
}

func (h *HTML) Progress(output.Progress) error { return nil }
func (h *HTML) Warning(w output.Warning) error { return h.c.Warning(w) }
func (h *HTML) Record(r output.Record) error   { return h.c.Record(r) }
func (h *HTML) Summary(s output.Summary) error { return h.c.Summary(s) }

// Close ends the stream: it builds the page from the kept messages,
// renders it and writes it to Path.
func (h *HTML) Close() error {
	p, err := h.Build(h.c.Messages)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := Render(&b, p); err != nil {
		return fmt.Errorf("render report of %s: %w", h.Of, err)
	}
	return output.WriteFile(h.Path, []byte(b.String()))
}

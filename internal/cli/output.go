package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/benchforge/benchforge/internal/output"
)

// stream is the handler of a command that reports through the output
// stream. With --json, stdout is the JSON Lines stream and nothing else
// (warnings go to stderr as well, for whoever watches the run); else
// stdout gets the summary rendered by render and stderr the warnings and,
// on a terminal, the progress.
func (a *app) stream(name string, asJSON bool, render func(io.Writer, output.Summary) error) output.Handler {
	text := &output.Text{Stdout: a.stdout, Stderr: a.stderr, Name: name, Render: render}
	if !asJSON {
		text.Live = isTerminal(a.stderr)
		return text
	}
	return output.Multi(output.JSON(a.stdout), &output.Text{Stdout: io.Discard, Stderr: a.stderr})
}

// renderAs adapts a printer of one summary type to output.Text's Render:
// each command emits one summary kind, so the type assertion cannot fail
// unless the command emits a value of another type (a bug a test catches).
func renderAs[T any](print func(io.Writer, T) error) func(io.Writer, output.Summary) error {
	return func(w io.Writer, s output.Summary) error { return print(w, s.Value.(T)) }
}

// warnAll sends each of ws as a warning, stopping at the first handler
// error (stdout closed).
func warnAll(h output.Handler, ws ...string) error {
	for _, w := range ws {
		if err := h.Warning(output.Warning{Message: w}); err != nil {
			return err
		}
	}
	return nil
}

// progressFunc is the progress callback of a counted step: it streams
// Progress{Step, done, total} to h. The text handler draws it as a bar on
// a terminal only; --json streams it. A handler error cannot stop the
// library's loop, so it is dropped here and resurfaces at the summary.
func progressFunc(h output.Handler, step string) func(done, total int) {
	return func(done, total int) { _ = h.Progress(output.Progress{Step: step, Done: done, Total: total}) }
}

// writeJSON writes v as indented JSON followed by a newline: the --json
// of the commands not yet moved to the output stream.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// writeJSONL writes each record of rows as one JSON line.
func writeJSONL[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write jsonl: %w", err)
		}
	}
	return nil
}

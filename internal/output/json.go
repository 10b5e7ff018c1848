package output

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSON returns the --json handler: every message is one JSON line on w,
// written (and so readable by a pipe) as soon as it is emitted.
func JSON(w io.Writer) Handler {
	enc := json.NewEncoder(w)
	// Source code and diffs are common in values; "<" and "&" stay as
	// they are rather than \u003c, so the stream greps like the files.
	enc.SetEscapeHTML(false)
	return &jsonHandler{enc: enc}
}

type jsonHandler struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (j *jsonHandler) write(m Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.enc.Encode(m); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func (j *jsonHandler) Progress(p Progress) error { return j.write(Message{Progress: &p}) }
func (j *jsonHandler) Warning(w Warning) error   { return j.write(Message{Warning: &w}) }
func (j *jsonHandler) Record(r Record) error     { return j.write(Message{Record: &r}) }
func (j *jsonHandler) Summary(s Summary) error   { return j.write(Message{Summary: &s}) }

// Raw is a record or summary read back from a stream, its value undecoded.
type Raw struct {
	Kind  string          `json:"kind"`
	Value json.RawMessage `json:"value"`
}

// Line is one message read back from a --json stream.
type Line struct {
	Progress *Progress `json:"progress,omitempty"`
	Warning  *Warning  `json:"warning,omitempty"`
	Record   *Raw      `json:"record,omitempty"`
	Summary  *Raw      `json:"summary,omitempty"`
}

// Decode reads a --json stream back. A line that is not a message (no
// field set, or text mixed into stdout) is an error: the stream is only
// messages.
func Decode(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return out, fmt.Errorf("output.Decode: line %d: %w", n, err)
		}
		set := 0
		for _, ok := range []bool{l.Progress != nil, l.Warning != nil, l.Record != nil, l.Summary != nil} {
			if ok {
				set++
			}
		}
		if set != 1 {
			return out, fmt.Errorf("output.Decode: line %d holds %d messages, want 1: %.80s", n, set, sc.Text())
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// ErrNoSummary is returned by DecodeSummary when the stream has no summary
// of the kind asked for (the command failed before its end).
var ErrNoSummary = errors.New("no summary in the stream")

// DecodeSummary reads a --json stream and decodes its summary of the given
// kind into v: what a script (or a test) that wants only the totals does.
func DecodeSummary(r io.Reader, kind string, v any) error {
	lines, err := Decode(r)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if l.Summary != nil && l.Summary.Kind == kind {
			return json.Unmarshal(l.Summary.Value, v)
		}
	}
	return fmt.Errorf("output.DecodeSummary(%s): %w", kind, ErrNoSummary)
}

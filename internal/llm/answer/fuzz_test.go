package answer_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

// FuzzRead feeds arbitrary answers through Clean and both kinds of Reader.
// Invariants: nothing panics; fields are returned only with a reading
// that names how, and then hold a decisive key; a confidence is in [0, 1];
// Clip keeps valid text valid and short. Determinism is not asserted: two
// JSON keys that normalise alike make the kept value depend on map order
// (see normalise).
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"can_throw_T": true, "confidence": 0.9}`, "```json\n{\"can_throw_T\": \"no\"}\n```", "**Yes**\n", "No JSON, sorry",
		"Can throw T: yes\nConfidence: 80%", "{\"summary\": 1} {\"can_throw_T\": false, \"line\": \"4\"}", "", "{", "```{```",
		strings.Repeat("{", 40) + `{"can_throw_T": true}`, "\xff\xfe yes",
	} {
		f.Add(s)
	}
	hows := []string{answer.JSON, answer.Fenced, answer.Embedded, answer.Lines, answer.YesNo}
	readers := []answer.Reader{oneQuestion, strict}
	f.Fuzz(func(t *testing.T, text string) {
		clean, err := answer.Clean(text)
		if err != nil {
			if strings.TrimSpace(text) != "" && len(text) <= answer.MaxLen {
				t.Fatalf("Clean(%q): %v for a non-blank answer", text, err)
			}
			return
		}
		if !utf8.ValidString(clean) || clean != strings.TrimSpace(clean) {
			t.Fatalf("Clean(%q) = %q: invalid or untrimmed", text, clean)
		}
		for _, r := range readers {
			fields, how := r.Read(clean)
			if how == "" {
				if len(fields) != 0 {
					t.Fatalf("Read(%q): fields %v with nothing read", clean, fields)
				}
				continue
			}
			if !slices.Contains(hows, how) || !fields.Has(r.Decisive...) {
				t.Fatalf("Read(%q) = %v, %q: unknown reading or no decisive key", clean, fields, how)
			}
			if how == answer.YesNo && !r.BareYesNo {
				t.Fatalf("Read(%q): a bare yes/no the reader did not ask for", clean)
			}
			if c := fields.Confidence(map[string]float64{"high": 0.9}, "confidence", "conf"); c != nil && (*c < 0 || *c > 1) {
				t.Fatalf("Read(%q): confidence %v outside [0, 1]", clean, *c)
			}
			if n := fields.Int("line"); n < 0 {
				t.Fatalf("Read(%q): line %d", clean, n)
			}
			_ = fields.Text("trigger")
		}
		if c := answer.Clip(clean, 40); len(c) > 40+len("…") || !utf8.ValidString(c) {
			t.Fatalf("Clip(%q, 40) = %q", clean, c)
		}
	})
}

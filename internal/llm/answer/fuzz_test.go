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
		clean, ok := checkClean(t, text)
		if !ok {
			return
		}
		for _, r := range readers {
			checkReading(t, r, clean, hows)
		}
		if c := answer.Clip(clean, 40); len(c) > 40+len("…") || !utf8.ValidString(c) {
			t.Fatalf("Clip(%q, 40) = %q", clean, c)
		}
	})
}

// checkClean cleans text: it may fail only on a blank or over-long
// answer, and otherwise gives valid, trimmed text. It reports whether
// cleaning succeeded.
func checkClean(t *testing.T, text string) (string, bool) {
	t.Helper()
	clean, err := answer.Clean(text)
	if err != nil {
		if strings.TrimSpace(text) != "" && len(text) <= answer.MaxLen {
			t.Fatalf("Clean(%q): %v for a non-blank answer", text, err)
		}
		return "", false
	}
	if !utf8.ValidString(clean) || clean != strings.TrimSpace(clean) {
		t.Fatalf("Clean(%q) = %q: invalid or untrimmed", text, clean)
	}
	return clean, true
}

// checkReading: r reads clean into no fields with no reading, or into
// fields holding its decisive keys by a known reading; a bare yes/no only
// when asked for; a confidence in [0, 1] and a line ≥ 0.
func checkReading(t *testing.T, r answer.Reader, clean string, hows []string) {
	t.Helper()
	fields, how := r.Read(clean)
	if how == "" {
		if len(fields) != 0 {
			t.Fatalf("Read(%q): fields %v with nothing read", clean, fields)
		}
		return
	}
	if !slices.Contains(hows, how) || !fields.Has(r.Decisive...) {
		t.Fatalf("Read(%q) = %v, %q: unknown reading or no decisive key", clean, fields, how)
	}
	if how == answer.YesNo && !r.BareYesNo {
		t.Fatalf("Read(%q): a bare yes/no the reader did not ask for", clean)
	}
	checkFieldRanges(t, clean, fields)
}

// checkFieldRanges: the confidence of fields is in [0, 1] and its line
// ≥ 0; reading the trigger does not panic.
func checkFieldRanges(t *testing.T, clean string, fields answer.Fields) {
	t.Helper()
	if c := fields.Confidence(map[string]float64{"high": 0.9}, "confidence", "conf"); c != nil && (*c < 0 || *c > 1) {
		t.Fatalf("Read(%q): confidence %v outside [0, 1]", clean, *c)
	}
	if n := fields.Int("line"); n < 0 {
		t.Fatalf("Read(%q): line %d", clean, n)
	}
	_ = fields.Text("trigger")
}

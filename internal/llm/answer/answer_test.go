package answer_test

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

// inlineFences stands in for a caller's fence reader: ``` blocks, also on
// one line, as the probes read them.
var inlineFence = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\n?(.*?)```")

func inlineFences(text string) []string {
	var bodies []string
	for _, m := range inlineFence.FindAllStringSubmatch(text, 8) {
		bodies = append(bodies, m[1])
	}
	return bodies
}

var (
	oneQuestion = answer.Reader{Decisive: []string{"canthrowt", "canthrow"}, Fences: inlineFences, FenceProse: true, BareYesNo: true}
	strict      = answer.Reader{Decisive: []string{"canthrowt"}, Fences: inlineFences}
)

// The texts are the shapes judge and probe models were recorded sending:
// strict JSON, JSON in a fence or in prose, "key: value" lines, a bare
// yes/no, and the failures (hedging prose, truncated JSON, empty, code).
func TestRead(t *testing.T) {
	cases := []struct {
		name string
		r    answer.Reader
		text string
		how  string         // "": nothing read
		want map[string]any // a subset of the fields read
	}{
		{"whole JSON", strict, `{"patch_summary": "adds a null check", "can_throw_T": true, "line": 2}`,
			answer.JSON, map[string]any{"patchsummary": "adds a null check", "canthrowt": true, "line": 2.0}},
		{"keys normalised", strict, `{"Can Throw T": false, "Confidence": "80%"}`,
			answer.JSON, map[string]any{"canthrowt": false, "confidence": "80%"}},
		{"fenced", strict, "Here is my answer:\n```json\n{\"can_throw_T\": true}\n```\n",
			answer.Fenced, map[string]any{"canthrowt": true}},
		{"one-line fence", strict, "```{\"can_throw_T\": \"no\"}```", answer.Fenced, map[string]any{"canthrowt": "no"}},
		{"prose in a fence, FenceProse", oneQuestion, "```json\n{\"can_throw_T\": true} // the index\n```",
			answer.Fenced, map[string]any{"canthrowt": true}},
		{"prose in a fence, no FenceProse", strict, "```json\n{\"can_throw_T\": true} // the index\n```",
			answer.Embedded, map[string]any{"canthrowt": true}},
		{"leading prose", strict, "The loop reads items[i] with i = length.\n{\"can_throw_T\": true, \"trigger\": \"i = items.length\"}",
			answer.Embedded, map[string]any{"trigger": "i = items.length"}},
		{"trailing prose", strict, "{\"can_throw_T\": false}\nThe change only touches the log message.",
			answer.Embedded, map[string]any{"canthrowt": false}},
		{"first object without the key", strict, "{\"summary\": \"no relevant change\"} and {\"can_throw_T\": false}",
			answer.Embedded, map[string]any{"canthrowt": false}},
		{"lines", strict, "- **Patch summary**: adds a bounds check\n- **Can throw T**: `no`\n- Confidence = 0.7,",
			answer.Lines, map[string]any{"patchsummary": "adds a bounds check", "canthrowt": "no", "confidence": "0.7"}},
		// Bold closing after the colon leaves a space once the markup is
		// cut: values are raw, and Text and the word readers trim them.
		{"bold over the colon", strict, "**Can throw T:** no", answer.Lines, map[string]any{"canthrowt": " no"}},
		{"first line of a key wins", strict, "can_throw_T: yes\ncan_throw_T: no", answer.Lines, map[string]any{"canthrowt": "yes"}},
		{"quoted line value", strict, `"can_throw_T": "true"`, answer.Lines, map[string]any{"canthrowt": "true"}},
		{"bare yes", oneQuestion, "**Yes**\nThe index is unchecked.", answer.YesNo, map[string]any{"canthrowt": true}},
		{"bare no", oneQuestion, "No — the guard returns first.", answer.YesNo, map[string]any{"canthrowt": false}},
		{"bare yes not asked for", strict, "Yes.", "", nil},
		{"no is not a prefix", oneQuestion, "No JSON can be given because the methods are incomplete.", "", nil},
		{"nothing is not no", oneQuestion, "Nothing to say", "", nil},
		{"hedging prose", oneQuestion, "It might throw under some inputs, hard to say.", "", nil},
		{"truncated JSON", oneQuestion, `{"patch_summary": "adds a null check", "can_thr`, "", nil},
		{"JSON without the key", strict, `{"confidence": 0.5}`, "", nil},
		{"null decisive", strict, `{"can_throw_T": null}`, "", nil},
		{"code", oneQuestion, "public int size() { return size; } for (int i = 0; i < x; i++) { size++; }", "", nil},
		{"zero Reader reads nothing", answer.Reader{}, `{"can_throw_T": true}`, "", nil},
	}
	for _, c := range cases {
		f, how := c.r.Read(c.text)
		if how != c.how {
			t.Errorf("%s: read as %q (%v), want %q", c.name, how, f, c.how)
			continue
		}
		if how == "" && f != nil {
			t.Errorf("%s: nothing read but fields %v", c.name, f)
		}
		for k, v := range c.want {
			if got, ok := f[k]; !ok || got != v {
				t.Errorf("%s: field %q = %#v, want %#v (all %v)", c.name, k, got, v, f)
			}
		}
	}
}

// TestReadEmbeddedBound: embedded tries 32 '{' positions, so an answer
// full of braces costs linear time and a verdict behind them is not read.
func TestReadEmbeddedBound(t *testing.T) {
	text := strings.Repeat("if (x) { y(); } ", 40) + `{"can_throw_T": true}`
	if f, how := strict.Read(text); how != "" {
		t.Errorf("verdict behind 40 braces read as %q: %v", how, f)
	}
	text = strings.Repeat("if (x) { y(); } ", 10) + `{"can_throw_T": true}`
	if _, how := strict.Read(text); how != answer.Embedded {
		t.Errorf("verdict behind 10 braces read as %q, want embedded", how)
	}
}

func TestClean(t *testing.T) {
	for name, text := range map[string]string{"blank": " \n\t ", "empty": ""} {
		if _, err := answer.Clean(text); !errors.Is(err, answer.ErrEmpty) {
			t.Errorf("%s answer: %v, want ErrEmpty", name, err)
		}
	}
	if got, err := answer.Clean("  {\"a\": 1}\n"); err != nil || got != `{"a": 1}` {
		t.Errorf("Clean = %q, %v", got, err)
	}
	if got, _ := answer.Clean("yes \xff"); got != "yes \uFFFD" {
		t.Errorf("invalid UTF-8 cleaned to %q", got)
	}
	// A very long answer is cut at MaxLen; the cut may split a rune, which
	// is replaced, and what lies past it is not read.
	long := strings.Repeat("é", answer.MaxLen) + "\ncan_throw_T: yes"
	got, err := answer.Clean(long)
	if err != nil || !validWithin(got, answer.MaxLen+len("\uFFFD")) {
		t.Fatalf("long answer cleaned to %d bytes, valid %v, %v", len(got), utf8.ValidString(got), err)
	}
	if f, how := strict.Read(got); how != "" {
		t.Errorf("field past MaxLen read as %q: %v", how, f)
	}
}

// validWithin reports whether s is valid UTF-8 of at most n bytes.
func validWithin(s string, n int) bool { return len(s) <= n && utf8.ValidString(s) }

func fp(v float64) *float64 { return &v }

func TestGetters(t *testing.T) {
	f := answer.Fields{
		"summary": "  guards the index ", "line": 4.0, "linetext": "line 12 of 40", "neg": -3.0,
		"big": 2e9, "flag": true, "num": 0.5, "trigger": map[string]any{"i": "length"}, "nothing": nil,
	}
	texts := map[string]string{"summary": "guards the index", "line": "4", "flag": "true",
		"trigger": `{"i":"length"}`, "nothing": "", "absent": ""}
	for k, want := range texts {
		if got := f.Text(k); got != want {
			t.Errorf("Text(%q) = %q, want %q", k, got, want)
		}
	}
	if got := f.Text("absent", "summary"); got != "guards the index" {
		t.Errorf("Text falls back to the second key: %q", got)
	}
	ints := map[string]int{"line": 4, "linetext": 12, "neg": 0, "big": 0, "flag": 0, "absent": 0}
	for k, want := range ints {
		if got := f.Int(k); got != want {
			t.Errorf("Int(%q) = %d, want %d", k, got, want)
		}
	}
	if !f.Has("absent", "flag") || f.Has("nothing", "absent") {
		t.Errorf("Has: a null or absent key counts, or a present one does not")
	}
}

func TestConfidence(t *testing.T) {
	verbal := map[string]float64{"high": 0.9}
	cases := []struct {
		v      any
		verbal map[string]float64
		want   *float64
	}{
		{0.85, nil, fp(0.85)},
		{75.0, nil, fp(0.75)},
		{"80%", nil, fp(0.8)},
		{" 0.6 ", nil, fp(0.6)},
		{"0.5%", nil, fp(0.005)},
		{"High", verbal, fp(0.9)},
		{"high", nil, nil},
		{"very", verbal, nil},
		{-3.0, nil, nil},
		{150.0, nil, nil},
		{"NaN", nil, nil},
		{true, nil, nil},
		{nil, nil, nil},
	}
	for _, c := range cases {
		got := answer.Fields{"confidence": c.v}.Confidence(c.verbal, "confidence")
		if (got == nil) != (c.want == nil) || got != nil && math.Abs(*got-*c.want) > 1e-12 {
			t.Errorf("Confidence(%#v) = %v, want %v", c.v, deref(got), deref(c.want))
		}
	}
	if got := (answer.Fields{"probability": 0.4}).Confidence(nil, "confidence", "probability"); got == nil || *got != 0.4 {
		t.Errorf("Confidence falls back to the second key: %v", deref(got))
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestBool(t *testing.T) {
	cases := []struct {
		v      any
		b, ok  bool
		reason string
	}{
		{true, true, true, "JSON true"},
		{false, false, true, "JSON false"},
		{"Yes, at line 4", true, true, "first word yes"},
		{"**no**", false, true, "markup around the word"},
		{"Y", true, true, "a letter"},
		{"maybe", false, false, "no yes/no word"},
		{"yesterday", false, false, "a longer word"},
		{1.0, false, false, "a number is no boolean"},
		{nil, false, false, "absent"},
	}
	for _, c := range cases {
		b, ok := answer.Bool(c.v, answer.FirstYesNo)
		if b != c.b || ok != c.ok {
			t.Errorf("%s: Bool(%#v) = %v, %v; want %v, %v", c.reason, c.v, b, ok, c.b, c.ok)
		}
	}
}

func TestClip(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"a longer answer", 8, "a longer…"},
		{"ééé", 3, "é…"}, // never split a rune
		{"ééé", 0, "…"},
	}
	for _, c := range cases {
		if got := answer.Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestNormaliseDeterministic: keys that normalise alike resolve the same
// way on every run (map iteration order must not leak into a verdict).
func TestNormaliseDeterministic(t *testing.T) {
	for range 50 {
		f, _ := answer.Reader{Decisive: []string{"canthrowt"}}.Read(`{"canThrowT": true, "can_throw_T": false, "CAN THROW T": "maybe"}`)
		if got, _ := f.Get("canthrowt"); got != "maybe" { // "CAN THROW T" sorts first
			t.Fatalf("canthrowt = %v, want the first key in byte order", got)
		}
	}
}

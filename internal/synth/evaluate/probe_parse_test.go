package evaluate

import (
	"errors"
	"slices"
	"testing"
)

func fp(v float64) *float64 { return &v }

// The answer texts below are the shapes models actually send: strict JSON,
// JSON in a fence or in prose, "key: value" lines, bare verdict words, and
// the failures (empty, truncated JSON, hedging prose, code-like n-gram
// output).
func TestParseIsolated(t *testing.T) {
	ok := []struct {
		text string
		def  bool
		conf *float64
		read string
	}{
		{`{"defective": true, "confidence": 0.9}`, true, fp(0.9), ReadJSON},
		{`{"defective": false, "confidence": 0.35}`, false, fp(0.35), ReadJSON},
		{`{"Defective": "yes", "confidence": "80%"}`, true, fp(0.8), ReadJSON},
		{`{"is_defective": false, "confidence": 95}`, false, fp(0.95), ReadJSON},
		{`{"defective": "No, the null case is handled"}`, false, nil, ReadJSON},
		{"```json\n{\"defective\": true}\n```", true, nil, ReadFenced},
		{"Looking at the loop bound, i can reach length.\n\n{\"defective\": true, \"confidence\": 0.7}\nHope this helps.", true, fp(0.7), ReadEmbedded},
		{"**Defective:** no\nConfidence: 0.6", false, fp(0.6), ReadLines},
		{"- defective = true", true, nil, ReadLines},
		{"Yes.", true, nil, ReadWord},
		{"yes", true, nil, ReadWord},
		{"No", false, nil, ReadWord},
		{"No — the index is checked first.", false, nil, ReadWord},
		{"**Not defective**", false, nil, ReadWord},
		{"Non-defective.", false, nil, ReadWord},
		{"TRUE", true, nil, ReadWord},
		{"Clean", false, nil, ReadWord},
	}
	for _, c := range ok {
		got, err := ParseIsolated(c.text)
		if err != nil {
			t.Errorf("ParseIsolated(%q): %v", c.text, err)
			continue
		}
		if got.Defective != c.def || got.Read != c.read || !sameConf(got.Confidence, c.conf) {
			t.Errorf("ParseIsolated(%q) = %+v (conf %v), want defective=%v read=%s conf=%v", c.text, got, deref(got.Confidence), c.def, c.read, deref(c.conf))
		}
	}
	bad := []string{
		"", "   \n\t",
		"No JSON, sorry",
		"Nothing to say",
		"I think it might throw under some inputs.",
		`{"defective": "maybe"}`,
		`{"confidence": 0.5}`,
		`{"defective": tru`,
		`{"defective": 1}`,
		"public int size() { return size; } public void add(int x) { for (int i = 0;",
		"Yesterday I saw this bug.",
		"Notably the method is fine.",
		"Defective: the call dereferences s.", // a "defective" field whose value is no verdict
	}
	for _, text := range bad {
		if got, err := ParseIsolated(text); !errors.Is(err, ErrUnparseable) {
			t.Errorf("ParseIsolated(%q) = %+v, %v; want ErrUnparseable", text, got, err)
		}
	}
}

func TestParsePair(t *testing.T) {
	ok := []struct {
		text, choice string
		conf         *float64
		read         string
	}{
		{`{"defective": "A", "confidence": 0.92}`, ChoiceA, fp(0.92), ReadJSON},
		{`{"defective": "B"}`, ChoiceB, nil, ReadJSON},
		{`{"defective": "Method B", "confidence": "high"}`, ChoiceB, nil, ReadJSON},
		{`{"defective_method": "method_a"}`, ChoiceA, nil, ReadJSON},
		{`{"answer": "second"}`, ChoiceB, nil, ReadJSON},
		{`{"defective": 1}`, ChoiceA, nil, ReadJSON},
		{"```json\n{\"defective\": \"B\", \"confidence\": 0.5}\n```", ChoiceB, fp(0.5), ReadFenced},
		{"Method A dereferences s before the check.\n{\"defective\": \"A\"}", ChoiceA, nil, ReadEmbedded},
		{"Defective: B\nConfidence: 70%", ChoiceB, fp(0.7), ReadLines},
		{"Answer: **A**", ChoiceA, nil, ReadLines},
		{"B", ChoiceB, nil, ReadWord},
		{"**A**.", ChoiceA, nil, ReadWord},
		{"(B)", ChoiceB, nil, ReadWord},
		{"A\n\nThe first version reads past the end.", ChoiceA, nil, ReadWord},
		{"Method B is the defective version: it never checks null.", ChoiceB, nil, ReadWord},
		{"The answer is A.", ChoiceA, nil, ReadWord},
	}
	for _, c := range ok {
		got, err := ParsePair(c.text)
		if err != nil {
			t.Errorf("ParsePair(%q): %v", c.text, err)
			continue
		}
		if got.Choice != c.choice || got.Read != c.read || !sameConf(got.Confidence, c.conf) {
			t.Errorf("ParsePair(%q) = %+v (conf %v), want %s read=%s conf=%v", c.text, got, deref(got.Confidence), c.choice, c.read, deref(c.conf))
		}
	}
	bad := []string{
		"", "\n",
		"A null check is missing in method B.",
		"Method A is correct; method B is defective.",
		"a",
		"Both versions can throw.",
		"C",
		`{"defective": true}`,
		`{"defective": "neither"}`,
		`{"defective": "A"`,
		"Answer: Method A is correct",
		"int size() { return size; } } public class B {",
	}
	for _, text := range bad {
		if got, err := ParsePair(text); !errors.Is(err, ErrUnparseable) {
			t.Errorf("ParsePair(%q) = %+v, %v; want ErrUnparseable", text, got, err)
		}
	}
}

func sameConf(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	d := *a - *b
	return d < 1e-12 && d > -1e-12
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// FuzzParseProbe: any text is either read — with a known reading, a valid
// choice and a confidence in [0, 1], the same way twice — or refused with
// ErrUnparseable; nothing panics.
func FuzzParseProbe(f *testing.F) {
	for _, s := range []string{`{"defective": true, "confidence": 0.9}`, `{"defective": "B"}`, "Yes.", "**A**.", "Defective: B",
		"```json\n{\"defective\": false}\n```", "No JSON, sorry", "", "{", "{\"defective\": \"A\"} {\"defective\": \"B\"}", "Answer: (A)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fuzzIsolated(t, text)
		fuzzPair(t, text)
	})
}

var probeReads = []string{ReadJSON, ReadFenced, ReadEmbedded, ReadLines, ReadWord}

// confInRange says whether a confidence is absent or in [0, 1].
func confInRange(c *float64) bool { return c == nil || (*c >= 0 && *c <= 1) }

// fuzzIsolated checks that ParseIsolated reads text with a known reading
// and an in-range confidence, the same way twice, or refuses it with
// ErrUnparseable.
func fuzzIsolated(t *testing.T, text string) {
	iso, err := ParseIsolated(text)
	if err != nil {
		if !errors.Is(err, ErrUnparseable) {
			t.Fatalf("ParseIsolated(%q): error %v does not wrap ErrUnparseable", text, err)
		}
		return
	}
	again, _ := ParseIsolated(text)
	if !slices.Contains(probeReads, iso.Read) || !confInRange(iso.Confidence) || again.Defective != iso.Defective || again.Read != iso.Read {
		t.Fatalf("ParseIsolated(%q) = %+v", text, iso)
	}
}

// fuzzPair checks that ParsePair reads text as choice A or B with a known
// reading and an in-range confidence, the same way twice, or refuses it
// with ErrUnparseable.
func fuzzPair(t *testing.T, text string) {
	pair, err := ParsePair(text)
	if err != nil {
		if !errors.Is(err, ErrUnparseable) {
			t.Fatalf("ParsePair(%q): error %v does not wrap ErrUnparseable", text, err)
		}
		return
	}
	again, _ := ParsePair(text)
	if (pair.Choice != ChoiceA && pair.Choice != ChoiceB) || !slices.Contains(probeReads, pair.Read) ||
		!confInRange(pair.Confidence) || again.Choice != pair.Choice || again.Read != pair.Read {
		t.Fatalf("ParsePair(%q) = %+v", text, pair)
	}
}

package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/synth/gate"
)

// ErrUnparseable marks a judge answer from which the decisive field could
// not be read. Such an answer is recorded as "unparseable" with its raw
// text; it is never guessed (§5.1, Table 6 note a).
var ErrUnparseable = errors.New("unparseable judge answer")

// How an answer was read, from strictest to most tolerant.
const (
	ParsedJSON     = "json"     // the whole answer is one JSON object
	ParsedFenced   = "fenced"   // a JSON object in a fenced code block
	ParsedEmbedded = "embedded" // a JSON object inside prose (e.g. trailing text)
	ParsedLines    = "lines"    // "key: value" lines
	ParsedYesNo    = "yesno"    // a bare yes/no answer to a one-question stage
)

// maxAnswer bounds the text the parser looks at; judge answers are a few
// hundred bytes, so anything longer is cut (the raw text is still recorded).
const maxAnswer = 64 << 10

// Stage1 is the parsed Stage 1 answer (§5.1): the patch summary, whether
// the buggy method can throw T at the patched location, and if so where
// and on which concrete trigger.
type Stage1 struct {
	PatchSummary       string   `json:"patch_summary,omitempty"`
	CanThrowT          bool     `json:"can_throw_T"`
	ThrowingExpression string   `json:"throwing_expression,omitempty"`
	Line               int      `json:"line,omitempty"`
	Trigger            string   `json:"trigger,omitempty"`
	Confidence         *float64 `json:"confidence,omitempty"`
	Parsed             string   `json:"parsed"`
}

// Stage2 is the parsed Stage 2 answer: whether the Stage 1 trigger still
// reaches T at the Stage 1 site in the fixed method.
type Stage2 struct {
	StillReachesT bool     `json:"still_reaches_T"`
	Reason        string   `json:"reason,omitempty"`
	Confidence    *float64 `json:"confidence,omitempty"`
	Parsed        string   `json:"parsed"`
}

// Whole is the parsed answer under the whole-method rubric (§5.2): can the
// buggy method throw T anywhere, and can the fixed method.
type Whole struct {
	BuggyCanThrowT bool     `json:"buggy_can_throw_T"`
	FixedCanThrowT bool     `json:"fixed_can_throw_T"`
	Reason         string   `json:"reason,omitempty"`
	Confidence     *float64 `json:"confidence,omitempty"`
	Parsed         string   `json:"parsed"`
}

// ParseStage1 reads a Stage 1 answer. The decisive field is can_throw_T; a
// bare yes/no answer is accepted for it. Errors wrap ErrUnparseable.
func ParseStage1(text string) (Stage1, error) {
	f, how, err := readFields(text, []string{"canthrowt", "canthrow"}, true)
	if err != nil {
		return Stage1{}, err
	}
	s := Stage1{Parsed: how}
	s.CanThrowT, err = f.boolean("canthrowt", "canthrow")
	if err != nil {
		return Stage1{}, err
	}
	s.PatchSummary = f.str("patchsummary", "summary")
	s.ThrowingExpression = f.str("throwingexpression", "expression", "site")
	s.Trigger = f.str("trigger")
	s.Line = f.integer("line", "linenumber")
	s.Confidence = f.confidence()
	return s, nil
}

// ParseStage2 reads a Stage 2 answer. The decisive field is
// still_reaches_T; a bare yes/no answer is accepted for it.
func ParseStage2(text string) (Stage2, error) {
	f, how, err := readFields(text, []string{"stillreachest", "stillreaches"}, true)
	if err != nil {
		return Stage2{}, err
	}
	s := Stage2{Parsed: how}
	if s.StillReachesT, err = f.boolean("stillreachest", "stillreaches"); err != nil {
		return Stage2{}, err
	}
	s.Reason = f.str("reason", "explanation")
	s.Confidence = f.confidence()
	return s, nil
}

// ParseWhole reads a whole-method answer. It asks two questions, so a bare
// yes/no cannot answer it: both booleans must be present.
func ParseWhole(text string) (Whole, error) {
	f, how, err := readFields(text, []string{"buggycanthrowt", "fixedcanthrowt"}, false)
	if err != nil {
		return Whole{}, err
	}
	w := Whole{Parsed: how}
	if w.BuggyCanThrowT, err = f.boolean("buggycanthrowt", "buggycanthrow"); err != nil {
		return Whole{}, err
	}
	if w.FixedCanThrowT, err = f.boolean("fixedcanthrowt", "fixedcanthrow"); err != nil {
		return Whole{}, err
	}
	w.Reason = f.str("reason", "explanation")
	w.Confidence = f.confidence()
	return w, nil
}

// fields holds an answer's values by normalised key (lower-case letters and
// digits only, so "can_throw_T", "Can throw T" and "canThrowT" coincide).
type fields map[string]any

// display names the decisive keys in errors as the prompts spell them.
var display = map[string]string{"canthrowt": "can_throw_T", "stillreachest": "still_reaches_T",
	"buggycanthrowt": "buggy_can_throw_T", "fixedcanthrowt": "fixed_can_throw_T"}

func shown(k string) string {
	if d, ok := display[k]; ok {
		return d
	}
	return k
}

func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (f fields) get(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

func (f fields) has(keys []string) bool {
	_, ok := f.get(keys...)
	return ok
}

// boolean reads a decisive yes/no field: a JSON boolean, or a string whose
// first word is true/false/yes/no/y/n. Anything else is unparseable.
func (f fields) boolean(keys ...string) (bool, error) {
	v, ok := f.get(keys...)
	if !ok {
		return false, fmt.Errorf("%w: no %q field", ErrUnparseable, shown(keys[0]))
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, ok := yesNo(x); ok {
			return b, nil
		}
		return false, fmt.Errorf("%w: field %q is %q, not a yes/no value", ErrUnparseable, shown(keys[0]), clip(x, 40))
	}
	return false, fmt.Errorf("%w: field %q is %v, not a boolean", ErrUnparseable, shown(keys[0]), v)
}

func (f fields) str(keys ...string) string {
	v, ok := f.get(keys...)
	if !ok {
		return ""
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v) // an object or array trigger: keep it as JSON
	if err != nil {
		return ""
	}
	return string(b)
}

var firstInt = regexp.MustCompile(`-?\d{1,9}`)

func (f fields) integer(keys ...string) int {
	v, ok := f.get(keys...)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case float64:
		if x >= 0 && x < 1e9 {
			return int(x)
		}
	case string:
		if m := firstInt.FindString(x); m != "" {
			n, _ := strconv.Atoi(m)
			return max(n, 0)
		}
	}
	return 0
}

// confidence reads a confidence in [0, 1]; a percentage (1 < c ≤ 100, or a
// string ending in %) is scaled. A missing or out-of-range value is nil,
// not guessed.
func (f fields) confidence() *float64 {
	v, ok := f.get("confidence", "conf")
	if !ok {
		return nil
	}
	var c float64
	switch x := v.(type) {
	case float64:
		c = x
	case string:
		s := strings.TrimSpace(x)
		pct := strings.HasSuffix(s, "%")
		n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil {
			switch strings.ToLower(s) { // verbal confidences, as some models give
			case "high":
				n = 0.9
			case "medium", "moderate":
				n = 0.6
			case "low":
				n = 0.3
			default:
				return nil
			}
		}
		if pct {
			n /= 100
		}
		c = n
	default:
		return nil
	}
	if c > 1 && c <= 100 {
		c /= 100
	}
	if math.IsNaN(c) || c < 0 || c > 1 {
		return nil
	}
	return &c
}

// yesNo reads the first word of s as a boolean.
func yesNo(s string) (bool, bool) {
	w := strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		w = w[:end]
	}
	switch strings.ToLower(w) {
	case "true", "yes", "y":
		return true, true
	case "false", "no", "n":
		return false, true
	}
	return false, false
}

// readFields finds the answer's fields, trying in order: the whole text as
// JSON, fenced JSON blocks, JSON objects embedded in prose, "key: value"
// lines and — when allowYesNo — a bare yes/no first word. A candidate
// source is used only if it holds one of the decisive keys.
func readFields(text string, decisive []string, allowYesNo bool) (fields, string, error) {
	if len(text) > maxAnswer {
		text = text[:maxAnswer]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, "", fmt.Errorf("%w: empty answer", ErrUnparseable)
	}
	if f, ok := jsonObject(text); ok && f.has(decisive) {
		return f, ParsedJSON, nil
	}
	if blocks, _ := gate.FencedBlocks(text); len(blocks) > 0 {
		for _, b := range blocks {
			if f, ok := jsonObject(strings.TrimSpace(b.Code)); ok && f.has(decisive) {
				return f, ParsedFenced, nil
			}
			if f, ok := embedded(b.Code, decisive); ok {
				return f, ParsedFenced, nil
			}
		}
	}
	if f, ok := embedded(text, decisive); ok {
		return f, ParsedEmbedded, nil
	}
	if f := keyValueLines(text); f.has(decisive) {
		return f, ParsedLines, nil
	}
	if allowYesNo {
		if b, ok := bareYesNo(text); ok {
			return fields{decisive[0]: b}, ParsedYesNo, nil
		}
	}
	return nil, "", fmt.Errorf("%w: no JSON object or key: value lines with %q in %q", ErrUnparseable, shown(decisive[0]), clip(text, 80))
}

// jsonObject decodes s as exactly one JSON object.
func jsonObject(s string) (fields, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, false
	}
	return normalise(m), true
}

// embedded decodes the first JSON object starting at a '{' of s that holds
// a decisive key, ignoring what follows it (trailing prose). At most 32
// starting points are tried, so a long answer costs linear time.
func embedded(s string, decisive []string) (fields, bool) {
	for tries, off := 0, 0; tries < 32; tries++ {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 {
			return nil, false
		}
		off += i
		dec := json.NewDecoder(strings.NewReader(s[off:]))
		var m map[string]any
		if err := dec.Decode(&m); err == nil {
			if f := normalise(m); f.has(decisive) {
				return f, true
			}
		}
		off++
	}
	return nil, false
}

func normalise(m map[string]any) fields {
	f := make(fields, len(m))
	for k, v := range m {
		nk := normKey(k)
		if _, dup := f[nk]; !dup {
			f[nk] = v
		}
	}
	return f
}

// keyLine is "key: value" or "key = value", the key optionally quoted,
// bulleted or in Markdown bold.
var keyLine = regexp.MustCompile(`^[\s>*\-•]*[*_"'` + "`" + `]*([A-Za-z][A-Za-z0-9_ \-]{0,40}?)[*_"'` + "`" + `]*\s*[:=]\s*(.*)$`)

func keyValueLines(text string) fields {
	f := fields{}
	for line := range strings.SplitSeq(text, "\n") {
		m := keyLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		k := normKey(m[1])
		if k == "" {
			continue
		}
		if _, dup := f[k]; dup {
			continue
		}
		v := strings.TrimSpace(m[2])
		v = strings.TrimRight(strings.TrimLeft(v, "*_`"), "*_`,")
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		f[k] = v
	}
	return f
}

// bareYesNo reads an answer that opens with a lone "Yes" or "No" (after
// Markdown emphasis or heading markers), followed by the end of the text,
// punctuation or a line break — so "No JSON, sorry" or "Nothing to say"
// are not read as "no".
func bareYesNo(s string) (bool, bool) {
	s = strings.TrimLeft(s, " \t\r\n*_#>`\"'")
	var b bool
	switch {
	case len(s) >= 3 && strings.EqualFold(s[:3], "yes"):
		b, s = true, s[3:]
	case len(s) >= 2 && strings.EqualFold(s[:2], "no"):
		b, s = false, s[2:]
	default:
		return false, false
	}
	s = strings.TrimLeft(strings.TrimLeft(s, "*_`\"'"), " \t")
	if s == "" {
		return b, true
	}
	switch r, _ := utf8.DecodeRuneInString(s); r {
	case '.', ',', ';', ':', '!', '-', '—', '–', ')', '\n', '\r':
		return b, true
	}
	return false, false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

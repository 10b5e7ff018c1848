package evaluate

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
)

// ErrUnparseable marks a probe answer whose verdict could not be read. The
// answer is recorded with its raw text and counted separately; it is never
// guessed, so a model that does not follow the format cannot gain or lose
// accuracy by chance.
var ErrUnparseable = errors.New("unparseable probe answer")

// How an answer was read, from strictest to most tolerant.
const (
	ReadJSON     = "json"     // the whole answer is one JSON object
	ReadFenced   = "fenced"   // a JSON object in a fenced code block
	ReadEmbedded = "embedded" // a JSON object inside prose
	ReadLines    = "lines"    // a "defective: ..." line
	ReadWord     = "word"     // a bare verdict word opening the answer ("Yes.", "B")
)

// Choices of the pair probe: the method shown first is A.
const (
	ChoiceA = "A"
	ChoiceB = "B"
)

// maxProbeAnswer bounds the text the parser looks at; probe answers are a
// few dozen bytes, and a model that rambles past this is cut (the raw text
// is still recorded).
const maxProbeAnswer = 64 << 10

// IsolatedAnswer is a parsed isolated-method answer.
type IsolatedAnswer struct {
	Defective  bool
	Confidence *float64
	Read       string
}

// PairAnswer is a parsed pair answer: Choice is ChoiceA (the method shown
// first) or ChoiceB.
type PairAnswer struct {
	Choice     string
	Confidence *float64
	Read       string
}

// decisiveKeys are the normalised JSON / line keys that carry the verdict;
// the prompts ask for "defective", the others are what models write
// instead.
var decisiveKeys = []string{"defective", "isdefective", "answer", "verdict", "defectivemethod", "buggy", "canthrow"}

// ParseIsolated reads an isolated-method answer: {"defective": true|false}
// (booleans or yes/no strings), else a "defective: yes" line, else an
// opening verdict word (yes, no, true, false, defective, not defective,
// clean). Errors wrap ErrUnparseable.
func ParseIsolated(text string) (IsolatedAnswer, error) {
	text, err := cleanAnswer(text)
	if err != nil {
		return IsolatedAnswer{}, err
	}
	f, how := findFields(text)
	if how != "" {
		b, err := f.verdictBool()
		if err != nil {
			return IsolatedAnswer{}, err
		}
		return IsolatedAnswer{Defective: b, Confidence: f.confidence(), Read: how}, nil
	}
	if b, ok := isolatedWord(text); ok {
		return IsolatedAnswer{Defective: b, Read: ReadWord}, nil
	}
	return IsolatedAnswer{}, fmt.Errorf("%w: no JSON object, \"defective:\" line or opening yes/no in %q", ErrUnparseable, clipText(text, 80))
}

// ParsePair reads a pair answer: {"defective": "A"|"B"} (also "first",
// "second", "1", "2", "method A"), else a "defective: A" line, else an
// answer opening with a lone A or B ("B", "**A**.", "Method B is the
// defective one"). Prose that merely mentions a method ("A null check is
// missing in B", "Method A is correct") is unparseable, not guessed.
func ParsePair(text string) (PairAnswer, error) {
	text, err := cleanAnswer(text)
	if err != nil {
		return PairAnswer{}, err
	}
	f, how := findFields(text)
	if how != "" {
		v, _ := f.get(decisiveKeys...)
		s, ok := v.(string)
		if n, isNum := v.(float64); isNum {
			s, ok = strconv.FormatFloat(n, 'g', -1, 64), true
		}
		c := ""
		if ok {
			c = choiceValue(s)
		}
		if c == "" {
			return PairAnswer{}, fmt.Errorf("%w: the verdict %v names neither method A nor method B", ErrUnparseable, clipAny(v))
		}
		return PairAnswer{Choice: c, Confidence: f.confidence(), Read: how}, nil
	}
	if m := pairWord.FindStringSubmatch(text); m != nil {
		return PairAnswer{Choice: strings.ToUpper(m[1]), Read: ReadWord}, nil
	}
	return PairAnswer{}, fmt.Errorf("%w: no JSON object, \"defective:\" line or opening A / B in %q", ErrUnparseable, clipText(text, 80))
}

func cleanAnswer(text string) (string, error) {
	if len(text) > maxProbeAnswer {
		text = text[:maxProbeAnswer]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w: empty answer", ErrUnparseable)
	}
	return text, nil
}

// answerFields are an answer's values by normalised key (lower-case
// letters and digits only, so "is_defective" and "isDefective" coincide).
type answerFields map[string]any

func (f answerFields) get(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

func (f answerFields) decisive() bool {
	_, ok := f.get(decisiveKeys...)
	return ok
}

// verdictBool reads the isolated verdict: a JSON boolean, or a string
// opening with a verdict word.
func (f answerFields) verdictBool() (bool, error) {
	v, _ := f.get(decisiveKeys...)
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, ok := isolatedWord(x); ok {
			return b, nil
		}
	}
	return false, fmt.Errorf("%w: the verdict %v is not a yes/no value", ErrUnparseable, clipAny(v))
}

// confidence reads a confidence in [0, 1]; a percentage (1 < c ≤ 100, or
// a string ending in %) is scaled. Missing or out of range is nil.
func (f answerFields) confidence() *float64 {
	v, ok := f.get("confidence", "conf", "probability")
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
			return nil
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

var fenced = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\n?(.*?)```")

// findFields looks for the verdict, in order: the whole answer as JSON, a
// JSON object in a fenced block, a JSON object embedded in prose, and
// "key: value" lines. A source counts only when it holds a decisive key;
// how is "" when none does.
func findFields(text string) (answerFields, string) {
	if f, ok := jsonFields(text); ok && f.decisive() {
		return f, ReadJSON
	}
	for _, m := range fenced.FindAllStringSubmatch(text, 8) {
		if f, ok := jsonFields(strings.TrimSpace(m[1])); ok && f.decisive() {
			return f, ReadFenced
		}
	}
	if f, ok := embeddedFields(text); ok {
		return f, ReadEmbedded
	}
	if f := lineFields(text); f.decisive() {
		return f, ReadLines
	}
	return nil, ""
}

func jsonFields(s string) (answerFields, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, false
	}
	return normaliseFields(m), true
}

// embeddedFields decodes the first JSON object starting at a '{' that holds
// a decisive key, ignoring the prose around it. At most 32 starting points
// are tried, so a long answer costs linear time.
func embeddedFields(s string) (answerFields, bool) {
	for tries, off := 0, 0; tries < 32 && off < len(s); tries++ {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 {
			return nil, false
		}
		off += i
		var m map[string]any
		if json.NewDecoder(strings.NewReader(s[off:])).Decode(&m) == nil {
			if f := normaliseFields(m); f.decisive() {
				return f, true
			}
		}
		off++
	}
	return nil, false
}

func normaliseFields(m map[string]any) answerFields {
	f := make(answerFields, len(m))
	for k, v := range m {
		nk := normaliseKey(k)
		if _, dup := f[nk]; !dup {
			f[nk] = v
		}
	}
	return f
}

func normaliseKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// answerLine is "key: value" or "key = value", the key optionally bulleted,
// quoted or in Markdown bold.
var answerLine = regexp.MustCompile(`^[\s>*\-•]*[*_"'` + "`" + `]*([A-Za-z][A-Za-z0-9_ \-]{0,40}?)[*_"'` + "`" + `]*\s*[:=]\s*(.*)$`)

func lineFields(text string) answerFields {
	f := answerFields{}
	for line := range strings.SplitSeq(text, "\n") {
		m := answerLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		k := normaliseKey(m[1])
		if _, dup := f[k]; dup || k == "" {
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

// isolatedWordRE is an answer opening with a verdict word that is followed
// by the end, a line break or punctuation — so "No JSON, sorry" or
// "Nothing to say" are not read as "no".
var isolatedWordRE = regexp.MustCompile("(?i)^[\\s*_#>`\"'(]*(yes|no|true|false|not defective|non-defective|defective|clean|buggy)[*_`\"')]*[ \\t]*($|\\n|\\r|[.,;:!—–-])")

func isolatedWord(s string) (bool, bool) {
	m := isolatedWordRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return false, false
	}
	switch strings.ToLower(m[1]) {
	case "yes", "true", "defective", "buggy":
		return true, true
	}
	return false, true
}

// pairWord is an answer opening with a lone capital A or B (optionally
// "Answer:", "Method", "Option" or "Version" before it, markup around it),
// followed by the end, a line break, punctuation or "is (the) defective".
// A lower-case "a" is an article, so it never counts.
var pairWord = regexp.MustCompile("^[\\s*_#>`\"'(\\[]*(?:(?i:(?:the\\s+)?(?:final\\s+)?answer)\\s*(?i:is)?\\s*[:=]?\\s*[*_`\"'(\\[]*)?(?:(?i:method|option|version)\\s+)?([AB])[*_`\"')\\]]*(?:[ \\t]*($|\\n|\\r|[.,;:!—–-])|\\s+(?i:is)\\s+(?i:the\\s+)?(?i:defective|buggy))")

// choiceValue maps a JSON / line verdict value to ChoiceA or ChoiceB, or ""
// when it names neither.
func choiceValue(s string) string {
	v := strings.ToLower(strings.Trim(strings.TrimSpace(s), "*_`\"'()[]. "))
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(v, "method"), "option"), "version"))
	v = strings.Trim(v, " _-")
	switch v {
	case "a", "1", "first", "methoda":
		return ChoiceA
	case "b", "2", "second", "methodb":
		return ChoiceB
	}
	return ""
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func clipAny(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(clipText(s, 40))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clipText(string(b), 40)
}

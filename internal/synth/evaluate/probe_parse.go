package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

// ErrUnparseable marks a probe answer whose verdict could not be read. The
// answer is recorded with its raw text and counted separately; it is never
// guessed, so a model that does not follow the format cannot gain or lose
// accuracy by chance.
var ErrUnparseable = errors.New("unparseable probe answer")

// How an answer was read, from strictest to most tolerant.
const (
	ReadJSON     = answer.JSON     // the whole answer is one JSON object
	ReadFenced   = answer.Fenced   // a JSON object in a fenced code block
	ReadEmbedded = answer.Embedded // a JSON object inside prose
	ReadLines    = answer.Lines    // a "defective: ..." line
	ReadWord     = "word"          // a bare verdict word opening the answer ("Yes.", "B")
)

// Choices of the pair probe: the method shown first is A.
const (
	ChoiceA = "A"
	ChoiceB = "B"
)

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

// probeReader reads the verdict fields of a probe answer. The opening
// verdict word is not its stage: the probes' words (defective, clean, A,
// B) are their own, tried by the parsers after it.
var probeReader = answer.Reader{Decisive: decisiveKeys, Fences: fencedBodies}

// ParseIsolated reads an isolated-method answer: {"defective": true|false}
// (booleans or yes/no strings), else a "defective: yes" line, else an
// opening verdict word (yes, no, true, false, defective, not defective,
// clean). Errors wrap ErrUnparseable.
func ParseIsolated(text string) (IsolatedAnswer, error) {
	text, err := cleanAnswer(text)
	if err != nil {
		return IsolatedAnswer{}, err
	}
	f, how := probeReader.Read(text)
	if how != "" {
		v, _ := f.Get(decisiveKeys...)
		b, ok := answer.Bool(v, isolatedWord)
		if !ok {
			return IsolatedAnswer{}, fmt.Errorf("%w: the verdict %v is not a yes/no value", ErrUnparseable, clipAny(v))
		}
		return IsolatedAnswer{Defective: b, Confidence: confidence(f), Read: how}, nil
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
	f, how := probeReader.Read(text)
	if how != "" {
		v, _ := f.Get(decisiveKeys...)
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
		return PairAnswer{Choice: c, Confidence: confidence(f), Read: how}, nil
	}
	if m := pairWord.FindStringSubmatch(text); m != nil {
		return PairAnswer{Choice: strings.ToUpper(m[1]), Read: ReadWord}, nil
	}
	return PairAnswer{}, fmt.Errorf("%w: no JSON object, \"defective:\" line or opening A / B in %q", ErrUnparseable, clipText(text, 80))
}

func cleanAnswer(text string) (string, error) {
	text, err := answer.Clean(text)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUnparseable, err)
	}
	return text, nil
}

// confidence reads the answer's confidence as a number or percentage.
// Verbal ones ("high") stay nil, unlike in the judge: the probes have
// only ever recorded stated numbers (TestParsePair pins it).
func confidence(f answer.Fields) *float64 {
	return f.Confidence(nil, "confidence", "conf", "probability")
}

// fenced also matches a block on one line ("```{...}```"), which the
// Markdown line reading of the judge's fences does not; at most 8 blocks
// are tried.
var fenced = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\n?(.*?)```")

func fencedBodies(text string) []string {
	var bodies []string
	for _, m := range fenced.FindAllStringSubmatch(text, 8) {
		bodies = append(bodies, m[1])
	}
	return bodies
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

// clipText is answer.Clip under the name the probe's messages (and tests)
// use.
func clipText(s string, n int) string { return answer.Clip(s, n) }

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

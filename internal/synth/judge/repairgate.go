package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/llm/answer"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
)

// gateRepair extracts the regenerated fixed method from a repair answer and
// checks it (§5.3: the buggy method is unchanged, so the fix must still
// pair with it): the first ```java (or unlabelled) block — or the whole
// answer when it has no fence — reduced to one method by gate.Method, must
// parse without syntax errors as exactly one method or constructor with the
// buggy method's signature, and must differ from the buggy method in its
// tokens. It returns the method, or the reason it failed.
func gateRepair(buggy, reply string) (string, string) {
	src, reason := repairSource(reply)
	if reason != "" {
		return "", reason
	}
	if strings.TrimSpace(src) == "" {
		return "", "answer holds no method"
	}
	m, rej := gate.Method(src)
	if rej != nil {
		return "", rej.Error()
	}
	fixed, err := oneMethod(m)
	if err != "" {
		return "", "regenerated method: " + err
	}
	orig, err := oneMethod(buggy)
	if err != "" {
		return "", "buggy method: " + err
	}
	if fixed.sig != orig.sig {
		return "", fmt.Sprintf("signature changed: buggy %q, regenerated %q", orig.sig, fixed.sig)
	}
	if slices.Equal(fixed.tokens, orig.tokens) {
		return "", "regenerated method is identical to the buggy method"
	}
	return strings.TrimSpace(m), ""
}

// repairSource returns the code of a repair answer: its first ```java
// (or unlabelled) block, or the whole answer when it has no fence; reason
// says why there is none.
func repairSource(reply string) (src, reason string) {
	blocks, _ := answer.FencedBlocks(reply)
	if len(blocks) == 0 {
		return strings.TrimSpace(reply), ""
	}
	for _, b := range blocks {
		if info := strings.ToLower(strings.Fields(b.Info + " x")[0]); b.Info == "" || info == "java" {
			if b.Code != "" {
				return b.Code, ""
			}
			break
		}
	}
	return "", "answer has no ```java block"
}

type methodInfo struct {
	sig    string
	tokens []string
}

// oneMethod parses src as a lone Java method.
func oneMethod(src string) (methodInfo, string) {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil {
		return methodInfo{}, err.Error()
	}
	defer f.Close()
	if se := f.SyntaxErrors(); len(se) > 0 {
		return methodInfo{}, fmt.Sprintf("%d syntax errors, first at %d:%d: %s", len(se), se[0].Line, se[0].Col, se[0].Msg)
	}
	var top []code.Function
	for _, fn := range f.Functions() {
		if fn.Class == "" {
			top = append(top, fn)
		}
	}
	if len(top) != 1 {
		return methodInfo{}, fmt.Sprintf("want exactly one method, found %d", len(top))
	}
	mi := methodInfo{sig: top[0].Signature, tokens: codeTokens(f)}
	return mi, ""
}

// FixIntroducesLabel reports the release flag fix_introduces_label (§8.1):
// the fixed method holds more explicit `throw new T(...)` statements of the
// pair's label T (simple or java.lang-qualified name) than the buggy method,
// i.e. the fix introduces an explicit throw of the label absent from the
// buggy method. Comments and string literals never count.
func FixIntroducesLabel(errorType, buggy, fixed string) bool {
	return countThrowNew(fixed, errorType) > countThrowNew(buggy, errorType)
}

func countThrowNew(src, typ string) int {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil {
		return 0
	}
	defer f.Close()
	toks := codeTokens(f)
	n := 0
	for i := 0; i+3 < len(toks); i++ {
		if throwsNew(toks[i:], typ) {
			n++
		}
	}
	return n
}

// javaLang is the qualifier `java.lang.` as tokens.
var javaLang = []string{"java", ".", "lang", "."}

// throwsNew reports whether toks (at least four) start with
// `throw new T(` or `throw new java.lang.T(`.
func throwsNew(toks []string, typ string) bool {
	if toks[0] != "throw" || toks[1] != "new" {
		return false
	}
	k := 2
	if k+4 < len(toks) && slices.Equal(toks[k:k+4], javaLang) {
		k += 4
	}
	return toks[k] == typ && k+1 < len(toks) && toks[k+1] == "("
}

// codeTokens returns f's tokens without its comments.
func codeTokens(f *code.File) []string {
	var toks []string
	for _, t := range f.Tokens() {
		if t.Kind != code.Comment {
			toks = append(toks, t.Text)
		}
	}
	return toks
}

// DefaultISEMaxConfidence is the §8.1 threshold for ise_low_confidence.
// The paper flags every released IllegalStateException pair (all 405): the
// flag marks the type's lower validation reliability (61.0% first-pass
// acceptance against 83.9% overall, a quarter of its pairs admitted through
// repair, the lowest cross-judge agreement; §5.2–5.3), not a per-pair
// score. A judge confidence lies in [0, 1], so the threshold 1 flags them
// all; a lower value flags only ISE pairs accepted with at most that
// confidence.
const DefaultISEMaxConfidence = 1.0

// ISELowConfidence reports the release flag ise_low_confidence for an
// accepted pair of type errorType accepted with confidence conf.
func ISELowConfidence(errorType string, conf, maxConf float64) bool {
	return errorType == corpus.IllegalState && conf <= maxConf
}

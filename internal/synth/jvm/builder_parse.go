package jvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

// ErrUnparseable marks a harness-model answer from which no input list
// could be read. It is recorded with the raw text, never guessed.
var ErrUnparseable = errors.New(ReasonUnparseable)

// ParseInputs reads a harness-model answer: {"inputs": [{"args": [...],
// "why": "..."}]}, tolerantly (a fenced block, JSON inside prose, an
// element given as a bare argument list, JSON null or numbers as
// arguments). An empty list is a parsed answer: the model declined. It
// returns the inputs and how the answer was read; errors wrap
// ErrUnparseable.
func ParseInputs(text string) ([]ModelInput, string, error) {
	text, err := answer.Clean(text)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUnparseable, err)
	}
	keys := []string{"inputs", "vectors", "testinputs", "testcases"}
	r := answer.Reader{Decisive: keys, Fences: answer.FencedBodies, FenceProse: true}
	f, how := r.Read(text)
	if how == "" {
		return nil, "", fmt.Errorf("%w: no JSON object with \"inputs\" in %q", ErrUnparseable, answer.Clip(text, 80))
	}
	v, _ := f.Get(keys...)
	list, err := inputList(v)
	if err != nil {
		return nil, "", err
	}
	ins, readable := readInputs(list)
	if len(list) > 0 && readable == 0 {
		return ins, how, fmt.Errorf("%w: none of the %d inputs has an argument list", ErrUnparseable, len(list))
	}
	return ins, how, nil
}

// inputList is the answer's "inputs" value as a list: a JSON list, or a
// string holding one.
func inputList(v any) ([]any, error) {
	if s, ok := v.(string); ok {
		// A "key: value" line: the value may still be a JSON list.
		var l []any
		if !strings.HasPrefix(strings.TrimSpace(s), "[") || json.Unmarshal([]byte(s), &l) != nil {
			return nil, fmt.Errorf("%w: \"inputs\" is %q, not a list", ErrUnparseable, answer.Clip(s, 60))
		}
		v = l
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: \"inputs\" is %T, not a list", ErrUnparseable, v)
	}
	return list, nil
}

// readInputs reads every element of the list, dropping the unreadable
// ones and those beyond MaxModelInputs; readable counts the others.
func readInputs(list []any) (ins []ModelInput, readable int) {
	ins = make([]ModelInput, 0, len(list))
	for i, el := range list {
		in, ok := readInput(el)
		switch {
		case !ok:
			b, _ := json.Marshal(el)
			in = ModelInput{Dropped: "unreadable: " + answer.Clip(string(b), 120)}
		case readable >= MaxModelInputs:
			in.Dropped = fmt.Sprintf("beyond the first %d inputs (input %d)", MaxModelInputs, i+1)
		default:
			readable++
		}
		ins = append(ins, in)
	}
	return ins, readable
}

// readInput reads one element: an object with an argument list, or the
// list itself.
func readInput(el any) (ModelInput, bool) {
	var in ModelInput
	var args any
	switch x := el.(type) {
	case []any:
		args = x
	case map[string]any:
		for k, v := range x {
			switch key := strings.ToLower(strings.TrimSpace(k)); {
			case argsKeys[key]:
				args = v
			case whyKeys[key]:
				in.Why, _ = v.(string)
			}
		}
	default:
		return in, false
	}
	l, ok := args.([]any)
	if !ok {
		return in, false
	}
	in.Args = make([]string, len(l))
	for i, a := range l {
		if in.Args[i], ok = javaArg(a); !ok {
			return ModelInput{}, false
		}
	}
	return in, true
}

// argsKeys and whyKeys are the names (lower case) an input's argument
// list and its reason go by.
var (
	argsKeys = map[string]bool{"args": true, "arguments": true, "argument_values": true, "values": true, "input": true}
	whyKeys  = map[string]bool{"why": true, "reason": true, "explanation": true, "rationale": true}
)

// javaArg renders a JSON argument as Java source: a string is the
// expression itself, JSON null is null, a number or boolean its literal.
func javaArg(a any) (string, bool) {
	switch x := a.(type) {
	case string:
		return strings.TrimSpace(x), true
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

// maxExprLen bounds one proposed argument's source.
const maxExprLen = 2000

// checkExpr returns why s cannot stand as one argument expression in
// "case k: return <s>;", or "". It is lexical: the expression must stay
// inside its case (balanced brackets, closed literals, no comment, no
// top-level ';'), so a javac error names its own vector only; and it may
// not assign or increment, since the builder chooses arguments, not the
// state of stubbed collaborators (rxsynth §5.4's independence rule).
func checkExpr(s string) string {
	switch {
	case s == "":
		return "empty expression"
	case len(s) > maxExprLen:
		return fmt.Sprintf("expression longer than %d bytes", maxExprLen)
	case strings.ContainsAny(s, "\n\r"):
		return "not a single-line expression"
	}
	return scanExpr(s)
}

// closers map each closing bracket to its opener.
var closers = map[byte]byte{')': '(', ']': '[', '}': '{'}

// scanExpr is checkExpr's lexical scan of a single-line expression.
func scanExpr(s string) string {
	var stack []byte
	for i := 0; i < len(s); i++ {
		var why string
		if i, why = scanExprByte(s, i, &stack); why != "" {
			return why
		}
	}
	if len(stack) > 0 {
		return "unbalanced brackets"
	}
	return ""
}

// scanExprByte checks the byte at i against the bracket stack and
// returns the index of the last byte it consumed (a literal's closing
// quote, the second '=' of "==") and why the expression is rejected, or "".
func scanExprByte(s string, i int, stack *[]byte) (int, string) {
	switch c := s[i]; c {
	case '"', '\'':
		j := literalEnd(s, i)
		if j >= len(s) {
			return i, "unterminated literal"
		}
		return j, ""
	case '(', '[', '{':
		*stack = append(*stack, c)
	case ')', ']', '}':
		if len(*stack) == 0 || (*stack)[len(*stack)-1] != closers[c] {
			return i, "unbalanced brackets"
		}
		*stack = (*stack)[:len(*stack)-1]
	case ';':
		if len(*stack) == 0 {
			return i, "more than one expression"
		}
	default:
		return scanOperator(s, i)
	}
	return i, ""
}

// literalEnd is the index of the quote closing the literal opened at i,
// or len(s).
func literalEnd(s string, i int) int {
	j := i + 1
	for ; j < len(s) && s[j] != s[i]; j++ {
		if s[j] == '\\' {
			j++
		}
	}
	return j
}

// scanOperator rejects a comment, an increment or decrement, and an
// assignment at i.
func scanOperator(s string, i int) (int, string) {
	next := byteAt(s, i+1)
	switch c := s[i]; c {
	case '/':
		if next == '/' || next == '*' {
			return i, "contains a comment"
		}
	case '+', '-':
		if next == c {
			return i, "increments or decrements a variable"
		}
	case '=':
		return scanEquals(s, i)
	}
	return i, ""
}

// scanEquals tells a comparison ("==", "!=", "<=", ">=") from an
// assignment ("=", "+=", "<<=", ">>=", …) at the '=' at i.
func scanEquals(s string, i int) (int, string) {
	prev := byteAt(s, i-1)
	if byteAt(s, i+1) == '=' {
		return i + 1, "" // "==": a comparison
	}
	if !strings.ContainsRune("=!<>", rune(prev)) || i > 1 && (s[i-2] == '<' || s[i-2] == '>') && prev == s[i-2] {
		return i, "assigns a variable"
	}
	return i, ""
}

// byteAt is s[i], or 0 outside s.
func byteAt(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

package jvm

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

func TestHarnessParseInputs(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		how        string
		args       [][]string // per input; nil for a dropped one
		dropped    []string   // substring per input ("" when kept)
		bad        string     // substring of the error, "" when parseable
	}{
		{name: "json", text: `{"inputs": [{"args": ["null", "0"], "why": "s is null"}]}`, how: answer.JSON,
			args: [][]string{{"null", "0"}}, dropped: []string{""}},
		{name: "declined", text: `{"inputs": []}`, how: answer.JSON},
		{name: "fenced bare list and JSON values", text: "Here:\n```json\n{\"inputs\": [[null, 3, 1.5, true, \"\\\"a\\\"\"]]}\n```\n",
			how: answer.Fenced, args: [][]string{{"null", "3", "1.5", "true", `"a"`}}, dropped: []string{""}},
		{name: "prose around", text: `I'd pass null. {"inputs": [{"arguments": ["null"]}]} That triggers it.`, how: answer.Embedded,
			args: [][]string{{"null"}}, dropped: []string{""}},
		{name: "unreadable element kept as dropped", text: `{"inputs": [{"args": ["null"]}, "len(null)", {"args": [{"x": 1}]}]}`, how: answer.JSON,
			args: [][]string{{"null"}, nil, nil}, dropped: []string{"", "unreadable", "unreadable"}},
		{name: "too many", text: `{"inputs": [["1"], ["2"], ["3"], ["4"], ["5"], ["6"]]}`, how: answer.JSON,
			args: [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}}, dropped: []string{"", "", "", "", "", "beyond the first 5"}},
		{name: "prose", text: "You should call it with a null string.", bad: `no JSON object with "inputs"`},
		{name: "empty", text: "  \n", bad: "empty answer"},
		{name: "not a list", text: `{"inputs": "null"}`, bad: "not a list"},
		{name: "no element readable", text: `{"inputs": ["len(null)"]}`, bad: "none of the 1 inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ins, how, err := ParseInputs(tc.text)
			if tc.bad != "" {
				if !errors.Is(err, ErrUnparseable) || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("err = %v, want ErrUnparseable with %q", err, tc.bad)
				}
				return
			}
			if err != nil || how != tc.how {
				t.Fatalf("how %q err %v, want %q", how, err, tc.how)
			}
			if len(ins) != len(tc.args) {
				t.Fatalf("%d inputs %+v, want %d", len(ins), ins, len(tc.args))
			}
			for i, in := range ins {
				checkInput(t, i, in, tc.args[i], tc.dropped[i])
			}
		})
	}
}

// checkInput checks a parsed input's arguments and, when dropped is not
// "", that it was dropped for a reason containing dropped (else kept).
func checkInput(t *testing.T, i int, in ModelInput, args []string, dropped string) {
	t.Helper()
	if strings.Join(in.Args, "|") != strings.Join(args, "|") || (dropped == "") != (in.Dropped == "") || !strings.Contains(in.Dropped, dropped) {
		t.Errorf("input %d = %+v, want args %q dropped %q", i, in, args, dropped)
	}
}

func TestHarnessCheckExpr(t *testing.T) {
	ok := []string{"null", `"a;b // c"`, "new int[]{1, 2}", "x -> x == null", "a >= b && c <= d && e != f",
		`'='`, `"\"=\""`, "java.util.Arrays.asList(1, -1)", "s -> { return s; }"}
	for _, s := range ok {
		if why := checkExpr(s); why != "" {
			t.Errorf("checkExpr(%q) = %q, want accepted", s, why)
		}
	}
	bad := map[string]string{
		"":                         "empty",
		"s = null":                 "assigns",
		"x += 1":                   "assigns",
		"x >>= 1":                  "assigns",
		"i++":                      "increments",
		"1 } static { int y = 0; ": "unbalanced",
		"1; System.exit(0)":        "more than one",
		"null // the trigger":      "comment",
		"null /* c */":             "comment",
		`"abc`:                     "unterminated",
		"foo(1":                    "unbalanced",
		"a\nb":                     "single-line",
		strings.Repeat("1+", 1100): "longer than",
	}
	for s, want := range bad {
		if why := checkExpr(s); !strings.Contains(why, want) {
			t.Errorf("checkExpr(%.40q) = %q, want %q", s, why, want)
		}
	}
}

func TestHarnessPromptHash(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Regimes {
		h := HarnessPromptHash(r)
		if len(h) != 64 || seen[h] || h != HarnessPromptHash(r) {
			t.Errorf("%s: hash %q not a stable sha256 distinct per regime", r, h)
		}
		seen[h] = true
	}
}

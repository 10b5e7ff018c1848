package judge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/testcheck"
	"github.com/google/go-cmp/cmp"
)

// parsedAnswer is the golden form of one recorded answer's reading.
type parsedAnswer struct {
	Stage1 *Stage1 `json:"stage1,omitempty"`
	Stage2 *Stage2 `json:"stage2,omitempty"`
	Whole  *Whole  `json:"whole,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// TestParseRecordedAnswers reads every recorded answer text under
// testdata/answers with the parser its file name names and compares the
// readings, errors included, with testdata/answers.golden.json.
func TestParseRecordedAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/answers/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded answers: %v", err)
	}
	sort.Strings(files)
	got := map[string]parsedAnswer{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		testcheck.Must(t, err)
		name := filepath.Base(f)
		var pa parsedAnswer
		switch {
		case strings.HasPrefix(name, "stage1_"):
			s, err := ParseStage1(string(b))
			pa.Stage1, pa.Error = reading(s, err)
		case strings.HasPrefix(name, "stage2_"):
			s, err := ParseStage2(string(b))
			pa.Stage2, pa.Error = reading(s, err)
		case strings.HasPrefix(name, "whole_"):
			s, err := ParseWhole(string(b))
			pa.Whole, pa.Error = reading(s, err)
		default:
			t.Fatalf("%s: name must start with stage1_, stage2_ or whole_", name)
		}
		if pa.Error != "" && !strings.HasPrefix(pa.Error, ErrUnparseable.Error()) {
			t.Errorf("%s: error %q does not wrap ErrUnparseable", name, pa.Error)
		}
		got[name] = pa
	}
	const path = "testdata/answers.golden.json"
	enc, _ := json.MarshalIndent(got, "", "  ")
	b := golden.Read(t, path, append(enc, '\n'))
	var want map[string]parsedAnswer
	testcheck.Must(t, json.Unmarshal(b, &want))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("readings differ from %s (-want +got):\n%s", path, d)
	}
}

func reading[T any](v T, err error) (*T, string) {
	if err != nil {
		return nil, err.Error()
	}
	return &v, ""
}

func TestParseDecisions(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name, text string
		want       *Stage1 // nil: unparseable
	}{
		{"strict", `{"can_throw_T": true, "line": 3, "confidence": 0.9}`, &Stage1{CanThrowT: true, Line: 3, Confidence: f(0.9), Parsed: ParsedJSON}},
		{"false string", `{"can_throw_T": "false"}`, &Stage1{Parsed: ParsedJSON}},
		{"percent", `{"can_throw_T": true, "confidence": 75}`, &Stage1{CanThrowT: true, Confidence: f(0.75), Parsed: ParsedJSON}},
		{"bad confidence dropped", `{"can_throw_T": true, "confidence": -3}`, &Stage1{CanThrowT: true, Parsed: ParsedJSON}},
		{"yes dash", "Yes - the index is unchecked", &Stage1{CanThrowT: true, Parsed: ParsedYesNo}},
		{"bare no", "no", &Stage1{Parsed: ParsedYesNo}},
		{"nothing", "Nothing to report", nil},
		{"yesterday", "Yesterday it threw", nil},
		{"null", `{"can_throw_T": null}`, nil},
		{"array", `[{"can_throw_T": true}]`, &Stage1{CanThrowT: true, Parsed: ParsedEmbedded}},
		{"unknown word", "can_throw_T: perhaps", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStage1(tc.text)
			if tc.want == nil {
				if !errors.Is(err, ErrUnparseable) {
					t.Fatalf("ParseStage1(%q) = %+v, %v; want ErrUnparseable", tc.text, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseStage1(%q): %v", tc.text, err)
			}
			if d := cmp.Diff(*tc.want, got); d != "" {
				t.Errorf("ParseStage1(%q) (-want +got):\n%s", tc.text, d)
			}
		})
	}
}

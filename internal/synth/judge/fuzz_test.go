package judge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary answer texts to the three parsers: they must
// never panic, must either read the decisive field or fail with
// ErrUnparseable, must be deterministic, and a reading re-encoded as JSON
// must read back to the same decision.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/answers/*.txt")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("```json\n{\"can_throw_T\": true}\n```")
	f.Add("{\"still_reaches_T\": \"no\"}{")
	f.Add("**Yes**\n")
	f.Fuzz(func(t *testing.T, text string) {
		fuzzStage1(t, text)
		fuzzStage2(t, text)
		fuzzWhole(t, text)
	})
}

// checkUnparseable stops the test when a parser's error does not wrap
// ErrUnparseable, and says whether there was an error.
func checkUnparseable(t *testing.T, what string, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, ErrUnparseable) {
		t.Fatalf("%s error does not wrap ErrUnparseable: %v", what, err)
	}
	return err != nil
}

// fuzzStage1 checks that a Stage 1 reading is deterministic, has its
// confidence in [0, 1] and reads back the same when re-encoded.
func fuzzStage1(t *testing.T, text string) {
	s1, err := ParseStage1(text)
	if checkUnparseable(t, "stage 1", err) {
		return
	}
	again, err2 := ParseStage1(text)
	if err2 != nil || again.CanThrowT != s1.CanThrowT || again.Parsed != s1.Parsed {
		t.Fatalf("nondeterministic: %+v vs %+v, %v", s1, again, err2)
	}
	if s1.Confidence != nil && (*s1.Confidence < 0 || *s1.Confidence > 1) {
		t.Fatalf("confidence %v outside [0, 1]", *s1.Confidence)
	}
	b, _ := json.Marshal(s1)
	back, err := ParseStage1(string(b))
	if err != nil || back.CanThrowT != s1.CanThrowT || back.Line != s1.Line {
		t.Fatalf("re-encoded reading %s reads back as %+v, %v", b, back, err)
	}
}

// fuzzStage2 checks that a Stage 2 reading reads back the same when
// re-encoded.
func fuzzStage2(t *testing.T, text string) {
	s2, err := ParseStage2(text)
	if checkUnparseable(t, "stage 2", err) {
		return
	}
	b, _ := json.Marshal(s2)
	if back, err := ParseStage2(string(b)); err != nil || back.StillReachesT != s2.StillReachesT {
		t.Fatalf("re-encoded reading %s reads back as %+v, %v", b, back, err)
	}
}

// fuzzWhole checks that a whole-method reading never comes from a bare
// yes/no.
func fuzzWhole(t *testing.T, text string) {
	w, err := ParseWhole(text)
	if !checkUnparseable(t, "whole", err) && w.Parsed == ParsedYesNo {
		t.Fatalf("whole-method answer read from a bare yes/no: %q", text)
	}
}

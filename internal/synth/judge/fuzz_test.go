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
		s1, err := ParseStage1(text)
		if err != nil && !errors.Is(err, ErrUnparseable) {
			t.Fatalf("stage 1 error does not wrap ErrUnparseable: %v", err)
		}
		if err == nil {
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
		s2, err := ParseStage2(text)
		if err != nil && !errors.Is(err, ErrUnparseable) {
			t.Fatalf("stage 2 error does not wrap ErrUnparseable: %v", err)
		}
		if err == nil {
			b, _ := json.Marshal(s2)
			if back, err := ParseStage2(string(b)); err != nil || back.StillReachesT != s2.StillReachesT {
				t.Fatalf("re-encoded reading %s reads back as %+v, %v", b, back, err)
			}
		}
		w, err := ParseWhole(text)
		if err != nil && !errors.Is(err, ErrUnparseable) {
			t.Fatalf("whole error does not wrap ErrUnparseable: %v", err)
		}
		if err == nil && w.Parsed == ParsedYesNo {
			t.Fatalf("whole-method answer read from a bare yes/no: %q", text)
		}
	})
}

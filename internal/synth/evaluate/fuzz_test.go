package evaluate

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// FuzzImportPredictions feeds arbitrary JSON lines to the external
// prediction importer: it accepts or rejects with ErrInput, never panics,
// and what it accepts Analyze can score.
func FuzzImportPredictions(f *testing.F) {
	f.Add(`{"task":"isolated","model":"m","bug_id":"a","side":"buggy","score":0.7}`)
	f.Add(`{"task":"pair","model":"m","bug_id":"b","order":"fixed-first","score":0}`)
	f.Add(`{"task":"pair","model":"m","bug_id":"b","order":"sideways","score":2}`)
	seeds := []SeedInfo{{BugID: "a", Exception: corpus.NullPointer, BuggyTokens: 3, FixedTokens: 5}, {BugID: "b", Exception: corpus.ClassCast, BuggyTokens: 4, FixedTokens: 4}}
	f.Fuzz(func(t *testing.T, line string) {
		var p Prediction
		if json.Unmarshal([]byte(line), &p) != nil {
			return
		}
		got, err := ImportPredictions([]Prediction{p}, seeds)
		if err != nil {
			if !errors.Is(err, errs.ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		// A lone isolated prediction has one class only: Analyze may
		// refuse it, but must not panic; a pair prediction always scores.
		rep, err := Analyze(t.Context(), got, seeds, AnalyzeOptions{Bootstrap: 10})
		if got[0].Task == PairTask && (err != nil || len(rep.Results) != 1) {
			t.Fatalf("pair prediction %+v not analysed: %v", got[0], err)
		}
	})
}

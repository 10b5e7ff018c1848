package jvm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestHandwrittenCorpusInSync keeps testdata/pairs.jsonl, the hand-written
// pairs as a corpus the CLI reads (synth verify --corpus, synth validate
// --candidates), equal to testdata/pairs.txt, which the tests read with
// their expectations.
func TestHandwrittenCorpusInSync(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, tp := range readPairs(t, "testdata/pairs.txt") {
		p := tp.pair
		p.ExampleBugIDs = []string{}
		testcheck.Must(t, p.Validate())
		testcheck.Must(t, enc.Encode(p))
	}
	golden.Check(t, "testdata/pairs.jsonl", b.Bytes())
}

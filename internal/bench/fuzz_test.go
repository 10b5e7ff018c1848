package bench

import (
	"bytes"
	"context"
	"testing"
)

// FuzzLoadJSONL feeds arbitrary bytes to the JSONL decoders of every
// format and checks that nothing panics and nothing is dropped silently:
// every non-blank line becomes either a sample or at least one problem.
func FuzzLoadJSONL(f *testing.F) {
	for _, seed := range []string{
		`{"repo":"o/r","instance_id":"o__r-1","base_commit":"abc","patch":"p","FAIL_TO_PASS":"[\"t\"]","PASS_TO_PASS":[]}`,
		`{"org":"o","repo":"r","number":1,"base":{"sha":"abc"},"fix_patch":"--- a/X.java\n+++ b/X.java\n","f2p_tests":{"T":{}}}`,
		`{"id":"g","benchmark":"b","repo":"o/r","language":"go","base_commit":"a","patch":"p","tests":{"fail_to_pass":["x"]},"meta":{"a":[1,{"b":null}]}}`,
		"{}\n\n[1]\nnull\n\"s\"\n{\"id\":1}\r\n{",
		`{"created_at":"2020-13-45T99:00:00Z","number":-1,"base":{"sha":7}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		nonBlank := countNonBlank(data)
		for _, format := range []Format{FormatSWEBench, FormatMultiSWEBench, FormatJSONL} {
			ps := &problems{}
			samples, err := decodeJSONL(context.Background(), bytes.NewReader(data), "fuzz_java.jsonl", format, LoadOptions{}, ps)
			if err != nil {
				t.Fatalf("%s: decodeJSONL error %v", format, err)
			}
			lines := problemLines(t, format, ps.list)
			if len(samples)+lines != nonBlank {
				t.Fatalf("%s: %d samples + %d problem lines != %d non-blank lines", format, len(samples), lines, nonBlank)
			}
			checkSamplesComplete(t, format, samples)
		}
		// Malformed diffs must fail cleanly; a diff that reverses once
		// must reverse again.
		if once, err := reverseDiff(string(data)); err == nil {
			if _, err := reverseDiff(once); err != nil {
				t.Fatalf("reverseDiff(reverseDiff(x)) failed: %v\nonce: %q", err, once)
			}
		}
	})
}

// countNonBlank counts the lines of data that are not blank (a final \r
// is ignored).
func countNonBlank(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(bytes.TrimSuffix(l, []byte("\r")))) > 0 {
			n++
		}
	}
	return n
}

// problemLines checks that every problem has a line and a message, and
// returns the number of distinct lines with a problem.
func problemLines(t *testing.T, format Format, list []Problem) int {
	t.Helper()
	lines := map[int]bool{}
	for _, p := range list {
		if p.Line < 1 || p.Msg == "" {
			t.Fatalf("%s: problem without line or message: %+v", format, p)
		}
		lines[p.Line] = true
	}
	return len(lines)
}

func checkSamplesComplete(t *testing.T, format Format, samples []Sample) {
	t.Helper()
	for _, s := range samples {
		if s.ID == "" || s.Patch == "" || s.BaseCommit == "" {
			t.Fatalf("%s: accepted incomplete sample %+v", format, s)
		}
	}
}

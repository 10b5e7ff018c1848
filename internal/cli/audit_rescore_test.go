package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/shareddata"
)

func TestAuditRescoreVerified(t *testing.T) {
	t.Run("vendored", func(t *testing.T) {
		auditRescoreReal(t, shareddata.Vendored(t, "swebench", "swebench_verified.jsonl"),
			shareddata.Vendored(t, "swebench", "leaderboard_verified.jsonl"), "audit_rescore_vendored.txt")
	})
	t.Run("full", func(t *testing.T) {
		auditRescoreReal(t, shareddata.Full(t, "swebench", "swebench_verified.jsonl"),
			shareddata.Full(t, "swebench", "leaderboard_verified.jsonl"), "audit_rescore_verified.txt")
	})
}

// auditRescoreReal rescores the real leaderboard lp on benchmark bp with
// the every-3rd-sample verdicts and compares the terminal output.
func auditRescoreReal(t *testing.T, bp, lp, goldenName string) {
	vp := filepath.Join("..", "audit", "rescore", "testdata", "verdicts_every3.jsonl")
	out := t.TempDir()
	stdout, stderr, code := run(t, "audit", "rescore", "--verdicts", vp, "--leaderboard", lp, "--benchmark", bp, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", goldenName), strings.ReplaceAll(stdout, out, "OUT"))
	for _, f := range []string{"rescore.json", "rescore.md", "rescore.html"} {
		st, err := os.Stat(filepath.Join(out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "rescore.html"))
	if !strings.Contains(string(html), "<svg") {
		t.Errorf("rescore.html has no plot")
	}
}

func TestAuditRescoreSmallJSON(t *testing.T) {
	dir := t.TempDir()
	vp := filepath.Join(dir, "v.jsonl")
	os.WriteFile(vp, []byte(`{"sample_id":"a","present":true}
{"sample_id":"b","present":false}
{"sample_id":"c","present":false}
{"sample_id":"d","present":false}
`), 0o644)
	lp := filepath.Join(dir, "lb.jsonl")
	os.WriteFile(lp, []byte(`{"submission":"20240101_x","resolved":["a","b"]}`+"\n"), 0o644)
	stdout, stderr, code := run(t, "audit", "rescore", "--verdicts", vp, "--leaderboard", lp, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		VerdictKind string `json:"verdict_kind"`
		Samples     int    `json:"samples"`
		Submissions []struct {
			Overall struct {
				All, Clean struct{ Resolved, Total int }
				Drop       float64 `json:"relative_drop"`
			} `json:"overall"`
			Year int `json:"year"`
		} `json:"submissions"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	// all 2/4 = 0.5, clean {b,c,d} 1/3: drop (0.5-1/3)/0.5 = 1/3.
	s := res.Submissions[0]
	if res.VerdictKind != "patch" || res.Samples != 4 || s.Overall.All.Resolved != 2 || s.Overall.Clean.Total != 3 ||
		s.Overall.Drop < 0.3333 || s.Overall.Drop > 0.3334 || s.Year != 2024 {
		t.Errorf("result = %s", stdout)
	}
}

func TestAuditRescoreErrors(t *testing.T) {
	dir := t.TempDir()
	vp := filepath.Join(dir, "v.jsonl")
	os.WriteFile(vp, []byte("{\"sample_id\":\"a\",\"contaminated\":true}\nnot json\n"), 0o644)
	lp := filepath.Join(dir, "lb.jsonl")
	os.WriteFile(lp, []byte(`{"submission":"x","resolved":["a"]}`+"\n"), 0o644)
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"audit", "rescore", "--leaderboard", lp}, exitUsage, "--verdicts"},
		{[]string{"audit", "rescore", "--verdicts", vp}, exitUsage, "--leaderboard"},
		{[]string{"audit", "rescore", "--verdicts", vp, "--leaderboard", lp}, exitInput, "v.jsonl:2"},
		{[]string{"audit", "rescore", "--verdicts", filepath.Join(dir, "none"), "--leaderboard", lp}, exitNotFound, "none"},
	} {
		_, stderr, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
}

// TestAuditRescoreUnjudged: unknown Stage II verdicts are their own bucket
// on the terminal and in rescore.md, with the policy beside every rate.
func TestAuditRescoreUnjudged(t *testing.T) {
	dir := t.TempDir()
	vp := filepath.Join(dir, "v.jsonl")
	os.WriteFile(vp, []byte(`{"sample_id":"a","present":true,"verdict":"present"}
{"sample_id":"b","present":false,"verdict":"absent"}
{"sample_id":"c","present":false,"verdict":"unknown"}
{"sample_id":"d","present":false,"verdict":"unknown"}
`), 0o644)
	lp := filepath.Join(dir, "lb.jsonl")
	os.WriteFile(lp, []byte(`{"submission":"20240101_x","resolved":["a","c"]}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := run(t, "audit", "rescore", "--verdicts", vp, "--leaderboard", lp, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// exclude: all {a,b} 1/2, clean {b} 0/1.
	for _, want := range []string{"4 samples: 1 contaminated, 1 clean (25.0%), 2 unjudged (50.0%)", "--unjudged exclude", "Overall [unjudged excluded]", "1/2 → 0/1 ↓100.0%"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("terminal lacks %q:\n%s", want, stdout)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "rescore.md"))
	html, _ := os.ReadFile(filepath.Join(out, "rescore.html"))
	for _, doc := range []string{string(md), string(html)} {
		if !strings.Contains(doc, "2 unjudged") || !strings.Contains(doc, "unjudged excluded") {
			t.Errorf("rescore.md/html lacks the unjudged bucket or the policy:\n%.600s", doc)
		}
	}
	// clean: all 2/4, clean {b,c,d} 1/3 — the old, optimistic reading.
	stdout, _, code = run(t, "audit", "rescore", "--verdicts", vp, "--leaderboard", lp, "--unjudged", "clean")
	if code != 0 || !strings.Contains(stdout, "2/4 → 1/3 ↓33.3%") || !strings.Contains(stdout, "Overall [unjudged counted clean]") {
		t.Errorf("--unjudged clean: exit %d\n%s", code, stdout)
	}
	if _, stderr, code = run(t, "audit", "rescore", "--verdicts", vp, "--leaderboard", lp, "--unjudged", "bogus"); code != exitUsage || !strings.Contains(stderr, "--unjudged") {
		t.Errorf("--unjudged bogus: exit %d: %s", code, stderr)
	}
}

package release

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestLicenseRulesExamples enforces every licence rule's must-match and
// must-not-match texts.
func TestLicenseRulesExamples(t *testing.T) {
	for _, r := range licenseRules {
		if len(r.Match) == 0 || len(r.NotMatch) == 0 {
			t.Errorf("rule %s: needs must-match and must-not-match examples", r.SPDX)
		}
		for _, m := range r.Match {
			if got := classifyLicense(m); got != r.SPDX {
				t.Errorf("rule %s: %q classified %q", r.SPDX, m, got)
			}
		}
		for _, m := range r.NotMatch {
			if got := classifyLicense(m); got == r.SPDX {
				t.Errorf("rule %s: must not match %q", r.SPDX, m)
			}
		}
	}
	if got := classifyLicense("// SPDX-License-Identifier: EPL-2.0 WITH Classpath-exception-2.0\npackage x;"); got != "EPL-2.0 WITH Classpath-exception-2.0" {
		t.Errorf("SPDX line: %q", got)
	}
}

// licensedRepo makes a repository with fixed dates holding a licence file
// and one source file, and returns its git dir and commit.
func licensedRepo(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		testcheck.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		testcheck.Must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	return git("rev-parse", "HEAD")
}

// TestReleaseAttributesSources: pairs from two real repositories (an
// Apache-2.0 licence file, an MIT one overridden by an SPDX header) get
// their licences per record, the manifest says "mixed" and the datasheet
// lists both; without --repos, or for a pair with no source and no
// --code-license, the build refuses.
func TestReleaseAttributesSources(t *testing.T) {
	repos := t.TempDir()
	apache := licensedRepo(t, filepath.Join(repos, "acme__lib"), map[string]string{
		"LICENSE": "                                 Apache License\n                           Version 2.0, January 2004\n", "src/A.java": "class A {}\n"})
	mit := licensedRepo(t, filepath.Join(repos, "acme__tool"), map[string]string{
		"LICENSE": "Permission is hereby granted, free of charge ... THE SOFTWARE IS PROVIDED \"AS IS\"", "src/B.java": "// SPDX-License-Identifier: BSD-2-Clause\nclass B {}\n"})
	pairs, err := jsonl.ReadFile[corpus.Pair]("testdata/in/core.jsonl")
	testcheck.Must(t, err)
	pairs[0].Source = &corpus.Source{Repo: "acme/lib", Commit: apache, Path: "src/A.java", Span: corpus.Span{Start: 1, End: 1}, Operator: "drop-null-guard", Seed: "Lang-7-a"}
	pairs[1].Source = &corpus.Source{Repo: "acme/tool", Commit: mit, Path: "src/B.java", Span: corpus.Span{Start: 2, End: 2}}
	pairs[2].Source = &corpus.Source{Repo: "acme/lib", Commit: apache, Path: "src/A.java", Span: corpus.Span{Start: 1, End: 1}}
	core := filepath.Join(t.TempDir(), "core.jsonl")
	writePairs(t, core, pairs)
	in := Inputs{Core: core, Seeds: "testdata/in/seeds.jsonl", IDMap: "testdata/in/idmap.csv"}

	if _, err := Build(context.Background(), in, filepath.Join(t.TempDir(), "r"), Options{}); !refused(err, errs.ErrUsage, "--repos") {
		t.Fatalf("without --repos: %v, want a usage error naming --repos", err)
	}
	dir := filepath.Join(t.TempDir(), "rel")
	res, err := Build(context.Background(), in, dir, Options{Repos: repos})
	testcheck.Must(t, err)
	m := res.Manifest
	if m.CodeLicense != mixedLicense || len(m.Counts.CodeLicenses) != 2 || m.Counts.Candidates != 3 {
		t.Fatalf("manifest code_license %q, licences %+v, candidates %d; want mixed over Apache-2.0 and BSD-2-Clause, 3", m.CodeLicense, m.Counts.CodeLicenses, m.Counts.Candidates)
	}
	recs, err := jsonl.ReadFile[CorePair](filepath.Join(dir, "core.jsonl"))
	testcheck.Must(t, err)
	checkRecordLicences(t, recs, map[string]string{pairs[0].PairID: "Apache-2.0", pairs[1].PairID: "BSD-2-Clause", pairs[2].PairID: "Apache-2.0"})
	testcheck.Eq(t, "provenance operator", recs[0].Source.Operator, "drop-null-guard")
	if !strings.HasPrefix(recs[0].Source.Evidence, "LICENSE at ") {
		t.Errorf("provenance %+v, want the licence file as evidence", recs[0].Source)
	}
	sheet, _ := os.ReadFile(filepath.Join(dir, DatasheetFile))
	testcheck.Contains(t, "datasheet", string(sheet), "code licence mixed")
	testcheck.Contains(t, "datasheet", string(sheet), "BSD-2-Clause (1 pairs)")
	chk, err := Check(context.Background(), dir)
	if err != nil || !chk.OK() {
		t.Fatalf("check: %v\n%s", err, problems(chk))
	}
	checkCountsMustAddUp(t, dir)

	pairs[2].Source = nil
	writePairs(t, core, pairs)
	if _, err := Build(context.Background(), in, filepath.Join(t.TempDir(), "r"), Options{Repos: repos}); !refused(err, errs.ErrUsage, "--code-license") {
		t.Errorf("pair without source: %v, want a refusal naming --code-license", err)
	}
}

// checkRecordLicences checks each core record's licence (want: pair id →
// licence) and that its source carries evidence.
func checkRecordLicences(t *testing.T, recs []CorePair, want map[string]string) {
	t.Helper()
	for _, r := range recs {
		if r.CodeLicense != want[r.PairID] || r.Source == nil || r.Source.Evidence == "" {
			t.Errorf("%s: licence %q source %+v, want %s with evidence", r.PairID, r.CodeLicense, r.Source, want[r.PairID])
		}
	}
}

// checkCountsMustAddUp makes the release's manifest claim 4 candidates:
// its counts no longer add up and the check fails.
func checkCountsMustAddUp(t *testing.T, dir string) {
	t.Helper()
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	testcheck.Must(t, json.Unmarshal(data, &raw))
	raw["counts"].(map[string]any)["candidates"] = 4
	data, _ = json.Marshal(raw)
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644))
	chk, err := Check(context.Background(), dir)
	if err != nil || chk.OK() || !strings.Contains(problems(chk), "3 core + 0 excluded") {
		t.Errorf("check of a manifest claiming 4 candidates: %v\n%s", err, problems(chk))
	}
}

func writePairs(t *testing.T, path string, pairs []corpus.Pair) {
	t.Helper()
	var b strings.Builder
	for _, p := range pairs {
		j, err := json.Marshal(p)
		testcheck.Must(t, err)
		b.Write(j)
		b.WriteByte('\n')
	}
	testcheck.Must(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

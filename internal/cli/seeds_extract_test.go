package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/seeds"
)

const extractTrigger = `--- demo.Bug1Test::test
java.lang.NullPointerException
	at demo.Bug1.len(Bug1.java:4)
`

// extractFixture builds a one-project Defects4J layout of two bugs: Demo-1,
// a body-only NPE fix in a repository at repos/Demo/repo (found by project
// name through the mirror's "repo" subdirectory), and Demo-2 whose fixed
// commit is missing.
func extractFixture(t *testing.T) (d4j, repos string) {
	root := t.TempDir()
	repos = filepath.Join(root, "repos")
	repo := filepath.Join(repos, "Demo", "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	b := gittest.NewIn(t, repo)
	path := "src/main/java/demo/Bug1.java"
	buggy := "package demo;\npublic class Bug1 {\n    public int len(String s) {\n        return s.length();\n    }\n    private int n;\n}\n"
	fixed := strings.Replace(buggy, "return s.length();", "return s == null ? 0 : s.length();", 1)
	b.Write(path, buggy)
	bc := b.Commit("bug", gittest.Date(2020, 1, 1))
	b.Write(path, fixed)
	fc := b.Commit("fix", gittest.Date(2020, 1, 2))
	proj := filepath.Join(root, "d4j", "Demo")
	for _, d := range []string{"patches", "trigger_tests", "modified_classes"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	patch := diff.Unified("a/"+path, "b/"+path, []byte(fixed), []byte(buggy), 3).String()
	missing := strings.Repeat("0f", 20)
	files := map[string]string{
		"active-bugs.csv":        fmt.Sprintf("bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n1,%s,%s,D-1,\n2,%s,%s,D-2,\n", bc, fc, missing, missing),
		"dir-layout.csv":         fmt.Sprintf("%s,src/main/java,src/test/java\n%s,src/main/java,src/test/java\n", bc, fc),
		"patches/1.src.patch":    patch,
		"patches/2.src.patch":    patch,
		"trigger_tests/1":        extractTrigger,
		"trigger_tests/2":        extractTrigger,
		"modified_classes/1.src": "demo.Bug1\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "d4j"), repos
}

func TestSeedsExtractEndToEnd(t *testing.T) {
	d4j, repos := extractFixture(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "seeds.jsonl")
	ref := filepath.Join(dir, "ref.jsonl")
	stdout, stderr, code := run(t, "seeds", "extract", "--defects4j", d4j, "--repos", repos, "--out", out, "--reference-set", ref)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Demo", "Seed pool by source and type", "defects4j  1", "NPE     1", "1 seeds; wrote"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	golden.CheckString(t, filepath.Join("testdata", "seeds_extract.golden"), stdout, golden.Path(dir, "$OUT"))
	got, err := jsonl.ReadFile[corpus.Seed](out)
	if err != nil || len(got) != 1 || got[0].BugID != "Demo-1" || got[0].Exception != corpus.NullPointer {
		t.Fatalf("seeds: %+v %v", got, err)
	}
	logs, err := jsonl.ReadFile[seeds.BugLog](filepath.Join(dir, "seeds.log.jsonl"))
	if err != nil || len(logs) != 2 || logs[1].Stage != seeds.StageF3 || !strings.Contains(logs[1].Reason, "not in") {
		t.Fatalf("log: %+v %v", logs, err)
	}
	ids, err := jsonl.ReadFile[seeds.SourceBugRecord](seeds.SourceBugPath(out))
	if err != nil || len(ids) != 1 || ids[0] != (seeds.SourceBugRecord{BugID: "Demo-1", SourceBug: "Demo-1"}) {
		t.Fatalf("source-bug table: %+v %v", ids, err)
	}
	refs, err := jsonl.ReadFile[seeds.ReferenceEntry](ref)
	if err != nil || len(refs) != 1 || !refs[0].InReference {
		t.Fatalf("reference set: %+v %v", refs, err)
	}

	// A rerun resumes (nothing new) and reads the reference set back.
	stdout, stderr, code = run(t, "seeds", "extract", "--defects4j", d4j, "--repos", repos, "--out", out, "--reference-set", ref, "--json")
	if code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "seeds_extract_json.golden"), stdout, golden.Path(dir, "$OUT"))
	var v seedsExtractJSON
	if err := output.DecodeSummary(strings.NewReader(stdout), "seeds_extract", &v); err != nil {
		t.Fatal(err)
	}
	if v.Seeds != 1 || v.Pooled.Total != 2 || v.Pooled.Excluded[seeds.StageF3] != 1 || v.Distribution.Types[0].Reference != 1 {
		t.Errorf("json: %+v", v)
	}
	if got, _ := jsonl.ReadFile[corpus.Seed](out); len(got) != 1 {
		t.Errorf("rerun duplicated seeds: %d", len(got))
	}
}

func TestSeedsExtractUsage(t *testing.T) {
	tests := [][]string{
		{"seeds", "extract", "--out", "x.jsonl", "--repos", "r"},
		{"seeds", "extract", "--defects4j", "d", "--bugs", "b", "--out", "x", "--repos", "r"},
		{"seeds", "extract", "--defects4j", "d", "--repos", "r"},
		{"seeds", "extract", "--defects4j", "d", "--out", "x"},
	}
	for _, args := range tests {
		_, stderr, code := run(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
	_, stderr, code := run(t, "seeds", "extract", "--defects4j", t.TempDir(), "--repos", "r", "--out", filepath.Join(t.TempDir(), "s.jsonl"))
	if code == 0 || !strings.Contains(stderr, "active-bugs.csv") {
		t.Errorf("empty layout: exit %d %s", code, stderr)
	}
}

package seeds

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

type memSink struct {
	seeds []corpus.Seed
	logs  map[string]BugLog
}

func (m *memSink) Emit(s []corpus.Seed, l BugLog) error {
	m.seeds = append(m.seeds, s...)
	if m.logs == nil {
		m.logs = map[string]BugLog{}
	}
	m.logs[l.Bug] = l
	return nil
}

func TestExtractDefects4JFixture(t *testing.T) {
	d4j, repos := buildDemo(t)
	bugs, problems, err := LoadDefects4J(d4j, nil)
	if err != nil || len(problems) > 0 {
		t.Fatalf("LoadDefects4J: %v %v", err, problems)
	}
	finder := &RepoFinder{Dir: repos}
	defer finder.Close()
	sink := &memSink{}
	logs, err := Extract(context.Background(), bugs, ExtractOptions{Repos: finder}, sink)
	testcheck.Must(t, err)
	checkDemoLogs(t, logs)
	checkDemoSeeds(t, sink.seeds)
	rows, pooled := Funnel(logs)
	testcheck.Eq(t, "funnel rows", len(rows), 1)
	testcheck.Eq(t, "funnel (total, runtime, seeds, seed bugs, F3 excluded, F4 excluded)",
		[6]int{pooled.Total, pooled.Runtime, pooled.Seeds, pooled.SeedBugs, pooled.Excluded[StageF3], pooled.Excluded[StageF4]},
		[6]int{10, 8, 4, 3, 4, 1})
}

// checkDemoLogs checks the outcome of every bug of the demo fixture.
func checkDemoLogs(t *testing.T, logs []BugLog) {
	t.Helper()
	type row struct {
		Kept   bool
		Stage  Stage
		Reason string // substring
		Pairs  []string
	}
	want := map[string]row{
		"Demo-1":  {true, StageSeed, "1 of 1", []string{"Demo-1"}},
		"Demo-2":  {false, StageF3, "change outside method bodies", nil},
		"Demo-3":  {false, StageF3, "signature-only change of Bug3.len(String)", nil},
		"Demo-4":  {false, StageF3, "documentation-only change: Bug4.len(String)", nil},
		"Demo-5":  {true, StageSeed, "2 of 2", []string{"Demo-5#1", "Demo-5#2"}},
		"Demo-6":  {false, StageF4, "fix adds a missing throw of IllegalArgumentException", nil},
		"Demo-7":  {true, StageSeed, "1 of 1", []string{"Demo-7"}},
		"Demo-8":  {false, StageF3, "fixed commit " + strings.Repeat("cd", 20) + " of Demo-8 not in", nil},
		"Demo-9":  {false, StageF1, "only JUnit artefacts", nil},
		"Demo-10": {false, StageF2, "only checked exceptions", nil},
	}
	if len(logs) != len(want) {
		t.Fatalf("got %d logs, want %d", len(logs), len(want))
	}
	for _, l := range logs {
		w, ok := want[l.Bug]
		if !ok {
			t.Errorf("unexpected bug %s", l.Bug)
			continue
		}
		pairs := keptPairs(l)
		if l.Kept != w.Kept || l.Stage != w.Stage || !strings.Contains(l.Reason, w.Reason) || !cmp.Equal(pairs, w.Pairs) {
			t.Errorf("%s: got kept=%t stage=%s pairs=%v reason %q; want kept=%t stage=%s pairs=%v reason containing %q",
				l.Bug, l.Kept, l.Stage, pairs, l.Reason, w.Kept, w.Stage, w.Pairs, w.Reason)
		}
	}
}

// keptPairs lists the pair ids of a bug's kept methods.
func keptPairs(l BugLog) []string {
	var pairs []string
	for _, m := range l.Methods {
		if m.Kept {
			pairs = append(pairs, m.PairID)
		}
	}
	return pairs
}

// checkDemoSeeds checks the demo fixture's four seeds, Demo-1's in full.
func checkDemoSeeds(t *testing.T, seeds []corpus.Seed) {
	t.Helper()
	if len(seeds) != 4 {
		t.Fatalf("got %d seeds, want 4", len(seeds))
	}
	s := seeds[0]
	wantSeed := corpus.Seed{BugID: "Demo-1", SourceBug: "Demo-1", Benchmark: "defects4j", Project: "Demo",
		Exception: "NullPointerException", File: "src/main/java/demo/Bug1.java", MethodSignature: "public int len(String s)",
		BuggyMethod: "/** Length. */\npublic int len(String s) {\n    return s.length();\n}",
		FixedMethod: "/** Length. */\npublic int len(String s) {\n    if (s == null) { return 0; } return s.length();\n}",
		BuggySpan:   corpus.Span{Start: 7, End: 9}, FixedSpan: corpus.Span{Start: 7, End: 9}}
	if len(s.FixedCommit) != 40 {
		t.Errorf("seed fixed_commit %q, want the fixture's 40-hex fixed revision", s.FixedCommit)
	}
	wantSeed.FixedCommit = s.FixedCommit
	s.Diff = ""
	if d := cmp.Diff(wantSeed, s); d != "" {
		// The declaration span may or may not include the Javadoc; accept
		// either, but the method text and metadata must match.
		wantSeed.BuggyMethod = strings.TrimPrefix(wantSeed.BuggyMethod, "/** Length. */\n")
		wantSeed.FixedMethod = strings.TrimPrefix(wantSeed.FixedMethod, "/** Length. */\n")
		if d2 := cmp.Diff(wantSeed, s); d2 != "" {
			t.Errorf("seed Demo-1 (-want +got):\n%s", d2)
		}
	}
	if !strings.Contains(seeds[0].Diff, "+    if (s == null) { return 0; } return s.length();") {
		t.Errorf("seed diff lacks the fix line:\n%s", seeds[0].Diff)
	}
	if got := seeds[3].Exception; got != corpus.IllegalArgument {
		t.Errorf("Demo-7 exception = %q", got)
	}
}

func TestExtractResumesFromFiles(t *testing.T) {
	d4j, repos := buildDemo(t)
	bugs, _, err := LoadDefects4J(d4j, []string{"Demo"})
	testcheck.Must(t, err)
	dir := t.TempDir()
	seedsPath, logPath := filepath.Join(dir, "seeds.jsonl"), filepath.Join(dir, "log.jsonl")
	run := func(bugs []BugInput) []BugLog {
		finder := &RepoFinder{Dir: repos}
		defer finder.Close()
		logs, err := ExtractToFiles(context.Background(), bugs, ExtractOptions{Repos: finder}, ExtractFiles{Seeds: seedsPath, Log: logPath})
		testcheck.Must(t, err)
		return logs
	}
	run(bugs[:5])
	// Simulate a crash after bug 5's seeds but before its log record.
	recs, err := jsonl.ReadFile[BugLog](logPath)
	testcheck.Must(t, err)
	testcheck.Must(t, jsonl.Rewrite(logPath, recs[:4]))
	logs := run(bugs)
	if len(logs) != 10 {
		t.Fatalf("second run returned %d logs, want 10", len(logs))
	}
	all, err := jsonl.ReadFile[corpus.Seed](seedsPath)
	testcheck.Must(t, err)
	var ids []string
	for _, s := range all {
		ids = append(ids, s.BugID)
	}
	if want := []string{"Demo-1", "Demo-5#1", "Demo-5#2", "Demo-7"}; !cmp.Equal(ids, want) {
		t.Errorf("seeds after resume = %v, want %v", ids, want)
	}
	recs, _ = jsonl.ReadFile[BugLog](logPath)
	if len(recs) != 10 {
		t.Errorf("log holds %d records, want 10", len(recs))
	}
}

func TestExtractSingleMethodAndMissingRepo(t *testing.T) {
	d4j, repos := buildDemo(t)
	bugs, _, _ := LoadDefects4J(d4j, nil)
	sink := &memSink{}
	finder := &RepoFinder{Dir: repos}
	defer finder.Close()
	logs, err := Extract(context.Background(), bugs[4:5], ExtractOptions{Repos: finder, SingleMethod: true}, sink)
	testcheck.Must(t, err)
	checkDropped(t, "single-method", logs[0], StageF3, "changes 2 method bodies")
	empty := &RepoFinder{Dir: t.TempDir()}
	logs, err = Extract(context.Background(), bugs[:1], ExtractOptions{Repos: empty}, &memSink{})
	testcheck.Must(t, err)
	checkDropped(t, "missing repository", logs[0], StageF3, "no local clone for Demo under")
}

func TestExtractGenericJSONL(t *testing.T) {
	b := gittest.New(t)
	b.Write("src/main/java/demo/A.java", demoBugs[1].buggy)
	b.Write("src/test/java/demo/ATest.java", "class ATest {}\n")
	bc := b.Commit("buggy", gittest.Date(2021, 1, 1))
	b.Write("src/main/java/demo/A.java", demoBugs[1].fixed)
	b.Write("src/test/java/demo/ATest.java", "class ATest { int x; }\n")
	fc := b.Commit("fixed", gittest.Date(2021, 1, 2))
	file := filepath.Join(t.TempDir(), "bugs.jsonl")
	lines := `{"bug_id":"bj-1","benchmark":"bugs.jar","repo":"acme/demo","buggy_commit":"` + bc + `","fixed_commit":"` + fc +
		`","failure_log":"java.lang.NullPointerException\n\tat demo.Bug1.len(Bug1.java:8)\n"}
{"bug_id":"bj-2","repo":"acme/demo","buggy_commit":"` + bc + `","fixed_commit":"` + fc + `","failure_log":"","exception":"IAE"}
{"bug_id":"bj-3","repo":"acme/demo","buggy_commit":"` + bc + `","failure_log":"x"}
`
	writeFile(t, file, lines)
	bugs, err := ReadGenericBugs(file)
	testcheck.Must(t, err)
	finder := &RepoFinder{Mapping: map[string]string{"acme/demo": b.Dir()}}
	defer finder.Close()
	sink := &memSink{}
	logs, err := Extract(context.Background(), bugs, ExtractOptions{Repos: finder}, sink)
	testcheck.Must(t, err)
	checkKept(t, "bj-1", logs[0], NPE)
	testcheck.Eq(t, "bj-1 benchmark", logs[0].Benchmark, "bugs.jar")
	checkKept(t, "bj-2 (exception given, no log)", logs[1], IAE)
	if len(logs[1].Notes) == 0 {
		t.Errorf("bj-2 (exception given, no log): no note: %+v", logs[1])
	}
	checkDropped(t, "bj-3", logs[2], StageInput, "missing fixed_commit")
	if len(sink.seeds) != 2 || sink.seeds[0].File != "src/main/java/demo/A.java" {
		t.Errorf("seeds: %+v", sink.seeds)
	}

	writeFile(t, file, `{"bug_id":"x","repo":"a/b","bogus":1}`+"\n")
	_, err = ReadGenericBugs(file)
	testcheck.ErrIs(t, "unknown field", err, errs.ErrInput)
	if err != nil {
		testcheck.Contains(t, "unknown field", err.Error(), "bugs.jsonl:1")
	}
}

// checkDropped checks that a bug was dropped at stage for a reason
// containing reason.
func checkDropped(t *testing.T, what string, l BugLog, stage Stage, reason string) {
	t.Helper()
	if l.Kept || l.Stage != stage || !strings.Contains(l.Reason, reason) {
		t.Errorf("%s: kept=%t stage=%s reason %q; want dropped at %s for %q", what, l.Kept, l.Stage, l.Reason, stage, reason)
	}
}

// checkKept checks that a bug was kept with exception exc.
func checkKept(t *testing.T, what string, l BugLog, exc Type) {
	t.Helper()
	if !l.Kept || l.Exception != exc {
		t.Errorf("%s: %+v, want kept as %s", what, l, exc)
	}
}

func TestRepoFinderLayouts(t *testing.T) {
	b := gittest.New(t)
	b.Write("a.txt", "a")
	b.Commit("a", gittest.Date(2020, 1, 1))
	bare := b.CloneBare()
	for _, layout := range []string{"acme__demo", "acme/demo", "acme+demo/repo", "Demo", "demo", "ACME__Demo.git", "Acme/DEMO", "Acme+Demo/repo"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			dst := filepath.Join(dir, layout)
			testcheck.Must(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			testcheck.Must(t, os.Symlink(bare, dst))
			f := &RepoFinder{Dir: dir}
			defer f.Close()
			if _, err := f.Find(context.Background(), "Demo", "acme/demo"); err != nil {
				t.Fatal(err)
			}
		})
	}
	f := &RepoFinder{Dir: t.TempDir()}
	if _, err := f.Find(context.Background(), "Demo", "acme/demo"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}

// TestReadMapping: --mapping is the one JSON format of every command.
func TestReadMapping(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "map.json")
	writeFile(t, p, `{"Lang": "/abs/lang", "acme/demo": "rel/demo"}`)
	m, err := ReadMapping(p)
	testcheck.Must(t, err)
	want := map[string]string{"Lang": "/abs/lang", "acme/demo": filepath.Join(dir, "rel/demo")}
	if d := cmp.Diff(want, m); d != "" {
		t.Error(d)
	}
	writeFile(t, p, "Lang /abs/lang\n")
	if _, err := ReadMapping(p); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "map.json") || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("the old line format: %v", err)
	}
}

// TestRepoFinderBareClone: --repos finds owner__name.git, the bare clone
// `git clone --bare` makes.
func TestRepoFinderBareClone(t *testing.T) {
	b := gittest.New(t)
	b.Write("A.java", "class A {}\n")
	head := b.Commit("one", gittest.Date(2021, 1, 1))
	dir := t.TempDir()
	b.Git("clone", "--bare", "--quiet", b.Dir(), filepath.Join(dir, "acme__widget.git"))
	f := &RepoFinder{Dir: dir}
	defer f.Close()
	r, err := f.Find(context.Background(), "", "acme/widget")
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if c, err := r.Resolve(context.Background(), head); err != nil || c.Hash != head || !r.Bare() {
		t.Errorf("found %s (bare %v), resolving %s: %+v %v; want the bare clone", r.GitDir(), r.Bare(), head, c, err)
	}
}

package pipeline

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

func TestStageScores(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"p = α is the boundary", RepoScore(0.05, 0.05), 0.5},
		{"p = 1 is 0", RepoScore(1, 0.05), 0},
		{"p = α² is ¾", RepoScore(0.0025, 0.05), 0.75},
		{"p = √α is ¼", RepoScore(math.Sqrt(0.05), 0.05), 0.25},
		{"NaN p is 0", RepoScore(math.NaN(), 0.05), 0},
		{"bad α means 0.05", RepoScore(0.05, 7), 0.5},
		{"s = τ is the boundary", PatchScore(0.7, 0.7), 0.5},
		{"s = 1 is 1", PatchScore(1, 0.7), 1},
		{"s = 0.35 is ¼", PatchScore(0.35, 0.7), 0.25},
		{"s = 0.85 is ¾", PatchScore(0.85, 0.7), 0.75},
		{"NaN s is 0", PatchScore(math.NaN(), 0.7), 0},
		{"s > 1 is clamped", PatchScore(3, 0.7), 1},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestCombine(t *testing.T) {
	repo := func(verdict string, p float64) *RepoRecord {
		return &RepoRecord{RepoVerdict: repoprobe.RepoVerdict{Verdict: verdict, Present: verdict == repoprobe.Present, PValue: p}}
	}
	patch := func(verdict, method string, score float64) *patchcheck.Verdict {
		return &patchcheck.Verdict{Verdict: verdict, Present: verdict == patchcheck.Present, Method: method, Score: score, Threshold: 0.7}
	}
	tests := []struct {
		name         string
		rv           *RepoRecord
		pv           *patchcheck.Verdict
		contaminated bool
		flags        []string
		score        float64
	}{
		{"both present", repo(repoprobe.Present, 0.0025), patch(patchcheck.Present, "exact", 1), true, nil, 0.75},
		{"repo absent", repo(repoprobe.Absent, 0.5), patch(patchcheck.Present, "exact", 1), false, nil, RepoScore(0.5, 0.05)},
		{"patch absent", repo(repoprobe.Present, 1e-10), patch(patchcheck.Absent, "similarity", 0.35), false, nil, 0.25},
		{"insufficient", repo(repoprobe.Insufficient, 1), patch(patchcheck.Present, "exact", 1), false, []string{FlagRepoInsufficient}, 0},
		{"unknown patch", repo(repoprobe.Present, 0.0025), patch(patchcheck.Unknown, "", 0), false, []string{FlagPatchUnknown}, 0},
		{"not applicable", repo(repoprobe.Present, 0.0025), patch(patchcheck.NotApplicable, "", 0), false, []string{FlagNotApplicable}, 0},
		// A test-verified patch below the threshold is still on the present side.
		{"tests", repo(repoprobe.Present, 0.0025), patch(patchcheck.Present, "tests", 0.35), true, nil, 0.5},
		{"nothing", nil, nil, false, []string{FlagNoRepoVerdict, FlagNoPatchVerdict}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Combine("s1", "m", "o/r", "2023-01-01T00:00:00Z", 0.05, tc.rv, tc.pv, &baselines.Scores{Loss: 2, MinK: -5})
			checkCombined(t, v, tc.contaminated, tc.score)
			ev, err := DecodeEvidence(v)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ev.Flags, tc.flags) {
				t.Errorf("flags %v, want %v", ev.Flags, tc.flags)
			}
			if !slices.Equal([]float64{ev.Baselines[baselines.MethodLoss], ev.Baselines[baselines.MethodMinK]}, []float64{-2, -5}) {
				t.Errorf("baselines %v", ev.Baselines)
			}
		})
	}
}

// checkCombined: v has the wanted verdict and score, and a score on the
// contaminated side exactly when contaminated.
func checkCombined(t *testing.T, v rescore.Verdict, contaminated bool, score float64) {
	t.Helper()
	if v.Contaminated != contaminated || (v.Score >= 0.5) != contaminated || math.Abs(v.Score-score) > 1e-12 {
		t.Errorf("contaminated %v score %v, want %v %v", v.Contaminated, v.Score, contaminated, score)
	}
}

func TestWriteClean(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"instance_id":"a__b-1","repo":"a/b","x":  1}`,
		`{"org":"o","repo":"r","number":7,"fix_patch":""}`,
		`{"id":"g-1","weird":   true}`,
		`not json`,
	}
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(lines[0]+"\n\n"+lines[1]+"\r\n"+lines[2]+"\n"+lines[3]), 0o644)
	samples := []bench.Sample{{ID: "a__b-1"}, {ID: "o__r-7"}, {ID: "g-1"}}
	out := filepath.Join(dir, "clean.jsonl")
	cs, err := WriteClean(in, samples, map[string]bool{"o__r-7": true}, out)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want := lines[0] + "\n" + lines[2] + "\n" + lines[3] + "\n"
	if !slices.Equal([]any{string(got), cs.Kept, cs.Dropped, cs.Unjudged, cs.Format}, []any{want, 3, 1, 1, "original"}) {
		t.Errorf("clean = %q %+v, want %q", got, cs, want)
	}
	// A directory input gives generic Sample JSONL.
	d4j := filepath.Join(dir, "d4j")
	os.MkdirAll(d4j, 0o755)
	cs, err = WriteClean(d4j, []bench.Sample{{ID: "Lang-1"}, {ID: "Lang-2"}}, map[string]bool{"Lang-1": true}, out)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := jsonl.ReadFile[bench.Sample](out)
	if err != nil || !slices.Equal(sampleIDs(kept), []string{"Lang-2"}) || cs.Format != "sample" || cs.Note == "" {
		t.Errorf("directory clean: %+v %+v %v", kept, cs, err)
	}
	if _, err := WriteClean(filepath.Join(dir, "nope"), nil, nil, out); err == nil {
		t.Error("missing benchmark: no error")
	}
}

func sampleIDs(ss []bench.Sample) []string {
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

// evalRecords are Stage I records of five repositories for the
// evaluation tests.
func evalRecords() []RepoRecord {
	ref := func(x float64) *float64 { return &x }
	return []RepoRecord{
		{RepoVerdict: repoprobe.RepoVerdict{Repo: "a", Model: "m", Verdict: repoprobe.Present, Present: true, PValue: 1e-6, Queries: 20},
			Baselines: &baselines.Scores{Loss: 1, MinK: -2, Ref: ref(-1), RefLoss: ref(2)}},
		{RepoVerdict: repoprobe.RepoVerdict{Repo: "b", Model: "m", Verdict: repoprobe.Absent, PValue: 0.3, Queries: 20},
			Baselines: &baselines.Scores{Loss: 3, MinK: -6, Ref: ref(1), RefLoss: ref(2)}},
		{RepoVerdict: repoprobe.RepoVerdict{Repo: "c", Model: "m", Verdict: repoprobe.Present, Present: true, PValue: 0.01, Queries: 20},
			Baselines: &baselines.Scores{Loss: 0.5, MinK: -1}},
		{RepoVerdict: repoprobe.RepoVerdict{Repo: "d", Model: "m", Verdict: repoprobe.Insufficient, PValue: 1}},
		{RepoVerdict: repoprobe.RepoVerdict{Repo: "e", Model: "m", Verdict: repoprobe.Absent, PValue: 0.5, Queries: 20}},
	}
}

func TestEvaluate(t *testing.T) {
	recs := evalRecords()
	labels := map[string]bool{"a": true, "b": false, "c": false, "d": true, "z": true}
	ev, err := EvaluateRepos(recs, labels, "")
	if err != nil {
		t.Fatal(err)
	}
	checkRepoEval(t, ev)
	checkCombinedEval(t, recs)
}

// checkRepoEval checks EvaluateRepos on evalRecords.
func checkRepoEval(t *testing.T, ev *StageEval) {
	t.Helper()
	bc := ev.Methods[0]
	// Scores −log10 p: a 6 (+), b 0.52 (−), c 2 (−), d 0 (+). Pairs (+,−):
	// (a,b) (a,c) win, (d,b) (d,c) lose: AUC 0.5. Verdicts: TPR 1/2, FPR 1/2.
	if !slices.Equal([]any{bc.Method, *bc.AUC, bc.TPR, bc.FPR, bc.N}, []any{MethodBenchChecker, 0.5, 0.5, 0.5, 4}) {
		t.Errorf("benchchecker row %+v", bc)
	}
	if !slices.Equal([]int{ev.Skipped["unlabelled"], ev.Skipped["insufficient"]}, []int{1, 1}) || !slices.Equal(ev.Missing, []string{"z"}) {
		t.Errorf("skipped %v missing %v", ev.Skipped, ev.Missing)
	}
	rows := map[string]MethodEval{}
	for _, m := range ev.Methods {
		rows[m.Method] = m
	}
	// Loss (−1, −3, −0.5 for a+, b−, c−): a beats b, loses to c: AUC 0.5.
	// Ref only on a, b: −(−1)=1 > −1: AUC 1.
	if l := rows[baselines.MethodLoss]; !slices.Equal([]any{l.N, *l.AUC}, []any{3, 0.5}) {
		t.Errorf("loss row %+v", l)
	}
	if r := rows[baselines.MethodRef]; !slices.Equal([]any{r.N, *r.AUC, r.TPR, r.FPR, r.Decision}, []any{2, 1.0, 1.0, 0.0, "youden"}) {
		t.Errorf("ref row %+v", r)
	}
}

// checkCombinedEval checks EvaluateCombined on verdicts combined from the
// first two of recs, and its usage and input errors.
func checkCombinedEval(t *testing.T, recs []RepoRecord) {
	t.Helper()
	vs := []rescore.Verdict{
		Combine("s1", "m", "a", "", 0.05, &recs[0], &patchcheck.Verdict{Verdict: patchcheck.Present, Present: true, Score: 1, Threshold: 0.7}, nil),
		Combine("s2", "m", "b", "", 0.05, &recs[1], &patchcheck.Verdict{Verdict: patchcheck.Present, Present: true, Score: 1, Threshold: 0.7}, nil),
	}
	ce, err := EvaluateCombined(vs, map[string]bool{"s1": true, "s2": false}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if m := ce.Methods[0]; !slices.Equal([]any{*m.AUC, m.TPR, m.FPR, m.Threshold, len(ce.Methods)}, []any{1.0, 1.0, 0.0, 0.5, 1}) {
		t.Errorf("combined %+v", ce.Methods)
	}
	two := append(vs, rescore.Verdict{SampleID: "s1", Model: "other"})
	if _, err := EvaluateCombined(two, map[string]bool{"s1": true}, ""); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("two models without --model: %v", err)
	}
	if _, err := EvaluateCombined(vs, map[string]bool{"x": true}, ""); !errors.Is(err, errs.ErrInput) {
		t.Errorf("no labelled record: %v", err)
	}
}

func TestPageEmptyDir(t *testing.T) {
	if _, err := Page(t.TempDir()); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileManifest), []byte("{bad"), 0o644)
	if _, err := Page(dir); !errors.Is(err, errs.ErrInput) {
		t.Errorf("bad manifest: err = %v, want ErrInput", err)
	}
}

// TestReplayOtherCommands: a directory holding only other commands'
// outputs (an evaluation, the testbed) replays them as records, with no
// summary, and the page built from that stream has their sections only.
func TestReplayOtherCommands(t *testing.T) {
	dir := t.TempDir()
	ev := `{"stage":"repo","methods":[{"method":"benchchecker","n":4,"positives":2,"negatives":2,"auc":0.75,"tpr":1,"fpr":0.5,"decision":"verdict"}]}`
	tb := `{"target":"t","summary":[{"config":"full","tpr":1,"fpr":0}],"notes":["a note"]}`
	writeFiles(t, dir, map[string]string{"eval-repo.json": ev, "eval-empty.json": `{"stage":"patch","methods":[]}`, FileTestbed: tb})
	var c output.Collect
	if err := Replay(dir, &c); err != nil {
		t.Fatal(err)
	}
	if want := []string{KindStageEval, KindTestbed}; !slices.Equal(recordKinds(t, c.Messages), want) {
		t.Errorf("replayed kinds %v, want %v (an evaluation without methods is not shown)", recordKinds(t, c.Messages), want)
	}
	p, err := BuildPage(c.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"evaluation", "testbed"}; !slices.Equal(sectionIDs(p), want) {
		t.Errorf("sections %v, want %v", sectionIDs(p), want)
	}
	if !p.Generated.IsZero() {
		t.Errorf("a page without a manifest has a stamp: %v", p.Generated)
	}
}

// recordKinds is the kinds of msgs, which must all be records.
func recordKinds(t *testing.T, msgs []output.Message) []string {
	t.Helper()
	var kinds []string
	for _, m := range msgs {
		if m.Record == nil {
			t.Fatalf("replay sent %+v, want records only (no manifest: no summary)", m)
		}
		kinds = append(kinds, m.Record.Kind)
	}
	return kinds
}

func sectionIDs(p *report.Page) []string {
	var ids []string
	for _, s := range p.Sections {
		ids = append(ids, s.ID)
	}
	return ids
}

// writeFiles writes each file of files (a path under dir → its content),
// making the folders it needs.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

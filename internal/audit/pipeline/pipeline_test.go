package pipeline_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/pipeline/pipelinetest"
	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/repos"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/runkey"
)

// options opens the fixture's models through a fresh llm.Session (cache in
// cacheDir) and returns Run options writing to out.
func options(t *testing.T, fx *pipelinetest.Fixture, targetSpec, cacheDir, out string) (pipeline.Options, *llm.Session) {
	t.Helper()
	sess, err := llm.NewSession(llm.SessionOptions{CacheDir: cacheDir, Retry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: 5 * time.Millisecond, MaxDelay: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	target, err := sess.Open(targetSpec)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := sess.Open(fx.RefSpec)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := refindex.Load(fx.IndexPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := repos.New(repos.Options{Dir: fx.ReposDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	cutoff, err := gitrepo.ParseTime(pipelinetest.Cutoff)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Options{
		Benchmark: fx.Benchmark, Source: res, Target: target, Reference: ref, Index: ix, Cutoff: cutoff,
		MaxRepoFrac: 0.3, MaxQueries: 40, MaxTokens: 6, Seed: 1, Baselines: true, OutDir: out,
		LLMManifest: sess.Manifest,
	}, sess
}

func TestRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	out, cache := t.TempDir(), t.TempDir()
	ctx := context.Background()
	opts, _ := options(t, fx, fx.TargetSpec, cache, out)
	old := syscall.Umask(0o022) // the usual umask
	res, err := pipeline.Run(ctx, opts)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	checkModes(t, out)
	checkRepoVerdicts(t, fx, res.Repos)
	vs := checkSampleVerdicts(t, fx, out)
	checkClean(t, fx, out)
	checkManifest(t, res.Manifest)
	checkReport(t, filepath.Join(out, pipeline.FileReport))
	checkResume(t, fx, out, vs)

	// The report regenerates from the files alone.
	if err := os.Remove(filepath.Join(out, pipeline.FileReport)); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.WriteReport(out, filepath.Join(out, "again.html")); err != nil {
		t.Fatal(err)
	}
	checkReport(t, filepath.Join(out, "again.html"))
}

// checkModes: every output file gets the same mode, 0644 under umask 022.
func checkModes(t *testing.T, out string) {
	t.Helper()
	for _, f := range []string{pipeline.FileRepos, pipeline.FilePatch, pipeline.FileVerdicts, pipeline.FileClean, pipeline.FileManifest, pipeline.FileReport} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want 0644", f, st.Mode().Perm(), err)
		}
	}
}

// checkRepoVerdicts checks Stage I: the seen repository is present, the
// unseen one absent, the missing one without a clone.
func checkRepoVerdicts(t *testing.T, fx *pipelinetest.Fixture, repos []pipeline.RepoRecord) {
	t.Helper()
	byRepo := map[string]pipeline.RepoRecord{}
	for _, r := range repos {
		byRepo[r.Repo] = r
	}
	for _, r := range repos {
		t.Logf("%s: files %d patterns %v candidates %d select %+v", r.Repo, r.Files, r.Patterns, r.Candidates, r.Select)
	}
	if r := byRepo[pipelinetest.SeenRepo]; r.Verdict != repoprobe.Present {
		t.Errorf("seen repository: %s (p=%g, %d queries, %d hits, reason %q), want present", r.Verdict, r.PValue, r.Queries, r.Hits, r.Reason)
	}
	if r := byRepo[pipelinetest.UnseenRepo]; r.Verdict != repoprobe.Absent {
		t.Errorf("unseen repository: %s (p=%g, %d queries, %d hits, reason %q), want absent", r.Verdict, r.PValue, r.Queries, r.Hits, r.Reason)
	}
	if r := byRepo["acme/missing"]; r.Verdict != repoprobe.NoClone || !saysWhereAndHow(r.Reason, fx.ReposDir) {
		t.Errorf("missing repository: %s %q, want no_clone saying where and how to add it (never insufficient)", r.Verdict, r.Reason)
	}
	if r := byRepo[pipelinetest.SeenRepo]; r.Baselines == nil || r.Baselines.Ref == nil {
		t.Errorf("seen repository has no repository-level baselines with Ref: %+v", r.Baselines)
	}
}

// saysWhereAndHow reports whether a no-clone reason names the folder
// searched and the command that adds acme/missing.
func saysWhereAndHow(reason, reposDir string) bool {
	return strings.HasPrefix(reason, "no local clone for acme/missing under "+reposDir+": ") &&
		strings.Contains(reason, "git clone --bare https://github.com/acme/missing")
}

// sampleWant is what the audit must decide for a sample.
type sampleWant struct {
	repo, patch, contaminated bool
	flag                      string
}

// checkSampleVerdicts checks verdicts.jsonl against what each sample
// must be, and returns it.
func checkSampleVerdicts(t *testing.T, fx *pipelinetest.Fixture, out string) []rescore.Verdict {
	t.Helper()
	vs, err := jsonl.ReadFile[rescore.Verdict](filepath.Join(out, pipeline.FileVerdicts))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sampleWant{
		pipelinetest.SeenPersists:   {true, true, true, ""},
		pipelinetest.SeenReverted:   {true, false, false, ""},
		pipelinetest.UnseenPersists: {false, true, false, ""},
		pipelinetest.MissingRepo:    {false, false, false, pipeline.FlagNoClone},
	}
	if len(vs) != len(want) {
		t.Fatalf("%d verdicts, want %d", len(vs), len(want))
	}
	for _, v := range vs {
		w, ok := want[v.SampleID]
		if !ok {
			t.Errorf("unexpected verdict %s", v.SampleID)
			continue
		}
		checkSampleVerdict(t, fx, v, w)
	}
	return vs
}

func checkSampleVerdict(t *testing.T, fx *pipelinetest.Fixture, v rescore.Verdict, w sampleWant) {
	t.Helper()
	ev, err := pipeline.DecodeEvidence(v)
	if err != nil {
		t.Fatal(err)
	}
	if (sampleWant{v.RepoPresent, v.PatchPresent, v.Contaminated, w.flag}) != w {
		t.Errorf("%s: repo %v patch %v contaminated %v, want %v %v %v (evidence %s)", v.SampleID, v.RepoPresent, v.PatchPresent, v.Contaminated, w.repo, w.patch, w.contaminated, v.Evidence)
	}
	if (v.Score >= 0.5) != v.Contaminated {
		t.Errorf("%s: combined score %v disagrees with contaminated=%v", v.SampleID, v.Score, v.Contaminated)
	}
	checkSampleEvidence(t, v.SampleID, ev, w.flag)
	if v.Model != fx.TargetSpec {
		t.Errorf("%s: model %q, want %q", v.SampleID, v.Model, fx.TargetSpec)
	}
}

// checkSampleEvidence: the evidence has flag (if any); the sample whose
// repository is missing has an unknown patch verdict, every other one all
// four baselines.
func checkSampleEvidence(t *testing.T, id string, ev pipeline.Evidence, flag string) {
	t.Helper()
	if flag != "" && !strings.Contains(strings.Join(ev.Flags, " "), flag) {
		t.Errorf("%s: flags %v, want %s", id, ev.Flags, flag)
	}
	if id == pipelinetest.MissingRepo && ev.PatchVerdict != patchcheck.Unknown {
		t.Errorf("%s: patch verdict %s, want unknown", id, ev.PatchVerdict)
	}
	if id != pipelinetest.MissingRepo && len(ev.Baselines) != 4 {
		t.Errorf("%s: baselines %v, want all four", id, ev.Baselines)
	}
}

// checkClean: clean.jsonl holds the original lines of every sample but
// the contaminated one.
func checkClean(t *testing.T, fx *pipelinetest.Fixture, out string) {
	t.Helper()
	clean, err := os.ReadFile(filepath.Join(out, pipeline.FileClean))
	if err != nil {
		t.Fatal(err)
	}
	wantClean := fx.Lines[pipelinetest.SeenReverted] + "\n" + fx.Lines[pipelinetest.UnseenPersists] + "\n" + fx.Lines[pipelinetest.MissingRepo] + "\n"
	if string(clean) != wantClean {
		t.Errorf("clean.jsonl:\n%s\nwant:\n%s", clean, wantClean)
	}
}

func checkManifest(t *testing.T, m pipeline.Manifest) {
	t.Helper()
	if !m.Complete || !slices.Equal([]int{m.Counts.Contaminated, m.Counts.Clean, m.Counts.Flagged}, []int{1, 3, 1}) || m.LLM == nil || m.LLM.Calls == 0 {
		t.Errorf("manifest: %+v", m)
	}
	if !slices.Equal([]any{m.Clean.Kept, m.Clean.Dropped, m.Clean.Format}, []any{3, 1, "original"}) {
		t.Errorf("clean stats: %+v", m.Clean)
	}
}

// checkResume: a second run in the same directory, with a fresh session
// and a fresh cache, makes no model call and reproduces the verdicts vs.
func checkResume(t *testing.T, fx *pipelinetest.Fixture, out string, vs []rescore.Verdict) {
	t.Helper()
	before := fx.Target.Requests()
	opts2, _ := options(t, fx, fx.TargetSpec, t.TempDir(), out)
	res2, err := pipeline.Run(context.Background(), opts2)
	if err != nil {
		t.Fatal(err)
	}
	if got := fx.Target.Requests() - before; got != 0 {
		t.Errorf("second run sent %d requests to the target", got)
	}
	if l := res2.Manifest.LLM; !slices.Equal([]int64{l.Calls, l.CacheHits}, []int64{0, 0}) {
		t.Errorf("second run manifest: %d calls, %d cache hits; want 0, 0", l.Calls, l.CacheHits)
	}
	if w := res2.Manifest.Written; !maps.Equal(w, map[string]int{pipeline.FilePatch: 1}) {
		t.Errorf("second run wrote records: %v, want only the unknown patch verdict redone", w)
	}
	if m := res2.Manifest; !slices.Equal([]int{m.Resumed[pipeline.FileRepos], m.Resumed[pipeline.FilePatch], m.Rechecked[pipeline.FilePatch]}, []int{2, 3, 1}) {
		t.Errorf("second run resumed %v, rechecked %v; want 2 repositories (the missing one is retried for free) and 3 patch verdicts resumed, the unknown one rechecked",
			res2.Manifest.Resumed, res2.Manifest.Rechecked)
	}
	vs2, _ := jsonl.ReadFile[rescore.Verdict](filepath.Join(out, pipeline.FileVerdicts))
	for i := range vs {
		if verdictKey(vs[i]) != verdictKey(vs2[i]) {
			t.Errorf("resumed verdict %d differs: %+v vs %+v", i, vs[i], vs2[i])
		}
	}
}

// verdictKey is what a resumed run must reproduce of a verdict.
type verdictKeyT struct {
	id           string
	contaminated bool
	score        float64
}

func verdictKey(v rescore.Verdict) verdictKeyT {
	return verdictKeyT{v.SampleID, v.Contaminated, v.Score}
}

func checkReport(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{"<svg", pipelinetest.SeenPersists, "Stage I: repository presence", "Per-sample verdicts"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script src", "<link ", "src=\"http", "href=\"http"} {
		if strings.Contains(html, bad) {
			t.Errorf("report is not self-contained: has %q", bad)
		}
	}
}

func TestRunEndpointDown(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	out := t.TempDir()
	opts, _ := options(t, fx, pipelinetest.DeadSpec(t), t.TempDir(), out)
	opts.Reference = nil // fail at the first probe, not at entropy scoring
	res, err := pipeline.Run(context.Background(), opts)
	if !errors.Is(err, errs.ErrUnavailable) || !strings.Contains(err.Error(), "rerun the same command to resume") {
		t.Fatalf("err = %v, want ErrUnavailable with a resume hint", err)
	}
	if res == nil || res.Manifest.Complete {
		t.Errorf("manifest should say incomplete: %+v", res)
	}
	// Stage II finished before the model was needed.
	pv, err := jsonl.ReadFile[patchcheck.Verdict](filepath.Join(out, pipeline.FilePatch))
	if err != nil || len(pv) != 4 {
		t.Errorf("patch.jsonl: %d verdicts, err %v; want 4", len(pv), err)
	}
	if _, err := os.Stat(filepath.Join(out, pipeline.FileManifest)); err != nil {
		t.Errorf("no manifest after a stop: %v", err)
	}
}

func TestRunEmptyBenchmark(t *testing.T) {
	fx := &pipelinetest.Fixture{}
	_ = fx
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := repos.New(repos.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	target, err := llm.Open("openai:x@http://127.0.0.1:9/v1", llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Run(context.Background(), pipeline.Options{Benchmark: empty, Format: "jsonl", Source: res, Target: target,
		Cutoff: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), OutDir: filepath.Join(dir, "out")})
	if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "no valid sample") {
		t.Errorf("err = %v, want ErrInput about an empty benchmark", err)
	}
}

// TestRerunKeysAndRechecks: a rerun with another setting writes new records
// beside the old ones (never reuses or relabels them) and names the
// setting; a record whose cause is gone (no clone) is redone once the
// clone is there; --recheck all redoes every record.
func TestRerunKeysAndRechecks(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	out, cache := t.TempDir(), t.TempDir()
	opts, _ := options(t, fx, fx.TargetSpec, cache, out)
	opts.Baselines = false
	if _, err := pipeline.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkOtherSettings(t, fx, cache, out)
	opts3 := checkCloneAppears(t, fx, cache, out)
	checkRecheckAll(t, opts3)
}

// rerun runs the audit again in out with another Stage II threshold and
// Stage I query budget, Baselines off.
func rerun(t *testing.T, fx *pipelinetest.Fixture, cache, out string) (pipeline.Options, *pipeline.Result) {
	t.Helper()
	opts, _ := options(t, fx, fx.TargetSpec, cache, out) // a new process: a fresh repository resolver
	opts.Baselines = false
	opts.Patch.Threshold, opts.MaxQueries = 0.95, 30
	res, err := pipeline.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return opts, res
}

// patchRecords counts the records of patch.jsonl in out.
func patchRecords(t *testing.T, out string) int {
	t.Helper()
	recs, err := jsonl.ReadFile[patchcheck.Verdict](filepath.Join(out, pipeline.FilePatch))
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// evidenceOf is the evidence of a run's verdicts by sample.
func evidenceOf(t *testing.T, res *pipeline.Result) map[string]pipeline.Evidence {
	t.Helper()
	got := map[string]pipeline.Evidence{}
	for _, v := range res.Verdicts {
		ev, err := pipeline.DecodeEvidence(v)
		if err != nil {
			t.Fatal(err)
		}
		got[v.SampleID] = ev
	}
	return got
}

// checkOtherSettings: a rerun with another Stage II threshold and Stage I
// query budget reuses no record, keeps the old ones beside the new and
// names the differing settings.
func checkOtherSettings(t *testing.T, fx *pipelinetest.Fixture, cache, out string) {
	t.Helper()
	_, res2 := rerun(t, fx, cache, out)
	for id, ev := range evidenceOf(t, res2) {
		if ev.PatchVerdict != patchcheck.Unknown && ev.PatchThreshold != 0.95 {
			t.Errorf("%s: patch verdict at threshold %v reused under --threshold 0.95", id, ev.PatchThreshold)
		}
	}
	if n := res2.Manifest.Resumed[pipeline.FilePatch] + res2.Manifest.Resumed[pipeline.FileRepos]; n != 0 {
		t.Errorf("rerun with other settings resumed %v", res2.Manifest.Resumed)
	}
	if n := patchRecords(t, out); n != 8 {
		t.Errorf("patch.jsonl has %d records after a rerun with another threshold, want 8 (old kept beside new)", n)
	}
	checkNotesName(t, res2.Manifest.Notes, "threshold: 0.7 → 0.95", "max_queries: 40 → 30", "kept beside the new ones")
	for _, r := range res2.Repos {
		if r.Settings["max_queries"] != float64(30) && r.Settings["max_queries"] != 30 {
			t.Errorf("%s: Stage I record with settings %v, want max_queries 30", r.Repo, r.Settings)
		}
	}
}

func checkNotesName(t *testing.T, notes []string, wants ...string) {
	t.Helper()
	all := strings.Join(notes, "\n")
	for _, want := range wants {
		if !strings.Contains(all, want) {
			t.Errorf("notes do not name the differing setting %q:\n%s", want, all)
		}
	}
}

// checkCloneAppears: once the missing clone appears, its unknown verdict
// is redone. It returns the options of that run.
func checkCloneAppears(t *testing.T, fx *pipelinetest.Fixture, cache, out string) pipeline.Options {
	t.Helper()
	if err := os.CopyFS(filepath.Join(fx.ReposDir, "acme__missing"), os.DirFS(filepath.Join(fx.ReposDir, "acme__unseen"))); err != nil {
		t.Fatal(err)
	}
	opts3, res3 := rerun(t, fx, cache, out)
	if ev := evidenceOf(t, res3)[pipelinetest.MissingRepo]; ev.PatchVerdict == patchcheck.Unknown || ev.RepoVerdict == repoprobe.NoClone {
		t.Errorf("after adding the clone: %s is still patch %s / repo %s (%s)", pipelinetest.MissingRepo, ev.PatchVerdict, ev.RepoVerdict, ev.PatchReason)
	}
	if m := res3.Manifest; m.Rechecked[pipeline.FilePatch] != 1 || m.Resumed[pipeline.FilePatch] != 3 {
		t.Errorf("after adding the clone: rechecked %v resumed %v, want 1 and 3 patch records", m.Rechecked, m.Resumed)
	}
	if n := patchRecords(t, out); n != 9 {
		t.Errorf("patch.jsonl has %d records, want 9 (the unknown one kept, superseded)", n)
	}
	return opts3
}

// checkRecheckAll: --recheck all redoes everything.
func checkRecheckAll(t *testing.T, opts pipeline.Options) {
	t.Helper()
	opts.Recheck = runkey.RecheckAll
	res4, err := pipeline.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if m := res4.Manifest; m.Rechecked[pipeline.FilePatch] != 4 || m.Resumed[pipeline.FilePatch] != 0 || m.Rechecked[pipeline.FileRepos] != 3 {
		t.Errorf("--recheck all: rechecked %v resumed %v, want 4 patch and 3 repository records redone", m.Rechecked, m.Resumed)
	}
	if len(res4.Repos) != 3 || len(res4.Verdicts) != 4 {
		t.Errorf("--recheck all: %d repositories, %d verdicts", len(res4.Repos), len(res4.Verdicts))
	}
}

// TestReportGolden snapshots report.html of a run on the pipelinetest
// fixture, as Run writes it and as WriteReport regenerates it from the
// directory: the page is one stream's rendering either way. Normalised:
// the temporary directories, the loopback servers' URLs (random ports) and
// the wall-clock figures (the wall time and the page's stamp, which is the
// run's start plus its wall time).
func TestReportGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	out := t.TempDir()
	opts, _ := options(t, fx, fx.TargetSpec, t.TempDir(), out)
	opts.Workers = 1
	if _, err := pipeline.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "again.html")
	if err := pipeline.WriteReport(out, again); err != nil {
		t.Fatal(err)
	}
	_, target, _ := strings.Cut(fx.TargetSpec, "@")
	_, ref, _ := strings.Cut(fx.RefSpec, "@")
	scrubs := []golden.Scrub{golden.Path(out, "$OUT"), golden.Path(fx.Dir, "$FIXTURE"), golden.Path(target, "$TARGET_URL"), golden.Path(ref, "$REFERENCE_URL"),
		golden.Regexp(`<dt>wall time</dt><dd>[0-9.]+ s</dd>`, `<dt>wall time</dt><dd>0.0 s</dd>`),
		golden.Regexp(`Generated by benchforge at [0-9TZ:-]+ `, `Generated by benchforge at $$STAMP `)}
	for _, path := range []string{filepath.Join(out, pipeline.FileReport), again} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "report.html.golden"), data, scrubs...)
	}
}

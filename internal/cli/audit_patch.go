package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/testverify"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // embedder providers
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
)

// newTestVerifier builds the test-verification backend for --test-fallback:
// a command-template runner when --test-cmd is given, else the runner
// detected per sample (pytest or unittest for Python; Maven, Gradle or Ant
// for Java where they can run, else javac and JUnit 4). Every sample's gold
// patch is run first as a control: where it does not pass, the harness
// cannot judge the sample and the fallback is inconclusive.
func newTestVerifier(o auditPatchOptions) (patchcheck.TestVerifier, error) {
	vo := testverify.Options{Timeout: o.testTimeout}
	v := &testverify.Verifier{Options: vo}
	if o.testCmd != "" {
		r, err := testverify.ParseCommand(o.testCmd, vo)
		if err != nil {
			return nil, fmt.Errorf("--test-cmd %q: %w", o.testCmd, err)
		}
		r.JUnitXML = o.junitXML
		v.Runner = r
	}
	return v, nil
}

type auditPatchOptions struct {
	bench                                        benchmarkFlags
	repos                                        repoFlags
	cutoff, embedder, out                        string
	testFallback, asJSON, strict                 bool
	threshold, low                               float64
	workers                                      int
	noPreprocess, noLocalize, exactOnly, noTests bool
	testCmd, junitXML                            string
	testTimeout                                  time.Duration
	noHistory, noFacts                           bool
	recheck                                      string
	retryFlags
}

func newAuditPatchCmd(a *app) *cobra.Command {
	var o auditPatchOptions
	cmd := &cobra.Command{
		Use:   "patch",
		Short: "Stage II: does each sample's gold patch persist at the training cutoff?",
		Long: `patch checks, for every sample of a benchmark, whether its gold patch is
present in the repository's cutoff snapshot (the last default-branch commit
before --cutoff), and appends one PatchVerdict per sample to --out
(resumable). Verdicts: present, absent,
unknown (repository, commit or file unavailable; the reason says which) and
not_applicable (the fix touches no source file).

--cutoff takes one date or several, comma-separated: one verdict per
sample and cutoff.

Each verdict records the settings that decided it (cutoff, threshold,
ablation switches, embedder, test options, the version of the decision
logic) and is keyed by them: a rerun reuses a verdict only under the same
settings and writes new verdicts beside those made with other settings.
Unknown verdicts (no clone, a commit missing, a service failed) are redone
on every rerun; --recheck all redoes every verdict.

Repositories are found in --repos as owner__name, owner/name or the
Defects4J project name (bare or not), through --mapping, or cloned into
--clone-dir with --clone. The ablation switches reproduce benchchecker Table 5.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditPatch(a, o) },
	}
	f := cmd.Flags()
	o.retryFlags.add(f)
	o.bench.add(f, true)
	o.repos.add(f, true)
	f.StringVar(&o.repos.cloneDir, "cache", "", "old name of --clone-dir")
	_ = f.MarkDeprecated("cache", "use --clone-dir")
	f.StringVar(&o.cutoff, "cutoff", "", "model training cutoff(s), comma-separated: 2023-09-01, 2023-09 or RFC 3339 (required)")
	f.StringVar(&o.recheck, "recheck", "", "redo finished records on resume: unknown (the default: unknown verdicts are always redone) or all")
	f.StringVar(&o.embedder, "embedder", "", "embedding model spec for re-ranking (e.g. openai:text-embedding-3-small)")
	f.BoolVar(&o.testFallback, "test-fallback", false, "run the tests when the similarity is inconclusive (after a control run with the gold patch; Java without a usable Maven/Gradle/Ant builds with javac and JUnit 4)")
	f.StringVar(&o.testCmd, "test-cmd", "", "with --test-fallback, the test command as argv with {tests}, {test} or {dir} placeholders, e.g. 'python3 -m pytest -q {tests}' (no shell is used); default: detected per sample")
	f.StringVar(&o.junitXML, "junit-xml", "", "with --test-cmd, a glob of JUnit XML reports to read per-test results from")
	f.DurationVar(&o.testTimeout, "test-timeout", 0, "with --test-fallback, the time limit of each test run (default 10m)")
	f.StringVar(&o.out, "out", "", "verdicts JSONL to append to (required)")
	addJSON(f, &o.asJSON)
	f.Float64Var(&o.threshold, "threshold", 0.7, "line similarity threshold")
	f.Float64Var(&o.low, "inconclusive-low", 0.3, "with --test-fallback, run the tests when low ≤ score < threshold (negative: whenever absent)")
	f.IntVar(&o.workers, "workers", 2, "samples checked in parallel")
	f.BoolVar(&o.noPreprocess, "no-preprocess", false, "ablation: no comment stripping or normalisation")
	f.BoolVar(&o.noLocalize, "no-localize", false, "ablation: search the whole file, no function localisation")
	f.BoolVar(&o.exactOnly, "exact-only", false, "ablation: exact line matching only")
	f.BoolVar(&o.noTests, "no-tests", false, "ablation: never run test verification")
	f.BoolVar(&o.noHistory, "no-history", false, "ablation: compare the fix with the snapshot in one jump instead of following it through the history")
	f.BoolVar(&o.noFacts, "no-facts", false, "ablation: score blocks by line similarity alone, without the fix's syntax-tree facts")
	return cmd
}

func defaultRepoCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "benchforge", "repos")
}

// auditPatchSummary is what `audit patch` prints.
type auditPatchSummary struct {
	Out    string `json:"out"`
	Cutoff string `json:"cutoff"` // the cutoffs, comma-separated
	// Other counts the verdicts in Out decided with other settings (kept,
	// not reused); OtherSettings names the settings that differ.
	Other         int                  `json:"other_settings_verdicts,omitempty"`
	OtherSettings []string             `json:"other_settings,omitempty"`
	Checked       int                  `json:"checked"`
	Resumed       int                  `json:"resumed"`
	Total         int                  `json:"total"`
	Counts        map[string]int       `json:"counts"`
	Methods       map[string]int       `json:"methods"`
	Repos         []auditPatchRepoRow  `json:"repos"`
	Reasons       []auditPatchReason   `json:"unknown_reasons"`
	Problems      []bench.Problem      `json:"problems"`
	Seconds       float64              `json:"seconds"`
	Warnings      []string             `json:"warnings,omitempty"`
	Verdicts      []patchcheck.Verdict `json:"-"`
}

type auditPatchRepoRow struct {
	Repo          string  `json:"repo"`
	Cutoff        string  `json:"cutoff"`
	Samples       int     `json:"samples"`
	Present       int     `json:"present"`
	Absent        int     `json:"absent"`
	Unknown       int     `json:"unknown"`
	NotApplicable int     `json:"not_applicable"`
	PresentRate   float64 `json:"present_rate"` // present / (present + absent)
}

type auditPatchReason struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// parse checks the flags that take no I/O.
func (o auditPatchOptions) parse() ([]time.Time, runkey.Recheck, bench.Format, error) {
	if o.bench.file == "" || o.cutoff == "" || o.out == "" {
		return nil, "", "", fmt.Errorf("--benchmark, --cutoff and --out are required: %w", errs.ErrUsage)
	}
	cutoffs, err := parseCutoffs(o.cutoff)
	if err != nil {
		return nil, "", "", err
	}
	recheck, err := runkey.ParseRecheck(o.recheck)
	if err != nil {
		return nil, "", "", err
	}
	format, err := o.bench.parseFormat()
	return cutoffs, recheck, format, err
}

func runAuditPatch(a *app, o auditPatchOptions) error {
	cutoffs, recheck, format, err := o.parse()
	if err != nil {
		return fmt.Errorf("audit patch: %w", err)
	}
	opts, closeEmb, err := patchOptions(o)
	if err != nil {
		return err
	}
	defer closeEmb()
	start := time.Now()
	samples, problems, err := bench.Load(a.ctx, o.bench.file, format, bench.LoadOptions{Strict: o.bench.strict})
	if err != nil {
		return fmt.Errorf("audit patch: %w", err)
	}
	h := a.stream("audit patch", o.asJSON, func(w io.Writer, s output.Summary) error {
		return printAuditPatch(w, s.Value.(auditPatchSummary))
	})
	for _, p := range problems {
		if err := h.Warning(output.Warning{Message: "skipped " + p.String()}); err != nil {
			return err
		}
	}
	res, err := o.repos.resolver()
	if err != nil {
		return fmt.Errorf("audit patch: %w", err)
	}
	defer res.Close()
	run, err := pipeline.Patch(a.ctx, pipeline.PatchOptions{
		Path: o.out, Samples: samples, Cutoffs: cutoffs, Source: res, Check: opts, Names: patchNames(o),
		Workers: o.workers, Recheck: recheck, Noun: "verdicts",
		Warn: func(w string) error { return h.Warning(output.Warning{Message: w}) },
		Verdict: func(v patchcheck.Verdict, done, total int) error {
			// Progress counts verdicts, not samples: a sample has one per
			// cutoff. The record is streamed after it is safe on disk.
			if err := h.Progress(output.Progress{Step: "stage II", Done: done, Total: total}); err != nil {
				return err
			}
			return h.Record(output.Record{Kind: "patch_verdict", Value: v})
		},
	})
	if err != nil {
		return fmt.Errorf("audit patch: %w", err)
	}
	sum := auditPatchSummary{Out: o.out, Cutoff: joinCutoffs(cutoffs), Problems: problems, Warnings: run.Warnings,
		Resumed: run.Resumed, Checked: run.Written, Other: len(run.Other), OtherSettings: run.OtherSettings()}
	summarise(&sum, run.Verdicts)
	sum.Seconds = time.Since(start).Seconds()
	if sum.Problems == nil {
		sum.Problems = []bench.Problem{}
	}
	return h.Summary(output.Summary{Kind: "audit_patch", Value: sum})
}

// patchNames name the live parts of the checker's options in its
// verdicts' settings.
func patchNames(o auditPatchOptions) pipeline.PatchNames {
	return pipeline.PatchNames{Embedder: o.embedder, TestCmd: o.testCmd, JUnitXML: o.junitXML, TestTimeout: o.testTimeout}
}

// patchOptions builds the checker's options from the flags; the returned
// func closes the embedder session.
func patchOptions(o auditPatchOptions) (patchcheck.Options, func(), error) {
	opts := patchcheck.Options{Threshold: o.threshold, InconclusiveLow: o.low, NoPreprocess: o.noPreprocess, NoLocalize: o.noLocalize,
		ExactOnly: o.exactOnly, NoTests: o.noTests || !o.testFallback, NoHistory: o.noHistory, NoFacts: o.noFacts}
	var err error
	if o.testFallback && !o.noTests {
		if opts.Verifier, err = newTestVerifier(o); err != nil {
			return opts, func() {}, fmt.Errorf("audit patch: --test-fallback: %w", err)
		}
	}
	if o.embedder == "" {
		return opts, func() {}, nil
	}
	so, err := o.retryFlags.apply(llm.SessionOptions{})
	if err != nil {
		return opts, func() {}, fmt.Errorf("audit patch: %w", err)
	}
	sess, err := llm.NewSession(so)
	if err != nil {
		return opts, func() {}, fmt.Errorf("audit patch: --embedder %s: %w", o.embedder, err)
	}
	m, err := sess.Open(o.embedder)
	if err != nil {
		sess.Close()
		return opts, func() {}, fmt.Errorf("audit patch: --embedder %s: %w", o.embedder, err)
	}
	opts.Embedder = patchcheck.ModelEmbedder{Model: m}
	return opts, func() { sess.Close() }, nil
}

func summarise(sum *auditPatchSummary, all []patchcheck.Verdict) {
	sum.Total = len(all)
	sum.Counts = map[string]int{patchcheck.Present: 0, patchcheck.Absent: 0, patchcheck.Unknown: 0, patchcheck.NotApplicable: 0}
	sum.Methods = map[string]int{}
	rows := map[string]*auditPatchRepoRow{}
	reasons := map[string]int{}
	for _, v := range all {
		sum.Counts[v.Verdict]++
		if v.Method != "" && v.Present {
			sum.Methods[v.Method]++
		}
		r := rows[v.Repo+"\x00"+v.Cutoff]
		if r == nil {
			r = &auditPatchRepoRow{Repo: v.Repo, Cutoff: v.Cutoff}
			rows[v.Repo+"\x00"+v.Cutoff] = r
		}
		r.add(v)
		if v.Verdict == patchcheck.Unknown {
			reasons[unknownKind(v)]++
		}
	}
	sum.Repos = patchRepoRows(rows)
	sum.Reasons = patchReasonRows(reasons)
}

// add counts verdict v in the row.
func (r *auditPatchRepoRow) add(v patchcheck.Verdict) {
	r.Samples++
	switch v.Verdict {
	case patchcheck.Present:
		r.Present++
	case patchcheck.Absent:
		r.Absent++
	case patchcheck.Unknown:
		r.Unknown++
	case patchcheck.NotApplicable:
		r.NotApplicable++
	}
}

// patchRepoRows are the rows with their present rate, by repository then
// cutoff.
func patchRepoRows(rows map[string]*auditPatchRepoRow) []auditPatchRepoRow {
	out := []auditPatchRepoRow{}
	for _, r := range rows {
		if d := r.Present + r.Absent; d > 0 {
			r.PresentRate = float64(r.Present) / float64(d)
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Repo < b.Repo || a.Repo == b.Repo && a.Cutoff < b.Cutoff
	})
	return out
}

// patchReasonRows are the unknown reasons, most frequent first, then by name.
func patchReasonRows(reasons map[string]int) []auditPatchReason {
	out := []auditPatchReason{}
	for k, n := range reasons {
		out = append(out, auditPatchReason{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// unknownKind is an unknown verdict's kind for the summary, from its
// typed cause (a record written before causes existed falls back to its
// reason).
func unknownKind(v patchcheck.Verdict) string {
	if v.Cause != "" {
		return v.Cause.Label()
	}
	return v.Reason
}

// printAuditPatch is the text summary of `audit patch`.
func printAuditPatch(w io.Writer, s auditPatchSummary) error {
	fmt.Fprintf(w, "audit patch: %d checked, %d already in %s; %d verdicts at cutoff %s (%.1fs)\n",
		s.Checked, s.Resumed, s.Out, s.Total, s.Cutoff, s.Seconds)
	fmt.Fprintf(w, "present %d  absent %d  unknown %d  not_applicable %d\n",
		s.Counts[patchcheck.Present], s.Counts[patchcheck.Absent], s.Counts[patchcheck.Unknown], s.Counts[patchcheck.NotApplicable])
	if s.Other > 0 {
		fmt.Fprintf(w, "note: %d verdicts in %s were decided with other settings (%s); they are kept, not reused, and not counted here\n",
			s.Other, s.Out, strings.Join(s.OtherSettings, "; "))
	}
	t := output.Table{Header: []string{"REPO", "CUTOFF", "SAMPLES", "PRESENT", "ABSENT", "UNKNOWN", "N/A", "PRESENT RATE"}}
	for _, r := range s.Repos {
		rate := "n/a" // no judged sample: a rate of 0 would read as "all absent"
		if r.Present+r.Absent > 0 {
			rate = fmt.Sprintf("%.3f", r.PresentRate)
		}
		t.Add(r.Repo, r.Cutoff, r.Samples, r.Present, r.Absent, r.Unknown, r.NotApplicable, rate)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	for _, r := range s.Reasons {
		fmt.Fprintf(w, "unknown: %d × %s\n", r.Count, r.Reason)
	}
	return nil
}

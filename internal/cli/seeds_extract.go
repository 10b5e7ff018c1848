package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // F5 validator providers
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/seeds"
)

type seedsExtractFlags struct {
	defects4j, bugs, repos, mapping       string
	projects                              []string
	out, log, reference, validate         string
	subclasses, anyOrigin, asJSON, single bool
	retryFlags
}

// seedsExtractJSON is the seeds_extract summary of `seeds extract`.
type seedsExtractJSON struct {
	Funnel       []seeds.FunnelRow   `json:"funnel"`
	Pooled       seeds.FunnelRow     `json:"pooled"`
	Distribution *seeds.Distribution `json:"distribution"`
	Seeds        int                 `json:"seeds"`
	Files        map[string]string   `json:"files"`
	Problems     []bench.Problem     `json:"problems"`
	Unlisted     []string            `json:"reference_unlisted,omitempty"`
	Stale        []string            `json:"reference_stale,omitempty"`
}

func newSeedsExtractCmd(a *app) *cobra.Command {
	var f seedsExtractFlags
	cmd := &cobra.Command{
		Use:   "extract (--defects4j DIR | --bugs FILE) --repos DIR --out seeds.jsonl",
		Short: "Extract method-level bug/fix seed pairs with filters F1–F5 (rxsynth §3.2–3.4)",
		Long: `extract mines real method-level runtime-exception bug/fix pairs.
Per bug: F1/F2 and the seven-type scope on its failure records, then F3
from the repository (the modified files at the fixed commit, the reversed
fix applied to get the buggy side, kept only when every change lies inside
method or constructor bodies; one pair per changed method), F4 for IAE and
ISE (fixes that only add a missing throw are dropped), and F5 with
--validate-with (an LLM confirms cause and fix, confidence ≥ 0.7).

Inputs: a Defects4J framework/projects directory (--defects4j), or a
generic JSONL file (--bugs) of {bug_id, repo, buggy_commit, fixed_commit,
failure_log[, exception, patch, benchmark, project]} for Bugs.jar, Bears or
BugSwarm. Repositories are found under --repos as owner__name, owner/name,
owner+name/repo, the project name or the repository name, bare or not, in
any case; --mapping FILE (the JSON object of every command, keyed by
project or owner/name) overrides.

Outputs: --out seeds (JSONL, resumable), --log one record per bug with the
excluding stage and reason (default: beside --out), the identifier →
source-bug table beside --out (seeds.source-bugs.jsonl), and with
--reference-set FILE the fidelity reference set: read from FILE when it
exists, else computed (per type, buggy-method LLOC above Q3 + 1.5·IQR is
excluded) and written there. Prints the extraction funnel per project and
the seed pool distribution (Table 3 shape).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runSeedsExtract(a, cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.defects4j, "defects4j", "", "Defects4J framework/projects directory, or one project directory")
	fl.StringVar(&f.bugs, "bugs", "", "generic bug JSONL file {bug_id, repo, buggy_commit, fixed_commit, failure_log}")
	fl.StringVar(&f.repos, "repos", "", reposUsage)
	fl.StringVar(&f.mapping, "mapping", "", mappingUsage)
	fl.StringSliceVar(&f.projects, "projects", nil, "Defects4J projects to extract (default all), e.g. Lang,Cli")
	fl.StringVar(&f.out, "out", "", "seed JSONL file to write (appended to and resumed)")
	fl.StringVar(&f.log, "log", "", "extraction log JSONL (default: <out>.log.jsonl)")
	fl.StringVar(&f.reference, "reference-set", "", "fidelity reference-set JSONL: read when it exists, else computed and written")
	fl.StringVar(&f.validate, "validate-with", "", "model spec for F5 causal validation, e.g. anthropic:claude-sonnet-4-5")
	f.retryFlags.add(fl)
	fl.BoolVar(&f.single, "single-method", false, "drop fixes that change several method bodies (default: one pair per changed method)")
	fl.BoolVar(&f.subclasses, "subclasses", false, "also count project subclasses of the seven types (default: the seven exact java.lang classes, rxsynth §3.1)")
	fl.BoolVar(&f.anyOrigin, "any-origin", false, "count an in-scope root cause wherever it was thrown (default: production code only, not test classes, test frameworks or JDK code called from a test)")
	addJSON(fl, &f.asJSON)
	return cmd
}

func checkSeedsExtractFlags(cmd *cobra.Command, f seedsExtractFlags) error {
	if (f.defects4j == "") == (f.bugs == "") {
		return fmt.Errorf("%w: give exactly one of --defects4j DIR and --bugs FILE (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.out == "" {
		return fmt.Errorf("%w: --out FILE is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.repos == "" && f.mapping == "" {
		return fmt.Errorf("%w: --repos DIR or --mapping FILE is required to read the fixes (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	return nil
}

// runSeedsExtract extracts the seeds and reports a seeds_extract summary;
// skipped inputs and sink notes are warnings, each bug a progress message.
func runSeedsExtract(a *app, cmd *cobra.Command, f seedsExtractFlags) error {
	if err := checkSeedsExtractFlags(cmd, f); err != nil {
		return err
	}
	if f.log == "" {
		f.log = strings.TrimSuffix(f.out, ".jsonl") + ".log.jsonl"
	}
	h := a.stream("seeds extract", f.asJSON, renderAs(printSeedsExtract))
	inputs, problems, err := loadExtractInputs(f)
	if err != nil {
		return err
	}
	for _, p := range problems {
		if err := warnAll(h, fmt.Sprintf("skipped %s", p)); err != nil {
			return err
		}
	}
	logs, err := extractSeeds(a, h, f, inputs)
	if err != nil {
		return err
	}
	sum, err := seedsExtractSummary(f, logs, problems)
	if err != nil {
		return err
	}
	return h.Summary(output.Summary{Kind: "seeds_extract", Value: sum})
}

// loadExtractInputs reads the bugs of --defects4j or --bugs; problems are
// the Defects4J bugs skipped as unreadable.
func loadExtractInputs(f seedsExtractFlags) ([]seeds.BugInput, []bench.Problem, error) {
	if f.defects4j != "" {
		return seeds.LoadDefects4J(f.defects4j, f.projects)
	}
	inputs, err := seeds.ReadGenericBugs(f.bugs)
	return inputs, nil, err
}

// extractSeeds runs filters F1–F5 over inputs, appending to --out and
// --log, and returns this run's bug logs.
func extractSeeds(a *app, h output.Handler, f seedsExtractFlags, inputs []seeds.BugInput) ([]seeds.BugLog, error) {
	finder := &seeds.RepoFinder{Dir: f.repos, MappingFile: f.mapping}
	if f.mapping != "" {
		var err error
		if finder.Mapping, err = seeds.ReadMapping(f.mapping); err != nil {
			return nil, err
		}
	}
	defer finder.Close()
	opts := seeds.ExtractOptions{Repos: finder, Scan: seeds.ScanOptions{Subclasses: f.subclasses, AnyOrigin: f.anyOrigin},
		SingleMethod: f.single, Progress: progressFunc(h, "extract")}
	if f.validate != "" {
		v, closeV, err := openValidator(f.validate, f.retryFlags)
		if err != nil {
			return nil, err
		}
		defer closeV()
		opts.Validator = v
	}
	return seeds.ExtractToFiles(a.ctx, inputs, opts, seeds.ExtractFiles{Seeds: f.out, Log: f.log,
		Warn: func(w string) error { return warnAll(h, w) }})
}

// seedsExtractSummary builds the seeds_extract summary from this run's
// logs and --out, rewriting the source-bug table and, when asked, the
// reference set.
func seedsExtractSummary(f seedsExtractFlags, logs []seeds.BugLog, problems []bench.Problem) (seedsExtractJSON, error) {
	all, err := jsonl.ReadFile[corpus.Seed](f.out)
	if err != nil {
		return seedsExtractJSON{}, err
	}
	// Tables cover this run's bugs only, even when --out holds others.
	mine := map[string]bool{}
	for _, l := range logs {
		mine[l.Bug] = true
	}
	var pool []corpus.Seed
	for _, s := range all {
		if mine[s.SourceBug] {
			pool = append(pool, s)
		}
	}
	idPath := seeds.SourceBugPath(f.out)
	if err := jsonl.Rewrite(idPath, seeds.SourceBugTable(all)); err != nil {
		return seedsExtractJSON{}, err
	}
	out := seedsExtractJSON{Seeds: len(pool), Problems: problems,
		Files: map[string]string{"seeds": f.out, "log": f.log, "source_bugs": idPath}}
	if out.Problems == nil {
		out.Problems = []bench.Problem{}
	}
	out.Funnel, out.Pooled = seeds.Funnel(logs)
	ref, err := extractReferenceSet(f, pool, &out)
	if err != nil {
		return out, err
	}
	out.Distribution, err = seeds.Distribute(pool, ref)
	return out, err
}

// extractReferenceSet returns the fidelity reference set of pool: read
// from --reference-set when it exists (its mismatches noted in out), else
// computed and, with --reference-set, written there.
func extractReferenceSet(f seedsExtractFlags, pool []corpus.Seed, out *seedsExtractJSON) ([]seeds.ReferenceEntry, error) {
	if f.reference == "" {
		return seeds.ReferenceSet(pool)
	}
	out.Files["reference_set"] = f.reference
	_, statErr := os.Stat(f.reference)
	switch {
	case statErr == nil:
		ref, err := jsonl.ReadFile[seeds.ReferenceEntry](f.reference)
		if err != nil {
			return nil, err
		}
		out.Unlisted, out.Stale = seeds.CheckReference(pool, ref)
		return ref, nil
	case errors.Is(statErr, os.ErrNotExist):
		ref, err := seeds.ReferenceSet(pool)
		if err != nil {
			return nil, err
		}
		return ref, jsonl.Rewrite(f.reference, ref)
	}
	return nil, fmt.Errorf("seeds extract: --reference-set %s: %w: %v", f.reference, errs.ErrInput, statErr)
}

// printSeedsExtract renders the seeds_extract summary: the funnel, the
// seed pool by source and type, and the per-type sizes.
func printSeedsExtract(w io.Writer, out seedsExtractJSON) error {
	if err := funnelTable(out).Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSeed pool by source and type (rxsynth Table 3 shape):")
	if err := sourceTable(out.Distribution).Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nPer type (buggy-method LLOC; reference set: LLOC <= Q3 + 1.5*IQR within type):")
	t := output.Table{Header: []string{"type", "pairs", "bugs", "projects", "lloc-median", "lloc-q1", "lloc-q3", "lloc-iqr", "fence", "reference", "ref-excluded"}}
	for _, r := range out.Distribution.Types {
		t.Add(r.Type, r.Pairs, r.Bugs, r.Projects, fmt.Sprintf("%.1f", r.LLOCMedian), fmt.Sprintf("%.1f", r.LLOCQ1),
			fmt.Sprintf("%.1f", r.LLOCQ3), fmt.Sprintf("%.1f", r.LLOCIQR), fmt.Sprintf("%.1f", r.Threshold), r.Reference, r.Excluded)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if len(out.Unlisted)+len(out.Stale) > 0 {
		fmt.Fprintf(w, "\nreference set: %d seeds not listed (counted as excluded): %s; %d listed ids without a seed: %s\n",
			len(out.Unlisted), strings.Join(out.Unlisted, " "), len(out.Stale), strings.Join(out.Stale, " "))
	}
	_, err := fmt.Fprintf(w, "\n%d seeds; wrote %s, %s, %s\n", out.Seeds, out.Files["seeds"], out.Files["log"], out.Files["source_bugs"])
	return err
}

// funnelTable is the extraction funnel per project and pooled.
func funnelTable(out seedsExtractJSON) *output.Table {
	stages := []seeds.Stage{seeds.StageInput, seeds.StageF1, seeds.StageF2, seeds.StageScope, seeds.StageF3, seeds.StageF4, seeds.StageF5}
	t := &output.Table{Header: []string{"project", "bugs", "runtime", "%", "F3-bugs", "F3-pairs", "F4-pairs", "F5-pairs", "seeds", "seed-bugs"}}
	for _, s := range stages {
		t.Header = append(t.Header, "x-"+string(s))
	}
	for _, r := range append(append([]seeds.FunnelRow{}, out.Funnel...), out.Pooled) {
		pct := 0.0
		if r.Total > 0 {
			pct = float64(r.Runtime) * 100 / float64(r.Total)
		}
		cells := []any{r.Project, r.Total, r.Runtime, fmt.Sprintf("%.1f", pct), r.F3Bugs, r.F3Pairs, r.F4Pairs, r.F5Pairs, r.Seeds, r.SeedBugs}
		for _, s := range stages {
			cells = append(cells, r.Excluded[s])
		}
		t.Add(cells...)
	}
	return t
}

// sourceTable is the seed pool by source and type (Table 3 shape).
func sourceTable(d *seeds.Distribution) *output.Table {
	t := &output.Table{Header: []string{"source"}}
	for _, ty := range seeds.Types {
		t.Header = append(t.Header, string(ty))
	}
	t.Header = append(t.Header, "total")
	for _, r := range append(append([]seeds.SourceRow{}, d.Sources...), d.Total) {
		cells := []any{r.Benchmark}
		for _, ty := range seeds.Types {
			cells = append(cells, r.ByType[ty])
		}
		t.Add(append(cells, r.Total)...)
	}
	return t
}

// openValidator opens the F5 model through an llm.Session (cache,
// retries, budget) and returns the validator with its closer.
func openValidator(spec string, rf retryFlags) (seeds.Validator, func(), error) {
	so, err := rf.apply(llm.SessionOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("seeds extract: %w", err)
	}
	sess, err := llm.NewSession(so)
	if err != nil {
		return nil, nil, fmt.Errorf("seeds extract: --validate-with: %w", err)
	}
	m, err := sess.Open(spec)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("seeds extract: --validate-with: %w", err)
	}
	return seeds.LLMValidator{Model: m}, func() { sess.Close() }, nil
}

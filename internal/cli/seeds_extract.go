package cli

import (
	"errors"
	"fmt"
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

// seedsExtractJSON is what `seeds extract --json` prints.
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
	fl.BoolVar(&f.asJSON, "json", false, "print JSON: funnel rows, distribution, files")
	return cmd
}

func runSeedsExtract(a *app, cmd *cobra.Command, f seedsExtractFlags) error {
	if (f.defects4j == "") == (f.bugs == "") {
		return fmt.Errorf("%w: give exactly one of --defects4j DIR and --bugs FILE (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.out == "" {
		return fmt.Errorf("%w: --out FILE is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.repos == "" && f.mapping == "" {
		return fmt.Errorf("%w: --repos DIR or --mapping FILE is required to read the fixes (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.log == "" {
		f.log = strings.TrimSuffix(f.out, ".jsonl") + ".log.jsonl"
	}
	var (
		inputs   []seeds.BugInput
		problems []bench.Problem
		err      error
	)
	if f.defects4j != "" {
		inputs, problems, err = seeds.LoadDefects4J(f.defects4j, f.projects)
	} else {
		inputs, err = seeds.ReadGenericBugs(f.bugs)
	}
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "benchforge: warning: skipped %s\n", p)
	}
	finder := &seeds.RepoFinder{Dir: f.repos, MappingFile: f.mapping}
	if f.mapping != "" {
		if finder.Mapping, err = seeds.ReadMapping(f.mapping); err != nil {
			return err
		}
	}
	defer finder.Close()
	opts := seeds.ExtractOptions{Repos: finder, Scan: seeds.ScanOptions{Subclasses: f.subclasses, AnyOrigin: f.anyOrigin}, SingleMethod: f.single}
	if f.validate != "" {
		v, closeV, err := openValidator(f.validate, f.retryFlags)
		if err != nil {
			return err
		}
		defer closeV()
		opts.Validator = v
	}
	if isTerminal(a.stderr) {
		opts.Progress = func(done, total int) { fmt.Fprintf(a.stderr, "\rextracting %d/%d", done, total) }
	}
	sink, err := seeds.OpenFileSink(f.out, f.log)
	if err != nil {
		return err
	}
	for _, w := range sink.Warnings() {
		fmt.Fprintf(a.stderr, "benchforge: warning: %s\n", w)
	}
	logs, err := seeds.Extract(a.ctx, inputs, opts, sink)
	if opts.Progress != nil {
		fmt.Fprintln(a.stderr)
	}
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return reportSeedsExtract(a, f, logs, problems)
}

func reportSeedsExtract(a *app, f seedsExtractFlags, logs []seeds.BugLog, problems []bench.Problem) error {
	all, err := jsonl.ReadFile[corpus.Seed](f.out)
	if err != nil {
		return err
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
		return err
	}
	out := seedsExtractJSON{Seeds: len(pool), Problems: problems,
		Files: map[string]string{"seeds": f.out, "log": f.log, "source_bugs": idPath}}
	if out.Problems == nil {
		out.Problems = []bench.Problem{}
	}
	out.Funnel, out.Pooled = seeds.Funnel(logs)
	var ref []seeds.ReferenceEntry
	if f.reference != "" {
		out.Files["reference_set"] = f.reference
		if _, statErr := os.Stat(f.reference); statErr == nil {
			if ref, err = jsonl.ReadFile[seeds.ReferenceEntry](f.reference); err != nil {
				return err
			}
			out.Unlisted, out.Stale = seeds.CheckReference(pool, ref)
		} else if errors.Is(statErr, os.ErrNotExist) {
			if ref, err = seeds.ReferenceSet(pool); err != nil {
				return err
			}
			if err := jsonl.Rewrite(f.reference, ref); err != nil {
				return err
			}
		} else {
			return fmt.Errorf("seeds extract: --reference-set %s: %w: %v", f.reference, errs.ErrInput, statErr)
		}
	} else if ref, err = seeds.ReferenceSet(pool); err != nil {
		return err
	}
	if out.Distribution, err = seeds.Distribute(pool, ref); err != nil {
		return err
	}
	if f.asJSON {
		return writeJSON(a.stdout, out)
	}
	return writeSeedsExtractTables(a, out)
}

func writeSeedsExtractTables(a *app, out seedsExtractJSON) error {
	stages := []seeds.Stage{seeds.StageInput, seeds.StageF1, seeds.StageF2, seeds.StageScope, seeds.StageF3, seeds.StageF4, seeds.StageF5}
	t := output.Table{Header: []string{"project", "bugs", "runtime", "%", "F3-bugs", "F3-pairs", "F4-pairs", "F5-pairs", "seeds", "seed-bugs"}}
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
	if err := t.Write(a.stdout); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "\nSeed pool by source and type (rxsynth Table 3 shape):")
	d := out.Distribution
	t = output.Table{Header: []string{"source"}}
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
	if err := t.Write(a.stdout); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "\nPer type (buggy-method LLOC; reference set: LLOC <= Q3 + 1.5*IQR within type):")
	t = output.Table{Header: []string{"type", "pairs", "bugs", "projects", "lloc-median", "lloc-q1", "lloc-q3", "lloc-iqr", "fence", "reference", "ref-excluded"}}
	for _, r := range d.Types {
		t.Add(r.Type, r.Pairs, r.Bugs, r.Projects, fmt.Sprintf("%.1f", r.LLOCMedian), fmt.Sprintf("%.1f", r.LLOCQ1),
			fmt.Sprintf("%.1f", r.LLOCQ3), fmt.Sprintf("%.1f", r.LLOCIQR), fmt.Sprintf("%.1f", r.Threshold), r.Reference, r.Excluded)
	}
	if err := t.Write(a.stdout); err != nil {
		return err
	}
	if len(out.Unlisted)+len(out.Stale) > 0 {
		fmt.Fprintf(a.stdout, "\nreference set: %d seeds not listed (counted as excluded): %s; %d listed ids without a seed: %s\n",
			len(out.Unlisted), strings.Join(out.Unlisted, " "), len(out.Stale), strings.Join(out.Stale, " "))
	}
	_, err := fmt.Fprintf(a.stdout, "\n%d seeds; wrote %s, %s, %s\n", out.Seeds, out.Files["seeds"], out.Files["log"], out.Files["source_bugs"])
	return err
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

package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
)

type auditTestbedOptions struct {
	corpus []string
	out    string
	asJSON bool
	tb     testbed.QuickOptions
	eco    ecosystemOptions
}

func newAuditTestbedCmd(a *app) *cobra.Command {
	var o auditTestbedOptions
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Stage I on known membership: train an n-gram target on half the repositories and measure AUC/TPR/FPR",
		Long: `testbed reproduces the controlled setting of benchchecker §5.2 with code on
this machine: repositories are the modules of a JDK lib/src.zip and the
packages of a Python standard library (or the sub-folders of any --corpus
folder). The built-in n-gram model is trained on a seeded random
--seen-fraction of them, served on a loopback port and probed over HTTP
through the OpenAI-compatible provider; Stage I then runs on every
repository and the p-values are scored against the known labels, with the
ablations of Table 5 (without repetitiveness, distinctiveness,
context-independence) and the sequential-stopping variant. Unseen
repositories that copy a few files of a seen one show code-reuse false
positives. Defaults run in a few minutes on two cores; raise --max-repos,
--max-files and --max-queries to scale up.

With --manifest, the ecosystem testbed runs instead (package
internal/audit/testbed): the manifest's repositories are read straight
from git at their commits (--repos names the folder of clones), the
target is trained on the members plus a shared background (background
repositories, every testbed file's licence header and foreign imports, a
JDK sample) at each --capacity and --train-seeds value, and the report
gives the Table 5 ablations (tested at the full method's P0, calibrated
on the control non-members; their own recalibrated P0 is shown beside),
sequential stopping, the Table 3 logit baselines,
calibration over the non-members with Clopper-Pearson intervals, and the
issue's targets, measured; --out writes testbed.html, testbed.md and
testbed-ecosystem.json. See README "A Stage I testbed for your own model
family".`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditTestbed(a, o) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.corpus, "corpus", nil, "ZIP archive or folder of repositories (repeatable; default: the JDK src.zip and the Python stdlib)")
	f.Float64Var(&o.tb.SeenFraction, "seen-fraction", 0.5, "share of repositories the target model is trained on")
	f.Uint64Var(&o.tb.Seed, "seed", 1, "seed for the split, repository choice and sampling")
	f.StringVar(&o.out, "out", "", "folder for testbed.json, verdicts.jsonl, the probe log and training folders")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	f.IntVar(&o.tb.MaxRepos, "max-repos", 8, "repositories taken from each corpus")
	f.IntVar(&o.tb.MaxFiles, "max-files", 60, "source files kept per repository")
	f.IntVar(&o.tb.MinFiles, "min-files", 15, "skip repositories with fewer source files")
	f.IntVar(&o.tb.MaxQueries, "max-queries", 150, "signature snippets per repository and configuration")
	f.IntVar(&o.tb.Samples, "samples", 10, "candidates drawn per query (k)")
	f.IntVar(&o.tb.Reuse, "reuse", 2, "unseen repositories that copy files from a seen one")
	f.IntVar(&o.tb.Controls, "controls", 2, "unseen repositories held out to calibrate P0 (-1: per-language default P0)")
	f.IntVar(&o.tb.Order, "order", 6, "n-gram order of the target and reference models")
	f.Float64Var(&o.tb.Alpha, "alpha", 0.05, "significance level of the presence test")
	o.eco.flags(f)
	return cmd
}

func runAuditTestbed(a *app, o auditTestbedOptions) error {
	if o.tb.SeenFraction <= 0 || o.tb.SeenFraction >= 1 {
		return fmt.Errorf("audit testbed: --seen-fraction %v must be strictly between 0 and 1: %w", o.tb.SeenFraction, errs.ErrUsage)
	}
	if o.eco.manifest != "" {
		return runEcosystemTestbed(a, o)
	}
	tb, err := o.quickOptions(a)
	if err != nil {
		return err
	}
	res, err := testbed.Quick(a.ctx, tb)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeTestbedFiles(o.out, res); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, res)
	}
	return printTestbed(a.stdout, res)
}

// quickOptions are the testbed's options with the corpus (default: the
// code on this machine), the work directory --out (created) and, on a
// terminal, progress lines.
func (o auditTestbedOptions) quickOptions(a *app) (testbed.QuickOptions, error) {
	tb := o.tb
	tb.Corpus = o.corpus
	if len(tb.Corpus) == 0 {
		tb.Corpus = repoprobe.DefaultCorpus(a.ctx)
		if len(tb.Corpus) == 0 {
			return tb, fmt.Errorf("audit testbed: no JDK src.zip or Python stdlib found; pass --corpus: %w", errs.ErrNotFound)
		}
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return tb, fmt.Errorf("audit testbed: --out %s: %w", o.out, err)
		}
		tb.WorkDir = o.out
	}
	if isTerminal(a.stderr) {
		tb.Progress = func(msg string) { fmt.Fprintln(a.stderr, "testbed:", msg) }
	}
	return tb, nil
}

// printTestbed is the text output: the full method's verdict per
// repository, the figures per configuration and the calls saved.
func printTestbed(w io.Writer, res *testbed.QuickResult) error {
	t := output.Table{Header: []string{"repository", "lang", "label", "queries", "hits", "weighted", "p", "verdict", "calls"}}
	for _, r := range res.Repos {
		v := r.Verdicts[testbed.ConfigFull]
		t.Add(r.Name, r.Lang, r.Label(), v.Queries, v.Hits, fmt.Sprintf("%.2f", v.WeightedHits), fmt.Sprintf("%.3g", v.PValue), v.Verdict, v.Calls)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	s := output.Table{Header: []string{"configuration", "AUC", "TPR", "FPR", "P0", "calls", "repos"}}
	for _, c := range res.Summary {
		auc := "n/a"
		if c.AUC != nil {
			auc = fmt.Sprintf("%.3f", *c.AUC)
		}
		p0 := "default"
		if c.P0 > 0 {
			p0 = fmt.Sprintf("%.3f", c.P0)
		}
		s.Add(c.Config, auc, fmt.Sprintf("%.3f", c.TPR), fmt.Sprintf("%.3f", c.FPR), p0, c.Calls, c.Repos)
	}
	if err := s.Write(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsequential stopping used %.1f%% of fixed-n calls; %.0f s\n", 100*res.CallsSaved, res.WallSeconds)
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// writeTestbedFiles writes the full result and one RepoVerdict line per
// repository and configuration.
func writeTestbedFiles(dir string, res *testbed.QuickResult) error {
	f, err := os.Create(filepath.Join(dir, "testbed.json"))
	if err != nil {
		return fmt.Errorf("audit testbed: %w", err)
	}
	if err := writeJSON(f, res); err != nil {
		f.Close()
		return fmt.Errorf("audit testbed: write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("audit testbed: %w", err)
	}
	type row struct {
		Config string `json:"config"`
		repoprobe.RepoVerdict
	}
	var rows []row
	for _, r := range res.Repos {
		for _, c := range testbed.Configs {
			if v, ok := r.Verdicts[c]; ok {
				rows = append(rows, row{c, v})
			}
		}
	}
	return jsonl.Rewrite(filepath.Join(dir, "verdicts.jsonl"), rows)
}

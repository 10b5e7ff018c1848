package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/demo"
	"github.com/benchforge/benchforge/internal/output"
)

func newDemoCmd(a *app) *cobra.Command {
	var (
		o      demo.Options
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "demo [--out DIR] [--quick]",
		Short: "Run both jobs end to end, offline, and write one linked HTML report",
		Long: `demo shows the whole product working offline, without an API key, on what
the machine already has (the JDK's src.zip, javac/java, the Python standard
library):

  audit  builds the reference index, runs Stage I on a known-membership
         testbed (the built-in n-gram model trained on half of the JDK
         modules and stdlib packages, served on loopback and probed over
         HTTP), Stage II on git histories it builds from real JDK methods
         (a fix that persists, is reverted, is refactored), and re-scores
         two n-gram models on bugs injected into the testbed's Java
         repositories, on all vs clean samples, per difficulty;
  synth  extracts seeds from 14 real-style bug/fix pairs, runs the offline
         mutation generator, the gates, JVM verification, fidelity and the
         leakage-controlled evaluation.

DIR/report.html links the audit, synth, fidelity and evaluation pages.
A full run takes under a minute on two idle cores (a few minutes on a busy
machine); --quick about 20 seconds.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runDemo(a, o, asJSON) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "out/demo", "output folder")
	f.BoolVar(&o.Quick, "quick", false, "smaller scale everywhere (about half the time)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed for every random choice")
	f.StringSliceVar(&o.Skip, "skip", nil, "steps not to run, comma-separated (e.g. synth/verify,audit/testbed)")
	f.BoolVar(&asJSON, "json", false, "print the result summary as JSON on stdout")
	return cmd
}

func runDemo(a *app, o demo.Options, asJSON bool) error {
	plan := demo.Plan(o.Quick)
	w := a.stderr
	fmt.Fprintf(w, "benchforge demo: both jobs, offline, no API key; outputs in %s\n", o.Out)
	fmt.Fprintf(w, "It usually takes %s on two cores. Steps:\n", map[bool]string{true: "about 20 seconds", false: "under a minute (a few minutes on a busy machine)"}[o.Quick])
	for i, s := range plan {
		fmt.Fprintf(w, "  %2d. %-15s %-6s %s\n", i+1, s.Name, "~"+s.Usual, s.What)
	}
	fmt.Fprintln(w)
	o.Progress = demoProgress(w, isTerminal(w))
	res, err := demo.Run(a.ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.stdout, res)
	}
	return writeDemoSummary(a.stdout, res)
}

// demoProgress returns the progress sink: one bar per step on a terminal,
// one plain line per step start and end otherwise.
func demoProgress(w io.Writer, tty bool) func(demo.Event) {
	var bar *progressbar.ProgressBar
	return func(e demo.Event) {
		prefix := fmt.Sprintf("[%d/%d] %s", e.Step, e.Steps, e.Name)
		switch {
		case e.Finished:
			if bar != nil {
				bar.Finish()
				bar = nil
				fmt.Fprintln(w)
			}
			printStepEnd(w, prefix, e)
		case e.Done == 0 && e.Total == 0 && bar == nil:
			if !tty {
				fmt.Fprintf(w, "%s: %s\n", prefix, e.Msg)
				return
			}
			bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(prefix+": "+e.Msg),
				progressbar.OptionSpinnerType(14), progressbar.OptionClearOnFinish())
		case tty:
			if bar == nil {
				return
			}
			if e.Total > 0 {
				bar.ChangeMax(e.Total)
				bar.Set(e.Done)
			} else {
				bar.Add(1)
			}
			if e.Msg != "" {
				bar.Describe(prefix + ": " + e.Msg)
			}
		}
	}
}

// printStepEnd prints the line that ends a step.
func printStepEnd(w io.Writer, prefix string, e demo.Event) {
	if e.Skipped {
		fmt.Fprintf(w, "%s: skipped: %s\n", prefix, e.Msg)
		return
	}
	fmt.Fprintf(w, "%s: done in %.1f s\n", prefix, e.Elapsed.Seconds())
}

// writeDemoSummary prints the closing summary: the headline figures of both
// jobs, the Stage II verdicts and where every output is.
func writeDemoSummary(w io.Writer, res *demo.Result) error {
	fmt.Fprintf(w, "\nbenchforge demo finished in %.0f s\n\n", res.Seconds)
	if a := res.Audit; a != nil {
		if err := writeDemoAudit(w, a); err != nil {
			return err
		}
	}
	if s := res.Synth; s != nil {
		writeDemoSynth(w, s)
	}
	for _, st := range res.Steps {
		if st.Skipped != "" {
			fmt.Fprintf(w, "skipped %s: %s\n", st.Name, st.Skipped)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	fmt.Fprintf(w, "\nReport: %s\n", res.Report)
	fmt.Fprintf(w, "Pages:  %s\n", strings.Join(relAll(res.Out, res.Pages), ", "))
	fmt.Fprintf(w, "Audit records: %s\n", filepath.Join(res.Out, "audit"))
	fmt.Fprintf(w, "Synth records: %s\n", filepath.Join(res.Out, "synth"))
	fmt.Fprintf(w, "Everything as JSON: %s\n", filepath.Join(res.Out, "summary.json"))
	return nil
}

// writeDemoAudit prints the audit's part of the summary: Stage I, Stage II
// and the re-scoring, each when it ran.
func writeDemoAudit(w io.Writer, a *demo.Audit) error {
	if tb := a.Testbed; tb != nil {
		if err := writeDemoStage1(w, tb); err != nil {
			return err
		}
	}
	if e := a.Stage2Eval; e != nil {
		fmt.Fprintf(w, "Audit, Stage II (patch presence at the cutoff): AUC %.3f  TPR %.3f  FPR %.3f over %d samples\n", e.AUC, e.TPR, e.FPR, e.N)
		t := output.Table{Header: []string{"sample", "label", "verdict", "method", "score"}}
		for _, s := range a.Stage2 {
			t.Add(s.Sample.ID, map[bool]string{true: "present", false: "absent"}[s.Label], s.Verdict.Verdict, s.Verdict.Method, fmt.Sprintf("%.3f", s.Verdict.Score))
		}
		if err := t.Write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if x := a.Rescore; x != nil && x.Result != nil {
		return writeDemoRescore(w, x)
	}
	return nil
}

// writeDemoStage1 prints the testbed's figures per configuration and its
// verdict per repository.
func writeDemoStage1(w io.Writer, tb *testbed.QuickResult) error {
	fmt.Fprintln(w, "Audit, Stage I (repository presence, known-membership testbed):")
	t := output.Table{Header: []string{"configuration", "AUC", "TPR", "FPR", "calls", "repos"}}
	for _, c := range tb.Summary {
		auc := "n/a"
		if c.AUC != nil {
			auc = fmt.Sprintf("%.3f", *c.AUC)
		}
		t.Add(c.Config, auc, fmt.Sprintf("%.3f", c.TPR), fmt.Sprintf("%.3f", c.FPR), c.Calls, c.Repos)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	v := output.Table{Header: []string{"repository", "label", "p-value", "verdict"}}
	for _, r := range tb.Repos {
		rv := r.Verdicts[testbed.ConfigFull]
		v.Add(r.Name, r.Label(), fmt.Sprintf("%.3g", rv.PValue), rv.Verdict)
	}
	fmt.Fprintln(w)
	if err := v.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// writeDemoRescore prints the re-scoring: each model's resolution on its
// member and other repositories, then the overall table.
func writeDemoRescore(w io.Writer, x *demo.Rescore) error {
	fmt.Fprintf(w, "Audit, re-scoring on clean samples (benchchecker §6): %d mutation bugs in the testbed's Java repositories; difficulty by the demo's rule (%s)\n", x.Samples, demo.DifficultyRule)
	m := output.Table{Header: []string{"model", "resolved, member repos", "resolved, other repos"}}
	for _, md := range x.Models {
		m.Add(md.Name, fmt.Sprintf("%d/%d", md.Members.Resolved, md.Members.Total), fmt.Sprintf("%d/%d", md.NonMembers.Resolved, md.NonMembers.Total))
	}
	if err := m.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	st := x.Result.Tables()[0]
	fmt.Fprintln(w, st.Caption)
	if err := (&output.Table{Header: st.Header, Rows: st.Rows}).Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, st.Note)
	fmt.Fprintln(w)
	return nil
}

// writeDemoSynth prints the synth job's line: seeds, gated candidates and
// JVM confirmation.
func writeDemoSynth(w io.Writer, s *demo.Synth) {
	fmt.Fprintf(w, "Synth: %d seeds (%d excluded)", len(s.Seeds), len(s.Excluded))
	if s.Gate != nil {
		fmt.Fprintf(w, "; %d candidates, %d accepted by the gates", s.Gate.Total, s.Accepted)
	}
	if v := s.Verify; v != nil {
		c := v.Table.Pooled.C
		fmt.Fprintf(w, "; JVM-confirmed at the patched site %d/%d", c.K, c.N)
	}
	fmt.Fprintln(w)
}

func relAll(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if r, err := filepath.Rel(base, p); err == nil {
			out[i] = r
		} else {
			out[i] = p
		}
	}
	return out
}

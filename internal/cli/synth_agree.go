package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/judge"
)

func newSynthAgreeCmd(a *app) *cobra.Command {
	var (
		files  []string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "agree --judgements A B [C...]",
		Short: "Agreement between judge runs: acceptance per rubric, pairwise agreement and Cohen's κ (rxsynth Tables 5, 6)",
		Long: `agree reads two or more judgements.jsonl files written by 'synth validate'
(one judge model and rubric each) and prints:

  - acceptance per rubric and judge (Table 5): accepted over parseable
    judgements, with a Wilson 95% interval;
  - for every two files, on the pairs both judged parseably, the raw
    agreement and Cohen's κ on accept/reject, for all pairs and without
    IllegalStateException pairs (Table 6). Two runs of the same model under
    the same rubric are marked "repeated" (self-agreement).

Verdicts are those on the pairs as submitted, before any repair. Judgements
that returned unparseable output are excluded and counted.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := append(append([]string{}, files...), args...)
			if len(files) < 2 {
				return fmt.Errorf("synth agree: %w: --judgements needs at least two files (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			var srcs []*judge.Source
			for _, f := range files {
				s, err := judge.LoadSource(f)
				if err != nil {
					return err
				}
				srcs = append(srcs, s)
			}
			ag, err := judge.Agree(srcs)
			if err != nil {
				return err
			}
			h := a.stream("synth agree", asJSON, renderAs(printAgreement))
			return h.Summary(output.Summary{Kind: "synth_agree", Value: ag})
		},
	}
	cmd.Flags().StringArrayVar(&files, "judgements", nil, "judgements.jsonl files (two or more; also as arguments)")
	cmd.Flags().BoolVar(&asJSON, "json", false, jsonUsage)
	return cmd
}

// printAgreement prints Table 5 (acceptance per rubric and judge) and
// Table 6 (pairwise agreement and κ).
func printAgreement(w io.Writer, ag *judge.Agreement) error {
	at := output.Table{Header: []string{"rubric", "judge", "judged", "unparseable", "accepted", "95% CI"}}
	for _, x := range ag.Acceptance {
		rate, ci := fmt.Sprintf("%d (%.1f%%)", x.Accepted, 100*x.Rate), "n/a: nothing parseable"
		if x.CI != nil {
			ci = fmt.Sprintf("%.1f–%.1f", 100*x.CI.Lo, 100*x.CI.Hi)
		} else {
			rate = fmt.Sprintf("%d (n/a)", x.Accepted)
		}
		at.Add(x.Rubric, x.Source, x.Judged, x.Unparseable, rate, ci)
	}
	if err := at.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	pt := output.Table{Header: []string{"judge pair", "sample", "n", "κ", "95% CI", "agree", "dropped"}}
	for _, p := range ag.Pairs {
		pt.Add(p.A+" vs "+p.B, pairSample(p), p.N, pairKappa(p), pairKappaCI(p), fmt.Sprintf("%.1f%%", 100*p.Agree), p.Dropped)
	}
	return pt.Write(w)
}

// pairSample names the sample of an agreement row and what kind of pair
// of runs it compares.
func pairSample(p judge.PairAgreement) string {
	sample := p.Sample
	if p.Repeated {
		sample += ", repeated"
	}
	if !p.SameRub {
		sample += ", across rubrics"
	}
	return sample
}

func pairKappa(p judge.PairAgreement) string {
	if p.Kappa == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", p.Kappa.Kappa)
}

// pairKappaCI is κ's interval, or the note saying why there is none.
func pairKappaCI(p judge.PairAgreement) string {
	if p.Kappa == nil {
		return p.KappaNote
	}
	return fmt.Sprintf("%.3f–%.3f", p.Kappa.CI.Lo, p.Kappa.CI.Hi)
}

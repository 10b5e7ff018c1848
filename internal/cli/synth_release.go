package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/release"
)

// synthReleaseLong is the help of `synth release`.
const synthReleaseLong = `release packages the partitions of a synthetic corpus (rxsynth §8.1):

  core.jsonl       the validated pairs (--core), with exemplar provenance,
                   their validation and the release flags ise_low_confidence
                   and fix_introduces_label, recomputed
  excluded.jsonl   rejected candidates (--excluded, repeatable: the judge's
                   excluded.jsonl and/or the gate's rejections.jsonl) with
                   stage, category and reason
  contrast.jsonl   zero-shot pairs (--zero-shot), without validity labels
  seeds.json       the real seeds (--seeds)
  id_map.csv       identifier -> source bug, from the seeds plus --id-map
                   (CSV id,source_bug or JSONL); every example_bug_ids entry
                   must resolve
  generation.csv   per-pair generation metadata, joined with --candidates
                   and --executions when given
  schemas/         a JSON Schema (draft 2020-12) per record type
  DATASHEET.md     Gebru et al. datasheet filled with the computed counts
  MANIFEST.json    every file's sha256, size and record count, and the counts

into a new or empty --out DIR.

--validated-by says how the core was validated; each core record's
"validation": {"by": ...} names it and carries that evidence only:

  judge (default)  --core is the core.jsonl of 'synth validate'; every pair
                   needs an accepting judge, kept as the record's "judge"
                   block
  jvm              --core is the confirmed.jsonl of 'synth verify' (no
                   judge model needed) and --executions the same run's
                   executions.jsonl; every pair needs a confirmed record,
                   whose criterion (c) trigger becomes "validation.jvm":
                   JDK, input, patched-site lines and both outcomes. There
                   is no judge block, and ise_low_confidence (a judge
                   confidence flag) is always false

With --check DIR it validates a release instead: hashes, every record
against its schema, unique ids, exemplar ids in the id map, each core
record's validation against the manifest's validated_by (one method per
release; JVM evidence re-derived against the methods' patched site), flags,
and the counts in the manifest and datasheet. Every problem names file:line
and the field; the exit status is non-zero when there is one.`

// synthReleaseOptions are the flags of `synth release`.
type synthReleaseOptions struct {
	in       release.Inputs
	opts     release.Options
	iseMax   float64
	out      string
	checkDir string
	asJSON   bool
}

func newSynthReleaseCmd(a *app) *cobra.Command {
	o := &synthReleaseOptions{}
	cmd := &cobra.Command{
		Use:   "release --core FILE --seeds FILE --out DIR [--validated-by judge|jvm] | --check DIR",
		Short: "Package a validated corpus as a release with schemas, manifest and datasheet, or check one (rxsynth §8)",
		Long:  synthReleaseLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return runSynthRelease(a, cmd, o) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// addFlags declares the flags of `synth release`.
func (o *synthReleaseOptions) addFlags(fl *pflag.FlagSet) {
	in, opts := &o.in, &o.opts
	fl.StringVar(&in.Core, "core", "", "validated pairs JSONL: the judge's core.jsonl, or with --validated-by jvm synth verify's confirmed.jsonl")
	fl.StringVar(&in.ValidatedBy, "validated-by", release.ValidatedByJudge, "how the core was validated: judge (LLM judge) or jvm (JVM execution, criterion (c); needs --executions)")
	fl.StringArrayVar(&in.Excluded, "excluded", nil, "rejection log JSONL: judge excluded.jsonl or gate rejections.jsonl (repeatable)")
	fl.StringVar(&in.ZeroShot, "zero-shot", "", "zero-shot contrast pairs JSONL")
	fl.StringVar(&in.Seeds, "seeds", "", "real seed pairs JSONL")
	fl.StringVar(&in.IDMap, "id-map", "", "extra identifier -> source bug rows: CSV (id,source_bug) or JSONL")
	fl.StringVar(&in.Candidates, "candidates", "", "candidates JSONL from 'synth generate' (operator and source provenance)")
	fl.StringVar(&in.Executions, "executions", "", "JVM execution records JSONL from 'synth verify' (required with --validated-by jvm)")
	fl.StringVar(&o.out, "out", "", "release directory to create (must not exist or be empty)")
	fl.StringVar(&opts.Name, "name", "", "dataset name for the manifest and datasheet")
	fl.StringVar(&opts.Version, "version", "", "release version (default 1.0.0)")
	fl.StringVar(&opts.License, "license", "", "data licence (default CC-BY-4.0)")
	fl.StringVar(&opts.CodeLicense, "code-license", "", "SPDX licence of generated pairs with no real source (none by default: such pairs are refused); pairs from real code take their source's licence")
	fl.StringVar(&opts.Repos, "repos", "", "directory of local clones of the pairs' source repositories, where their licences are read")
	fl.Float64Var(&o.iseMax, "ise-max-confidence", 1, "flag IllegalStateException pairs accepted with at most this judge confidence (1: all, as rxsynth §8.1)")
	fl.StringVar(&o.checkDir, "check", "", "validate the release in this directory instead of building one")
	fl.BoolVar(&o.asJSON, "json", false, jsonUsage)
}

// runSynthRelease checks a release (--check) or checks the build flags and
// builds one.
func runSynthRelease(a *app, cmd *cobra.Command, o *synthReleaseOptions) error {
	if o.checkDir != "" {
		if o.in.Core != "" || o.in.Seeds != "" || o.out != "" || cmd.Flags().Changed("validated-by") {
			return fmt.Errorf("%w: --check DIR takes no build flags (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
		}
		return runReleaseCheck(a, o.checkDir, o.asJSON)
	}
	if err := o.checkBuild(cmd); err != nil {
		return err
	}
	return runReleaseBuild(a, o.in, o.out, o.opts, o.asJSON)
}

// checkBuild checks the flags of a build and sets the ISE confidence
// bound when given.
func (o *synthReleaseOptions) checkBuild(cmd *cobra.Command) error {
	in := o.in
	if in.Core == "" || in.Seeds == "" || o.out == "" {
		return fmt.Errorf("%w: --core FILE, --seeds FILE and --out DIR are required, or --check DIR (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	switch {
	case !release.ValidMethod(in.ValidatedBy):
		return fmt.Errorf("%w: --validated-by %q: want %s or %s", errs.ErrUsage, in.ValidatedBy, release.ValidatedByJudge, release.ValidatedByJVM)
	case in.ValidatedBy == release.ValidatedByJVM && in.Executions == "":
		return fmt.Errorf("%w: --validated-by jvm needs --executions FILE, the executions.jsonl of the 'synth verify' run whose confirmed.jsonl is --core", errs.ErrUsage)
	}
	if cmd.Flags().Changed("ise-max-confidence") {
		if o.iseMax < 0 || o.iseMax > 1 {
			return fmt.Errorf("%w: --ise-max-confidence %v is outside [0, 1]", errs.ErrUsage, o.iseMax)
		}
		o.opts.ISEMaxConfidence = &o.iseMax
	}
	return nil
}

// runReleaseBuild builds the release and reports a synth_release
// summary; a flag recomputed differently from the input is a warning.
func runReleaseBuild(a *app, in release.Inputs, out string, opts release.Options, asJSON bool) error {
	res, err := release.Build(a.ctx, in, out, opts)
	if err != nil {
		return err
	}
	h := a.stream("synth release", asJSON, renderAs(writeReleaseSummary))
	for _, c := range res.FlagChanges {
		if err := warnAll(h, "recomputed flag differs from the input: "+c); err != nil {
			return err
		}
	}
	return h.Summary(output.Summary{Kind: "synth_release", Value: res})
}

// releaseCheckSummary is the synth_release_check summary: the check's
// result and, for the text line, the directory.
type releaseCheckSummary struct {
	*release.CheckResult
	dir string
}

// runReleaseCheck reports the check as a synth_release_check summary even
// when it finds problems (the problems are the result), then fails.
func runReleaseCheck(a *app, dir string, asJSON bool) error {
	res, err := release.Check(a.ctx, dir)
	if err != nil {
		return err
	}
	h := a.stream("synth release", asJSON, renderAs(printReleaseCheck))
	if err := h.Summary(output.Summary{Kind: "synth_release_check", Value: releaseCheckSummary{CheckResult: res, dir: dir}}); err != nil {
		return err
	}
	if !res.OK() {
		return fmt.Errorf("check release %s: %w: %d problems", dir, errs.ErrInput, len(res.Problems))
	}
	return nil
}

// printReleaseCheck prints one line per problem, or the OK line.
func printReleaseCheck(w io.Writer, s releaseCheckSummary) error {
	for _, p := range s.Problems {
		if _, err := fmt.Fprintln(w, p.String()); err != nil {
			return err
		}
	}
	if !s.OK() {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s: OK (%d files, %d records)\n", s.dir, s.Files, s.Records)
	return err
}

func writeReleaseSummary(w io.Writer, res *release.Result) error {
	c := res.Manifest.Counts
	fmt.Fprintf(w, "release %s written to %s\n\n", res.Manifest.Version, res.Dir)
	t := output.Table{Header: []string{"type", "core", "excluded", "contrast", "seeds", "ise_low_conf", "fix_introduces_label"}}
	for _, r := range c.ByType {
		t.Add(r.Type, r.Core, r.Excluded, r.Contrast, r.Seeds, r.ISELowConfidence, r.FixIntroducesLabel)
	}
	t.Add("total", c.Core, c.Excluded, c.Contrast, c.Seeds, c.ISELowConfidence, c.FixIntroducesLabel)
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d source bugs, %d id-map rows (%d aliases); %d files in MANIFEST.json\n", c.SourceBugs, c.IDMap, c.Aliases, len(res.Manifest.Files))
	switch res.Manifest.ValidatedBy {
	case release.ValidatedByJVM:
		fmt.Fprintf(w, "core validated by jvm: %d pairs confirmed under criterion (c) (JDK %s; %s)\n", c.ValidatedByJVM, nameCounts(c.JDKs), nameCounts(c.Harnesses))
	default:
		fmt.Fprintf(w, "core validated by judge: %d pairs accepted (%s)\n", c.ValidatedByJudge, nameCounts(c.JudgeModels))
	}
	return nil
}

// nameCounts renders "a (3), b (1)", or "none" for no entries.
func nameCounts(ns []release.NameCount) string {
	if len(ns) == 0 {
		return "none"
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("%s (%d)", n.Name, n.Count)
	}
	return strings.Join(parts, ", ")
}

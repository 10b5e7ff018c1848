package jvm

import (
	"context"
	"path/filepath"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// HarnessFile is the record log of a regime's model-built run inside the
// output directory: apart from executions.jsonl, because Table 8 judges
// the criteria on the model's inputs alone.
func HarnessFile(regime string) string { return "harness-" + regime + ".jsonl" }

// HarnessConfirmedFile holds the pairs a regime's model-built harness
// confirmed by criterion (c); it is rewritten on every run.
func HarnessConfirmedFile(regime string) string { return "confirmed-" + regime + ".jsonl" }

// RunModel is Run with b's model-built harnesses instead of the boundary
// search: each pair not yet in outDir/HarnessFile(regime) gets one model
// call (cached by the model's session) and runs only the proposed inputs,
// under the same compilation, sandbox, budget and criteria. A killed run
// resumes by pair id; the records carry the regime, model, prompt hash
// and raw answer.
func RunModel(ctx context.Context, pairs []corpus.Pair, outDir string, b *Builder, opts Options) (Summary, error) {
	return runLog(ctx, pairs, filepath.Join(outDir, HarnessFile(b.Regime())),
		filepath.Join(outDir, HarnessConfirmedFile(b.Regime())), b, opts)
}

// buildAndVerify asks the model for one batch's inputs, then runs that
// batch, so a killed run loses at most a batch of (cached) answers.
func buildAndVerify(ctx context.Context, v *Verifier, b *Builder, pairs []corpus.Pair, emit func(Execution) error) error {
	for start := 0; start < len(pairs); start += v.opts.Batch {
		batch := pairs[start:min(start+v.opts.Batch, len(pairs))]
		props := make([]*ModelHarness, len(batch))
		for i, p := range batch {
			mh, err := b.Build(ctx, p)
			if err != nil {
				return err
			}
			props[i] = mh
		}
		if err := v.VerifyModel(ctx, batch, props, emit); err != nil {
			return err
		}
	}
	return nil
}

// ModelCounts summarises a model-built run's answers over its whole log.
type ModelCounts struct {
	Regime string `json:"regime"`
	// Models are the builder model ids in the log (one, unless the log
	// was continued with another model).
	Models []string `json:"models"`
	// Asked counts pairs with a model answer; NoJudgement judge-fed pairs
	// with nothing to show; Unparseable answers that could not be read;
	// Declined parsed answers proposing no input.
	Asked       int `json:"asked"`
	NoJudgement int `json:"no_judgement"`
	Unparseable int `json:"unparseable"`
	Declined    int `json:"declined"`
	// Proposed inputs in parsed answers; Dropped those that did not run
	// (arity, not an expression, javac).
	Proposed int `json:"proposed"`
	Dropped  int `json:"dropped"`
}

func countModel(recs []Execution) *ModelCounts {
	c := &ModelCounts{}
	seen := map[string]bool{}
	for _, e := range recs {
		mh := e.Harness
		if mh == nil {
			continue
		}
		c.Regime = mh.Regime
		if !seen[mh.Model] {
			seen[mh.Model] = true
			c.Models = append(c.Models, mh.Model)
		}
		if mh.NoJudgement != "" {
			c.NoJudgement++
			continue
		}
		c.addAnswer(mh)
	}
	return c
}

// addAnswer counts what the model answered for one pair it judged: asked,
// unparseable or declined, and the inputs it proposed and that dropped.
func (c *ModelCounts) addAnswer(mh *ModelHarness) {
	if mh.Raw != "" || mh.Parsed != "" || mh.Unparseable != "" {
		c.Asked++
	}
	switch {
	case mh.Unparseable != "":
		c.Unparseable++
	case mh.Parsed != "" && len(mh.Inputs) == 0:
		c.Declined++
	}
	for _, in := range mh.Inputs {
		c.Proposed++
		if in.Dropped != "" {
			c.Dropped++
		}
	}
}

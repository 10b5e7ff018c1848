package evaluate

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
)

// Measured speed (BenchmarkRun: 3,000 pairs vs 170 seeds, 5 folds × 3 run
// seeds, lr/rf/gb × {no-type, with-type} × {isolated, pair} = 180 fits of
// 100-tree models plus the real-CV, leaky and sweep fits and 10,000-resample
// bootstraps; go test -run='^$' -bench=Run -benchtime=1x
// ./internal/synth/evaluate): 14.2 s wall, 31 s user CPU, on the 2-core
// machine with nothing else running (2026-11-30), against the 60 s
// target; ml tree growing is about half the CPU, gradient-boosting loss a
// fifth, parsing 6%.
//
// Zero-shot LLM probes (§7.3 Table 13, §7.4.6 Table 18; probe.go). RunProbes
// asks each model (an llm.Model, normally from an llm.Session, which caches
// and records every call) about every real seed pair, with no training:
// the isolated-method probe shows one method and its labelled exception
// type and asks for {"defective": true|false, "confidence": c}, for both
// methods of each pair; the pair probe shows the two versions as A and B
// and asks which is defective, in both orderings (buggy first, fixed
// first; Table 18 made one randomised trial per pair, asking both measures
// the position bias directly and balances it out of the accuracy). The
// prompts are embedded templates (prompts/*.tmpl, version
// ProbeVersion, hashed into every answer). ParseIsolated / ParsePair read
// the verdict as JSON (whole, fenced or embedded in prose), else as a
// "defective: ..." line, else as an opening verdict word (yes / no, a lone
// A / B); anything else is recorded as unparseable with its raw text and
// is never guessed. Answers are appended to an append-only log keyed by
// (model, task, bug_id, side or order) as they arrive, so a killed run
// resumes without asking again; a log written under other prompts or by
// another version of an in-process model is refused. ProbeAnalysis turns
// the parsed answers into Prediction records (Training "none", score 1 or
// 0, so their ROC-AUC is balanced accuracy), so Analyze reports them like
// any other model, and computes the
// probe tables from the answers alone: per model and task the answers
// asked, unparseable and parsed (n), accuracy (k/n) with a pair-cluster
// bootstrap interval; for the isolated probe F1, specificity (fixed
// methods judged clean), precision, recall (buggy methods judged
// defective) and the share called defective; for the pair probe the
// position-conditional accuracies A / B (defective shown first / second),
// their mean, the share choosing the first method (position bias) and the
// residual no-growth stratum of §7.4.5. The two orderings of a pair are
// dependent, so no binomial test is made (§7.4.3).

// BenchmarkRun is the speed target: the full evaluation (5 folds ×
// 3 run seeds, 3,000 pairs against 170 seeds, LR/RF/GB with and without
// the type on both tasks, the real-CV baseline, the leaky diagnostic, the
// sweep and 10,000-resample bootstraps) in under 60 s on 2 cores.
func BenchmarkRun(b *testing.B) {
	seeds := fidelitytest.Seeds(170, 1)
	pairs := fidelitytest.Pairs(seeds, 3000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(context.Background(), pairs, seeds, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

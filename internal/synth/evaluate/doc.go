// Package evaluate owns the leakage-controlled detector evaluation of
// rxsynth §7: models are trained only on synthetic pairs and tested on the
// real seed pairs, with the seeds' descendants removed from training.
//
// Protocol (§7.2). MakeFolds assigns source bugs (never single pairs) to
// k folds, exception-stratified by default, shuffled by a run seed, and
// the assignment is written out (folds.jsonl). For each fold the
// identifier → source-bug table built from the seeds (ProvenanceTable:
// bug_id → source_bug, and source_bug → itself) maps every example_bug_id
// of every synthetic pair; a pair is dropped from training when any mapped
// source bug is held out (Exclude), and an id missing from the table is an
// error wrapping errs.ErrInput naming the pair and the id.
//
// Tasks and models. Features are the 7 structural metrics and 13
// constructs of internal/metrics (20 per method), optionally with a one-hot
// exception type. Isolated-method task (§7.3): train on synthetic buggy
// (1) vs fixed (0) methods, score the held-out real methods, ROC-AUC over
// the out-of-fold scores pooled per run seed. Pair task (§7.4): Δ-features
// f(first) − f(second) in both orderings, P(first is defective); accuracy
// over both orderings of every real pair, a score of exactly 0.5 counting
// ½, with a pair-cluster bootstrap interval (both orderings resampled
// together, 10,000 resamples by default). Models: L2 logistic regression
// (standardised on the training fold), random forest and gradient boosting
// from internal/ml, with and without the type.
//
// Controls: the leaky diagnostic (RF trained on the whole corpus, filter
// off), a training-size sweep of the RF in both regimes (Figure 6), the
// parameter-free repair-length sign rule (longer method = repair, ties ½),
// a Δ-feature LR trained on the other folds' real pairs, the residual
// stratum of real pairs whose repair is not longer, mean / sd / Student t
// interval across run seeds, Cohen's h against 0.5, and per-type
// exploratory tables without type-wise tests.
//
// Every statistic is computed by Analyze from Prediction records and seed
// infos alone, so predictions from elsewhere (fine-tuned encoders trained
// on ExportHF's splits, zero-shot probes run elsewhere) are analysed
// identically after ImportPredictions.
//
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
package evaluate

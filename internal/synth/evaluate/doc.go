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
package evaluate

// Package stats owns the statistics shared by the contamination audit
// (benchchecker.md) and the synthetic-corpus analysis (rxsynth.md):
//
//   - two-sample tests: Kolmogorov–Smirnov ([KS2], exact and asymptotic),
//     Mann–Whitney U ([MannWhitney], exact and normal approximation);
//   - effect sizes: Cliff's δ with Romano et al. (2006) magnitudes
//     ([CliffsDelta]), Cohen's h ([CohensH]), Cohen's κ ([CohensKappa]);
//   - proportions: Wilson score interval ([Wilson], [WilsonCC]) and the
//     exact binomial test ([BinomTest]) used by the Stage I repository
//     presence test (benchchecker §3.3);
//   - multiple testing: Benjamini–Hochberg ([BH], [BHReject]);
//   - resampling: percentile bootstrap and cluster ("pair as the unit")
//     bootstrap with a seeded PCG generator ([Bootstrap],
//     [ClusterBootstrap], rxsynth §7.4.3);
//   - classification: ROC points, ROC-AUC, rates at a threshold and the
//     Youden-optimal threshold ([ROC], [AUC], [RatesAt], [Youden]) and the
//     empirical CDF ([ECDF]);
//   - descriptives: [Mean], [SD], [Median], [Quantile] (R type 7), [IQR],
//     [Describe] and the Student t interval for a mean ([MeanCI]).
//
// Conventions. Every function validates its input and returns an error
// wrapping [errs.ErrInput] for empty samples, NaN values, mismatched
// lengths or parameters out of range; no function returns NaN silently or
// panics. Order-based procedures (KS, Mann–Whitney, Cliff's δ) accept ±Inf
// because only comparisons are made; procedures that do arithmetic on the
// values (descriptives, t interval, ROC thresholds) require finite values.
// Inputs are never modified; functions sort private copies.
//
// Sorting. Every order-based procedure sorts private copies with an LSD
// radix sort on order-preserving uint64 keys (sort.go) from 2 048 values
// up, then merges the two sorted samples once: O(n+m) after the sort.
package stats

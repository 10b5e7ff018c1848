// Package repoprobe owns Stage I of the contamination audit, the
// repository presence test of benchchecker §3.3 and §4.1: from a
// repository snapshot (a list of files; decoupled from git) it mines
// repetitive patterns, turns them into target–query pairs, filters and
// weights them into signature snippets, probes a target model through
// llm.Model and tests the hit count against a binomial null. The
// known-membership testbeds of §5.2, which train and serve a target model,
// live in internal/audit/testbed: this package needs only the model
// interface.
//
// Pipeline and definitions:
//
//   - Patterns (Mine, §4.1): code-block clones are function declarations
//     whose rename-blind token sequences (identifiers → ID, literals →
//     LIT) are clones (textsim.CloneGroups; the paper runs NiCad);
//     text duplications are comment blocks, licence headers and import
//     blocks (maximal runs of comment or import lines) clustered by SimHash
//     within a Hamming threshold (Algorithm 1, textsim.ClusterSimHash);
//     word co-occurrences are PrefixSpan patterns (PrefixSpan, Pei et al.
//     2001, implemented here with pseudo-projection) over per-file
//     sequences of distinctive words, merged per Algorithm 2 (MergeClosed:
//     a pattern absorbed by a super-pattern of equal support goes).
//     MineCooccur is that step alone; without an index (Freq nil) its
//     items are every word, as the "without distinctiveness" ablation
//     of Table 5 mines (internal/audit/testbed): Algorithm 2's
//     restriction to distinctive words is the distinctiveness criterion
//     applied to the co-occurrence targets before Select sees them.
//   - Templates and queries (BuildQueries): a clone or text pattern's
//     template is textsim.Extract over its members' tokens; a template
//     already seen is a structural duplicate. A target is a single fixed
//     word of the template (shared by all members, so repository-specific);
//     the query is the original snippet's prefix ending immediately before
//     it. Near-duplicate queries are dropped (SequenceMatcher ratio of the
//     query tails, candidates from MinHash-LSH).
//   - Filters and weights (Select): distinctiveness drops targets found in
//     more than MaxRepoFrac of the reference repositories (RepoFreq, the
//     reference index); context-independence drops targets whose entropy
//     (Entropy, Algorithm 3, scored by a reference llm.Model) is below
//     MinEntropy; each query weighs entropy / repository frequency,
//     normalised to mean 1.
//   - Probe and test (Probe): k candidates per query; a hit is a candidate
//     whose next word is the target. The p-value is the binomial upper tail
//     at P0, continuous in the weighted hit count via the regularised
//     incomplete beta (PValue). P0 comes from negative controls
//     (CalibrateP0: mean control hit rate + one SD) or DefaultP0 (§5.5:
//     Java 0.2, Python 0.08). Sequential stopping (beyond the paper) tests
//     with a mixture test martingale instead and reports an ALWAYS-VALID
//     p-value, p = 1 / max E (Ville's inequality: P(p ≤ α) ≤ α under H0
//     whenever probing stops, for every α at once), so the reported
//     p-value is that of the design run, not the stopping boundary; it
//     stops once p ≤ α (present), once E falls to β (absent: Wald's SPRT
//     acceptance boundary on the mixture, whose martingales are
//     likelihood ratios, so by Ville's inequality under the mixture of
//     alternatives it stops there with probability at most β; β = α by
//     default, and a futility stop never rejects, so the type-I error is
//     unchanged) or once hits on every remaining query could not reach α
//     (absent), marks the record StoppedEarly, and records PValueKind.
//     TestSequentialFutilityBoundsPowerLoss checks the β bound (0.020 at
//     β = 0.05 over 2,000 runs) and that a repository never hit stops
//     after half the queries curtailment alone needs.
//     TestSequentialPValueValidUnderH0 checks
//     P(p ≤ α) ≤ α over 2,000 simulated runs with random weights: 0.0155
//     at α = 0.05 and 0.0015 at α = 0.01 (the stopping boundary reported
//     before gave 0.098 and 0.042). The fixed-n p-value of Eq. 5 treats
//     the weighted hit count as a binomial count; with unequal weights it
//     is approximate (in the same simulation without stopping it rejects
//     at the rates just quoted for the boundary). Fewer than MinQueries
//     signature snippets give "insufficient", not "absent". Probes are
//     logged to a resumable JSONL file (ProbeLog), keyed by model, query
//     and sampling settings.
package repoprobe

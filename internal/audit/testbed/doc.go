// Package testbed owns the ecosystem testbed of Stage I (benchchecker
// §5.2, Tables 3 and 5): repositories of one family listed in a manifest
// at fixed commits with known membership, read straight from git, and a
// target that behaves like a pretrained model rather than a lookup table
// of its members. It trains the built-in n-gram model (internal/ngram) on
// the members plus a shared background — background repositories of the
// family, the licence header and foreign imports of every testbed file
// (Boilerplate; never a repository's own names), a JDK sample, and, when
// the manifest asks (Manifest.Snapshots, history.go), earlier states of
// the members and background repositories read from git, as a crawl
// holds a repository once per crawl — at each
// capacity (bounded order, count cutoff, n-gram budget, sub-word pieces,
// a cache that copies from the prompt, optionally also by identifier
// pieces: Capacity.Pieces), serves it on loopback
// (ngramllm.Serve, real HTTP through the openai provider), and runs, per
// training seed: Stage I under the full method, sequential stopping and
// the three ablations (repoprobe), all at the one P0 the full method's
// controls calibrate (the ablations' own recalibrated P0 is reported
// beside; each ablation turns off its criterion wherever the method
// applies it — without distinctiveness, in Select and in the
// co-occurrence mining of Algorithm 2, mineCandidates), the logit
// baselines Loss, Zlib, Min-K%
// and Ref (baselines; Ref against a smaller model trained on the target's
// own text, as Ref is used in practice, and, reported beside as an
// oracle, against a cross-fitted reference that never read the
// repository), and scores them against the labels (AUC, TPR/FPR,
// ROC). Calibration pools the non-members' p-values over seeds and flags a
// configuration whose share with p ≤ α exceeds α. Checks states the
// issue's targets with the figures measured, pass or not.
//
// Quick is the quick default testbed (JDK modules and Python stdlib
// packages from the machine; quick.go). Both testbeds depend on
// repoprobe's algorithm, not the other way round: repoprobe needs only the
// model interface.
package testbed

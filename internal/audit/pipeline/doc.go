// Package pipeline owns the end-to-end contamination audit of benchchecker
// (§3.1–§3.4): for a benchmark, a target model and its training cutoff it
// runs Stage I (repository presence, internal/audit/repoprobe) once per
// repository at the repository's cutoff snapshot, Stage II (patch presence,
// internal/audit/patchcheck) once per sample, optionally the logit baselines
// of §5.1 (internal/audit/baselines), and combines them per sample:
//
//	contaminated = repository present ∧ patch present      (§3.1)
//
// A repository with too few signature snippets (or no readable snapshot) is
// "insufficient", a patch that cannot be checked "unknown" or
// "not_applicable": such samples are not contaminated, and their verdict
// carries the flag so a reader can tell "clean" from "could not tell".
//
// Outputs, all in one directory (Files lists them): repos.jsonl (one
// RepoRecord per repository+model+cutoff, the Stage I cache), probes.jsonl
// (every probe, so an interrupted repository resumes mid-way), patch.jsonl
// (one patchcheck.Verdict per sample+cutoff), baselines.jsonl (per-sample
// baseline scores), verdicts.jsonl (the combined rescore.Verdict records of
// DESIGN.md), clean.jsonl (the benchmark minus contaminated samples: the
// original JSONL lines for JSONL inputs, generic Sample JSONL for a Defects4J
// directory), manifest.json and report.html. A rerun with the same directory
// replays every finished record and makes no model call for them.
//
// Combined score. ROC curves need one continuous score per sample whose
// decision threshold is the verdict. Each stage's evidence is mapped
// monotonically onto [0, 1] with its own decision threshold at ½ — Stage I
// from x = −log10 p: ρ₁ = x/(2x_α) below x_α = −log10 α, ½ + ½(1 − x_α/x)
// above; Stage II from the patch score s and threshold τ: s/(2τ) below τ,
// ½ + (s−τ)/(2(1−τ)) above — and the combined score is min(ρ₁, ρ₂), so
// combined ≥ ½ exactly when both stages say present (a test-verified patch
// or a verdict at a bound is clamped onto the right side of ½).
//
// Reports are rendered from the files alone (never from live state), as a
// message stream: Replay sends the directory as the records and summary a
// run emits (repo_verdict, verdict, patch_verdict, ..., audit_run), a
// report.HTML handler collects them and BuildPage renders the page. Run
// and `benchforge report --in DIR` both go through WriteReport, so
// report.html regenerates without a model call; the stream also carries
// eval-*.json (from `audit eval --stage`), rescore.json and testbed.json
// when they are in the directory.
package pipeline

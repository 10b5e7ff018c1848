// Package release owns the packaging and verification of a synthetic
// corpus release (rxsynth §8): the partitions with their record schemas,
// the identifier → source-bug map, per-pair generation metadata, the
// release flags, a manifest of hashes and counts, and a datasheet.
//
// Layout of a release directory (format "benchforge-release/2"):
//
//	core.jsonl          CorePair: validated seed-grounded pairs with
//	                    example_bug_ids, their validation and the flags
//	excluded.jsonl      ExcludedRecord: rejected candidates with stage
//	                    (gate|judge), category and reason; no provenance
//	contrast.jsonl      ContrastRecord: zero-shot pairs keyed by id, no
//	                    validity label
//	seeds.json          SeedRecord: the real seeds, a JSON array with one
//	                    element per line
//	id_map.csv          IDMapRow: id,source_bug,kind
//	generation.csv      GenerationRow: per-pair generation metadata of the
//	                    core and contrast pairs (arrays ';'-joined)
//	schemas/*.schema.json  one JSON Schema (draft 2020-12) per record type
//	DATASHEET.md        Gebru et al. sections, filled with the counts
//	MANIFEST.json       format, licences, flag threshold, every other file
//	                    with its size and sha256 and record count, counts
//
// This follows §8.1: JSONL for the pair collections, a JSON array for the
// seeds, CSV for the generation metadata and the id map, separate schemas
// per collection, and the two release flags — ise_low_confidence
// (IllegalStateException pairs at or below a confidence threshold,
// by default all of them as in the paper) and fix_introduces_label (the fix
// adds an explicit throw of the label) — recomputed on Build with
// internal/synth/judge's definitions and re-verified by Check. The datasheet
// covers the sections §8.2 names (motivation, composition, collection,
// preprocessing, uses, distribution, maintenance), with the intended and
// out-of-scope uses of §8.4.
//
// Validation. A release's core is validated one way, named in the
// manifest's validated_by and in every core record's validation.by:
//
//   - judge (the default): the core is the judge's core.jsonl and each
//     record keeps the accepting judgement as its judge block;
//   - jvm: the core is synth verify's confirmed.jsonl, for corpora validated
//     offline without a judge model. Every pair needs a confirmed record in
//     the executions file, and its criterion (c) trigger (§5.4) becomes the
//     record's validation.jvm: JDK, harness regime, input as Java source,
//     the patched-site lines of both methods, both outcomes, the search
//     effort. There is no judge block — it is absent, not faked — and so
//     ise_low_confidence, a statement about the judge's confidence, is
//     false on every such pair; the datasheet says so.
//
// The schema subset has no conditionals, so the core schema lists both
// blocks as optional; Build and Check enforce that a record carries
// exactly the block its validation.by names and the release's method, and
// Check re-derives JVM evidence: the site lines from the methods with
// jvm.PatchedSite, the buggy throw of the label inside them, the fixed
// method not throwing the label there, and a confirmed generation.csv row.
// The counts and the datasheet's collection text say how many pairs each
// method validated, with the judge models or the JDKs and harnesses.
//
// Input contract. Build reads pipeline files by their JSON field names only
// (see Inputs): the core (corpus.Pair lines: the judge's core.jsonl, or
// synth verify's confirmed.jsonl), any number of rejection logs (judge excluded.jsonl and gate
// rejections.jsonl lines, told apart by category vs cause), an optional
// zero-shot pair file, the seeds, an optional extra id map, and optional
// candidates and JVM execution logs (jvm.Execution lines, required for a
// jvm-validated core) joined by pair id.
//
// Schemas are generated from the record types by reflection (SchemaFor):
// every JSON field is a property, fields without omitempty are required,
// objects forbid other fields, and struct tags add descriptions, closed
// vocabularies (enum) and minimums. Check validates with its own validator
// for exactly that subset and refuses schemas using any other keyword, so no
// constraint is silently ignored.
package release

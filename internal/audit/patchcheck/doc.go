// Package patchcheck owns Stage II of the contamination audit: deciding
// whether a benchmark sample's gold patch persists in its repository's
// snapshot at a model's training cutoff (benchchecker §3.1 condition 2,
// §3.4, §4.2). It needs no model access.
//
// Per sample, Check runs four steps, each of which can be switched off for
// the ablation of benchchecker Table 5:
//
//  1. Preprocess (§3.4 "Patch Preprocessing"; Options.NoPreprocess). Only
//     source files of the fix are kept (tests, docs and build files are
//     dropped; a fix with nothing left is not_applicable). The buggy and
//     fixed versions of each file are normalised with internal/code
//     (comments and docstrings stripped, one statement per line, tokens
//     joined by single spaces) and diffed at that level, so formatting- and
//     comment-only edits vanish. Import/package lines and lone braces are not
//     logical lines. Languages without a front-end fall back to
//     whitespace-normalised text lines.
//  2. Blocks. The added or changed logical lines are grouped into one block
//     per enclosing function of the fixed file (top-level code is its own
//     block). A hunk that only deletes lines becomes a deletion block: it
//     passes when the deleted logic is absent from the localised function
//     while its surrounding context (two logical lines either side) is
//     present.
//  3. Localise (§3.4 "Patch Localization", §4.2 Algorithm 4;
//     Options.NoLocalize). The file is followed to the snapshot (same path;
//     else git's rename detection between the fix and the snapshot; else a
//     unique file with the same name). The patched function is found by key
//     (Class.name(param types)), else by name, else by contextual features
//     (Jaccard of the identifiers — calls, variables — of the fixed function
//     and each candidate, ≥ 0.3). Within it the fixed function's syntax tree
//     is aligned with the snapshot function's by a GumTree-style matcher
//     (gumtree.go): each patch line's aligned snapshot line is the one
//     holding most of the line's mapped tokens. Lines not aligned that way
//     are matched fuzzily within the function. When the patched function
//     is not found at all the block fails ("function:missing"): a
//     file-wide search would find common lines anywhere (§3.4). Only
//     top-level code and languages without a front-end are searched file
//     wide. Every matched line records where it came from (MatchedLine.Via).
//  4. Match (§4.2 "Embedding-Based Patch Matching"; Options.ExactOnly).
//     Exact normalised-line match first; otherwise the K nearest lines by
//     character edit distance are re-ranked by embedding cosine when an
//     Embedder is configured, else by token SequenceMatcher ratio. A line
//     whose best candidate is at least as close to the buggy line it
//     replaced as to the fixed line is scored sim·(1−sim_buggy), so a
//     reverted one-token fix does not pass for a near match. A block's
//     similarity is its minimum line score; the sample's Score is the
//     minimum block similarity, and the sample is present when Score ≥
//     Threshold (0.7, the optimum of §5.5 Figure 6).
//
// History (CheckAll; Options.NoHistory for the one-jump ablation). Step 3
// is by default replaced by internal/audit/track: the fix is anchored at
// the commit where it landed on the default branch's first-parent chain,
// each block's function is followed commit by commit to the latest
// snapshot asked for (renames, splits, moves, re-signatures, extractions),
// and the block is scored once per state of that walk on the function's
// own text (plus the functions fix lines were extracted into); the
// snapshot's verdict reads the state in force there, scored on the
// snapshot file itself. A fix landed after a snapshot is absent there
// ("fix not merged before the cutoff"). Every verdict carries the chain
// and the presence timeline (History). Lines are compared after the
// behaviour-neutral modernisation rules of rules.go (diamond, final,
// this., braces, quote style, %-format and .format to f-strings), each
// with must-match and must-not-match examples; a distinctive fix line that
// left the function but is verbatim elsewhere in the tracked file counts
// as moved within the file (0.9); a block made only of weak lines
// (break;, return null;, ≤ 3 tokens) is judged with the lines around them.
// Each fix line is also followed statement by statement along the walk
// (lines.go, CodeTracker's statement tracking): at each state its
// descendant is the same text, else the closest line that state added,
// when within the threshold (modified: the new text is kept); a step
// beyond the threshold or back to the buggy line ends the chain. A line
// scores the better of its one-jump match and its chain's weakest step,
// so years of small edits do not add up to a miss, while one rewrite
// still does. The patched function's own declaration line is judged by
// the function's identity (the walk followed it through re-signatures),
// not by its parameter types.
//
// Facts (facts.go, issue 13 item 4; Options.NoFacts, --no-facts, for the
// ablation). Line similarity cannot see a rewrite that keeps the fix's
// logic in other lines (a startsWith chain become a loop over prefixes).
// An added block's logic is therefore also read as syntax-tree facts:
// the methods called, objects created, types thrown, literals, comparisons
// as relations of their two operands (a > b read as b < a), operators
// against an operand, negations, names guarded by a condition, names used.
// A block's facts are those of the nodes starting on its added lines,
// minus every fact of the buggy function (not evidence of the fix) and
// generic ones (one-letter names, self, "", 0, 1); a line left without
// facts carries none. Each line with facts scores the share of them found
// in the descendant function (with the functions fix lines were
// extracted into); the fact score is the weakest of them: as for the line
// score, every line's logic must be kept — superseded logic removes a
// line's facts, a rewrite keeps them. A line without facts keeps its line
// score (a kept condition does not vouch for a replaced consequence). The
// evidence is used only where the line score falls short of the
// threshold, for a block of at least two facts, no line matched to its
// buggy form (a revert stays absent) and a descendant whose identity is
// known (not one localised by context alone): the block scores the
// greater of its line score and the weakest line under that rule.
// Every such block records its line_similarity and its facts (score,
// overall share, the missing ones, whether they decided). A comparison
// through a local alias (n = len(x); n == 0) is another relation: such a
// rewrite is not recognised.
//
// Test verification (§3.4 "Testing Verification"; Options.NoTests): when
// Score falls in the inconclusive band [InconclusiveLow, Threshold) and a
// TestVerifier is configured, a modified patch is built that replaces each
// patched function of the fixed file with its localised snapshot
// counterpart, diffed against the buggy file; if the verifier reports that
// the benchmark's tests pass with it, the sample is present with method
// "tests".
//
// Verdicts: present, absent, unknown (the repository, a commit or a file
// could not be read; Reason says which and the run goes on) and
// not_applicable (the fix touches no source file).
package patchcheck

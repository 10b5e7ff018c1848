package patchcheck

import (
	"context"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/runkey"
)

// Verdict values.
const (
	Present       = "present"
	Absent        = "absent"
	Unknown       = "unknown"
	NotApplicable = "not_applicable"
)

// Methods: how a present (or scored) verdict was reached.
const (
	MethodExact      = "exact"
	MethodSimilarity = "similarity"
	MethodTests      = "tests"
)

// DecisionVersion names the version of Stage II's decision logic. It is
// part of every verdict's run key, so a resumed run never reuses a verdict
// an older logic decided; bump it whenever a change can alter a verdict or
// score.
const DecisionVersion = "stage2/track-14"

// Verdict is the PatchVerdict record of DESIGN.md, one per sample and
// cutoff.
type Verdict struct {
	SampleID string `json:"sample_id"`
	// RunKey is the record's id: sample id and the hash of Settings (see
	// internal/runkey); a resumed run reuses the record only under the
	// same key.
	RunKey string `json:"run_key,omitempty"`
	// Settings are what decided the verdict: cutoff, threshold, ablation
	// switches, embedder, test options and DecisionVersion.
	Settings       runkey.Settings `json:"settings,omitempty"`
	Repo           string          `json:"repo,omitempty"`
	Cutoff         string          `json:"cutoff,omitempty"`
	SnapshotCommit string          `json:"snapshot_commit,omitempty"`
	Blocks         []Block         `json:"blocks"`
	// Score is the minimum block similarity in [0, 1]: the continuous
	// score ROC curves are drawn from.
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold"`
	Present   bool    `json:"present"`
	// Verdict is present | absent | unknown | not_applicable.
	Verdict string `json:"verdict"`
	// Method is exact | similarity | tests ("" for unknown and
	// not_applicable).
	Method string `json:"method,omitempty"`
	// Cause is why, typed (see Cause); Reason says it in words.
	Cause  Cause       `json:"cause,omitempty"`
	Reason string      `json:"reason"`
	Tests  *TestResult `json:"tests,omitempty"`
	// History is the chain the verdict was decided on (absent with
	// --no-history): the landing commit, each block's steps to the
	// snapshot, and the presence timeline.
	History *History `json:"history,omitempty"`
}

// Block is one patch block: the logical lines a fix adds to one function
// (Kind "added"), or one deletion-only hunk with its context (Kind
// "deletion").
type Block struct {
	File         string `json:"file"`
	SnapshotFile string `json:"snapshot_file,omitempty"`
	// FileVia says how the snapshot file was found: same-path, rename
	// (git rename detection), basename, or missing.
	FileVia          string `json:"file_via,omitempty"`
	Function         string `json:"function"`
	SnapshotFunction string `json:"snapshot_function,omitempty"`
	// Localized says how the search scope was chosen: function:key,
	// function:name, function:context, function:missing (the patched
	// function is gone: the block fails without a file-wide search), file
	// (top-level code, a language without a front-end, or localisation
	// switched off), or none (no snapshot file).
	Localized    string        `json:"localized"`
	Kind         string        `json:"kind"`
	PatchLines   []string      `json:"patch_lines"`
	MatchedLines []MatchedLine `json:"matched_lines"`
	Similarity   float64       `json:"similarity"`
	Passed       bool          `json:"passed"`
	// EvidenceCommit is the commit whose file the lines were matched in
	// (with history: the first commit of the tracked state in force at the
	// snapshot; the function's text is the same at the snapshot).
	EvidenceCommit string `json:"evidence_commit,omitempty"`
	// LineSimilarity is the block's line score (its weakest line) before
	// the fact evidence is taken into account; Facts is that evidence
	// (nil when not computed: a deletion, top-level code, --no-facts).
	LineSimilarity float64    `json:"line_similarity"`
	Facts          *FactScore `json:"facts,omitempty"`
	// Reason says why a tracked block has no descendant.
	Reason string `json:"reason,omitempty"`
}

// MatchedLine is the evidence for one patch line.
type MatchedLine struct {
	Patch string `json:"patch"`
	// Role is "added" for a fix line that must be present, "context" for a
	// deletion block's surrounding line, "deleted" for a line that must be
	// absent.
	Role     string `json:"role"`
	Snapshot string `json:"snapshot,omitempty"`
	// Line is the 1-based line of the snapshot file where the matched
	// logical line starts (0 when nothing matched).
	Line       int     `json:"line,omitempty"`
	Similarity float64 `json:"similarity"`
	// Via: exact-ast, exact-function, exact-file (exact match found by AST
	// alignment, in the function, in the file); ast, function, file (best
	// similar line from there); header, exact-header (the function's own
	// declaration); tracked-unchanged, tracked-modified (the line followed
	// statement by statement along the history walk); none.
	Via string `json:"via"`
	// Reverted: the best candidate is the buggy line the fix replaced.
	Reverted bool `json:"reverted,omitempty"`
	// TrackedAt is, for a tracked line, the commit of the last step that
	// changed it (git show it to see the edit).
	TrackedAt string `json:"tracked_at,omitempty"`
}

// TestResult records a test-verification run.
type TestResult struct {
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
	// Inconclusive says the run neither confirmed nor refuted the
	// snapshot (tests not run, or a control that did not hold: the gold
	// patch fails under the harness); Error says why.
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Patch        string `json:"patch,omitempty"`
}

// Embedder embeds texts as vectors; cosine similarity between them re-ranks
// match candidates (benchchecker §4.2 uses jina-code-embeddings-0.5B).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float64, error)
}

// TestVerifier runs a sample's tests against the buggy version with
// modifiedPatch applied. It is implemented by internal/audit/testverify.
type TestVerifier interface {
	Verify(ctx context.Context, sample bench.Sample, repo *gitrepo.Repo, modifiedPatch []byte) (passed bool, detail string, err error)
}

// Options configure a Checker. The zero value is the full method without an
// embedder or test verification.
type Options struct {
	// Threshold is the similarity a logical line must reach; 0 means 0.7.
	Threshold float64
	// InconclusiveLow is the lower end of the score band in which test
	// verification runs; 0 means 0.3, negative means every absent score.
	InconclusiveLow float64
	// Candidates is how many edit-distance candidates are re-ranked; 0
	// means 5.
	Candidates int
	// Ablation switches (benchchecker Table 5).
	NoPreprocess bool // compare raw, whitespace-trimmed diff lines
	NoLocalize   bool // search the whole snapshot file, no AST alignment
	ExactOnly    bool // exact normalised-line matching only
	NoTests      bool // never run test verification
	// NoHistory decides by one jump from the fix to the snapshot (the
	// localisation of benchchecker §3.4) instead of following the fix
	// through the history (internal/audit/track).
	NoHistory bool
	// NoFacts scores blocks by line similarity alone, without the fact
	// evidence of facts.go (issue 13 item 4).
	NoFacts  bool
	Embedder Embedder
	Verifier TestVerifier
}

func (o Options) threshold() float64 {
	if o.Threshold <= 0 {
		return 0.7
	}
	return o.Threshold
}

func (o Options) low() float64 {
	switch {
	case o.InconclusiveLow == 0:
		return 0.3
	case o.InconclusiveLow < 0:
		return 0
	}
	return o.InconclusiveLow
}

func (o Options) candidates() int {
	if o.Candidates <= 0 {
		return 5
	}
	return o.Candidates
}

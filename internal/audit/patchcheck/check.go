package patchcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/track"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Checker runs Stage II. It is safe for concurrent use.
type Checker struct {
	opts   Options
	emb    embedCache
	git    gitCache
	parsed *parseCache
	scopes *parseCache // scope versions of tracked functions, by content
	tr     *track.Tracker
	trees  *code.Trees // last syntax tree per file, shared with tr
}

// keptTrees bounds the incremental-parse cache (a syntax tree per file:
// the buggy, fixed and history versions of the files being checked).
const keptTrees = 1024

// parsedFiles bounds the parse cache (files; a large Java file parsed and
// normalised is a few MB). Every sample of a repository reads the same
// snapshot files at each cutoff: five cutoffs of Lang's 25-odd files must
// fit, or each sample re-parses them.
const parsedFiles = 160

// parsedScopes bounds the scope-version cache (a function or a few: tens
// of KB each).
const parsedScopes = 4096

// New returns a Checker with opts.
func New(opts Options) *Checker {
	trees := code.NewTrees(keptTrees)
	tr := track.New(sourceExtList()...)
	tr.ShareTrees(trees)
	return &Checker{opts: opts, emb: embedCache{m: map[string][]float64{}}, git: newGitCache(),
		parsed: &parseCache{max: parsedFiles}, scopes: &parseCache{max: parsedScopes}, tr: tr, trees: trees}
}

// sourceExtList is sourceExts as a sorted list.
func sourceExtList() []string {
	out := make([]string, 0, len(sourceExts))
	for e := range sourceExts {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

func errEmbedCount(want, got int) error {
	return fmt.Errorf("patchcheck: embedder returned %d vectors for %d texts: %w", got, want, errs.ErrUnavailable)
}

// fileWork is one source file of the fix with its blocks.
type fileWork struct {
	fd       *diff.FileDiff
	bug, fix *version
	blocks   []*pblock
}

// Check decides whether sample s's gold patch persists in repo at the
// snapshot commit snap. Problems with the sample (a patch that does not
// parse, a commit or file missing from the clone) give an Unknown verdict
// whose Reason says what to do; the error is reserved for cancellation and
// failures of the embedder or test verifier's infrastructure.
func (c *Checker) Check(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snap gitrepo.Commit) (Verdict, error) {
	v := Verdict{SampleID: s.ID, Repo: s.Repo, SnapshotCommit: snap.Hash, Threshold: c.opts.threshold(), Blocks: []Block{}}
	files, v, done := c.prepare(ctx, s, repo, v)
	if done {
		return v, ctx.Err()
	}
	from := s.FixCommit
	if from == "" {
		from = s.BaseCommit
	}
	snaps, score, exact, err := c.matchFiles(ctx, repo, from, snap.Hash, files, &v)
	if err != nil {
		return v, err
	}
	c.conclude(&v, score, exact, "the localised snapshot code")
	if c.wantsTests(&v) {
		if err := c.verify(ctx, s, repo, files, snaps, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

// matchFiles locates each file of the fix in snapshot snap (following it
// from commit from) and matches its blocks there, appending them to
// v.Blocks. It returns the located files, the weakest block's similarity
// and whether every line matched exactly.
func (c *Checker) matchFiles(ctx context.Context, repo *gitrepo.Repo, from, snap string, files []*fileWork, v *Verdict) ([]*snapFile, float64, bool, error) {
	score, exact := 1.0, true
	var snaps []*snapFile
	for _, fw := range files {
		sf, err := c.locateFile(ctx, repo, from, snap, fw.fd.Name())
		if err != nil {
			return nil, 0, false, err
		}
		snaps = append(snaps, sf)
		for _, pb := range fw.blocks {
			b, allExact, err := c.matchBlock(ctx, fw, pb, sf, nil)
			if err != nil {
				return nil, 0, false, err
			}
			exact = exact && allExact
			score = min(score, b.Similarity)
			v.Blocks = append(v.Blocks, b)
		}
	}
	return snaps, score, exact, nil
}

// wantsTests reports whether v, not decided present by similarity, scores
// high enough to be settled by running the tests.
func (c *Checker) wantsTests(v *Verdict) bool {
	return !v.Present && !c.opts.NoTests && c.opts.Verifier != nil && v.Score >= c.opts.low()
}

// prepare parses the gold patch and builds the blocks of each source
// file. done means v is final (not applicable, unknown, or cancelled).
func (c *Checker) prepare(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, v Verdict) ([]*fileWork, Verdict, bool) {
	fds, err := diff.ParseString(s.Patch)
	if err != nil {
		return nil, unknown(v, CauseBadPatch, fmt.Sprintf("gold patch does not parse: %v", err)), true
	}
	// Text that is no diff at all, or a diff of binary files only, gives
	// nothing to look for: unknown (counted), not "touches no source".
	if why := noTextHunks(fds); why != "" {
		return nil, unknown(v, CauseBadPatch, why+": the gold patch has no text hunks to look for; check the benchmark's patch field"), true
	}
	files, skipped := sourceFiles(fds)
	if len(files) == 0 {
		v.Verdict, v.Cause = NotApplicable, CauseNoSource
		v.Reason = fmt.Sprintf("the fix touches no source file (only tests, docs or build files: %s)", strings.Join(skipped, ", "))
		return nil, v, true
	}
	if repo == nil {
		return nil, unknown(v, CauseNoClone, "no local clone of "+s.Repo), true
	}
	nblocks, err := c.buildBlocks(ctx, s, repo, files)
	if err != nil {
		return nil, unknown(v, CauseUnreadable, err.Error()), true
	}
	if nblocks == 0 {
		v.Verdict, v.Cause = NotApplicable, CauseNoLogicChange
		v.Reason = "after preprocessing the fix changes no logical line (formatting, comments or imports only)"
		return nil, v, true
	}
	return files, v, false
}

// noTextHunks says why a parsed patch has nothing to look for ("not a
// unified diff", or binary files only), or "" when it has text hunks.
func noTextHunks(fds []*diff.FileDiff) string {
	binary := 0
	for _, fd := range fds {
		if fd.IsBinary {
			binary++
		}
	}
	switch {
	case len(fds) == 0:
		return "not a unified diff"
	case binary == len(fds):
		return "not a unified diff (binary files only)"
	}
	return ""
}

// sourceFiles splits the file diffs into work for the source files and
// the names of the others (binary, tests, docs, build files).
func sourceFiles(fds []*diff.FileDiff) (files []*fileWork, skipped []string) {
	for _, fd := range fds {
		if fd.IsBinary || !IsSource(fd.Name()) {
			skipped = append(skipped, fd.Name())
			continue
		}
		files = append(files, &fileWork{fd: fd})
	}
	return files, skipped
}

// buildBlocks reads the buggy and fixed versions of each file and cuts
// them into blocks; it returns the number of blocks.
func (c *Checker) buildBlocks(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, files []*fileWork) (int, error) {
	nblocks := 0
	for _, fw := range files {
		bug, fix, err := c.versions(ctx, s, repo, fw.fd)
		if err != nil {
			return 0, err
		}
		fw.bug, fw.fix = bug, fix
		fw.blocks = blocksOf(fw.fd.Name(), bug, fix)
		nblocks += len(fw.blocks)
	}
	return nblocks, nil
}

// conclude sets v's score, verdict, method and reason from the blocks'
// minimum similarity; where names the code the lines were matched in.
func (c *Checker) conclude(v *Verdict, score float64, exact bool, where string) {
	v.Score = round(score)
	v.Present = v.Score >= v.Threshold
	switch {
	case v.Present && exact:
		v.Verdict, v.Method, v.Cause, v.Reason = Present, MethodExact, CauseVerbatim, "every patch line occurs verbatim (normalised) in "+where
	case v.Present:
		v.Verdict, v.Method, v.Cause, v.Reason = Present, MethodSimilarity, CauseSimilar, fmt.Sprintf("every patch line has a counterpart with similarity ≥ %.2f in %s", v.Threshold, where)
	default:
		v.Verdict, v.Method = Absent, MethodSimilarity
		if c.opts.ExactOnly {
			v.Method = MethodExact
		}
		v.Cause, v.Reason = absentReason(*v)
	}
}

func unknown(v Verdict, cause Cause, reason string) Verdict {
	v.Verdict, v.Cause, v.Reason, v.Present, v.Score, v.Method = Unknown, cause, reason, false, 0, ""
	return v
}

// absentReason names the weakest block and why it failed.
func absentReason(v Verdict) (Cause, string) {
	worst := weakestFailed(v.Blocks)
	if worst < 0 {
		return CauseLinesMissing, "score below threshold"
	}
	b := v.Blocks[worst]
	where := b.File
	if b.Function != "" {
		where += " " + b.Function
	}
	switch {
	case b.FileVia == "missing":
		return CauseFileGone, fmt.Sprintf("%s: file not in the snapshot (deleted, not renamed)", b.File)
	case b.Localized == "function:missing":
		return CauseFunctionGone, fmt.Sprintf("%s: patched function not in the snapshot file (no key, name or context match)", where)
	case b.Kind == "deletion":
		return CauseDeletedKept, fmt.Sprintf("%s: deleted logic still present or context missing (score %.2f)", where, b.Similarity)
	}
	return linesCause(b), fmt.Sprintf("%s: patch lines not found (score %.2f < %.2f, localised by %s)", where, b.Similarity, v.Threshold, b.Localized)
}

// weakestFailed is the index of the failed block with the lowest
// similarity (the first of equals), or -1.
func weakestFailed(blocks []Block) int {
	worst := -1
	for i, b := range blocks {
		if !b.Passed && (worst < 0 || b.Similarity < blocks[worst].Similarity) {
			worst = i
		}
	}
	return worst
}

// linesCause is why an added block's lines were not found: reverted to
// the buggy text, its function gone in the history, or just missing.
func linesCause(b Block) Cause {
	switch {
	case reverted(b):
		return CauseReverted
	case b.Localized == "history:gone":
		return CauseFunctionGone
	}
	return CauseLinesMissing
}

// pair parses a sample's buggy and fixed file, the buggy one first, so
// that the fixed one (which the history walk starts from) is the tree
// kept for the file's next version.
func (c *Checker) pair(repo *gitrepo.Repo, old string, buggy []byte, name string, fixed []byte) (*version, *version, error) {
	bug := c.fileVersion(repo, old, buggy)
	return bug, c.fileVersion(repo, name, fixed), nil
}

// fileVersion parses src, repo's file p at some commit, incrementally from
// the last version of p parsed.
func (c *Checker) fileVersion(repo *gitrepo.Repo, p string, src []byte) *version {
	return parseVersion(c.trees, repo.GitDir()+"\x00"+p, p, src, c.opts.NoPreprocess)
}

// versions returns the buggy and fixed versions of one file of the fix.
// With a fix commit (Defects4J) the fixed file is read there and the buggy
// one obtained by reversing the patch — Defects4J's buggy version is the
// fixed revision minus the gold patch; else the buggy file is read at the
// base commit and the patch applied (SWE-bench).
func (c *Checker) versions(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, fd *diff.FileDiff) (*version, *version, error) {
	name, old := fd.Name(), fd.OldPath
	if old == "" {
		old = name
	}
	var firstErr error
	if s.FixCommit != "" && !fd.IsDeleted {
		buggy, fixed, err := atFixCommit(ctx, s.FixCommit, repo, fd)
		if err == nil {
			return c.pair(repo, old, buggy, name, fixed)
		}
		firstErr = err
	}
	if s.BaseCommit == "" {
		if firstErr == nil {
			firstErr = fmt.Errorf("sample has neither base nor fix commit")
		}
		return nil, nil, firstErr
	}
	var buggy []byte
	if !fd.IsNew {
		var err error
		if buggy, err = repo.ReadFile(ctx, s.BaseCommit, old); err != nil {
			return nil, nil, errors.Join(firstErr, fmt.Errorf("read %s at base commit %s (fetch the clone or check the commit): %w", old, short(s.BaseCommit), err))
		}
	}
	fixed, err := diff.Apply(buggy, fd, diff.ApplyOptions{})
	if err != nil {
		return nil, nil, errors.Join(firstErr, fmt.Errorf("apply gold patch to %s at base commit %s: %w", old, short(s.BaseCommit), err))
	}
	return c.pair(repo, old, buggy, name, fixed)
}

// atFixCommit reads fd's file at fix commit fix and reverse-applies the
// patch to it, returning the buggy and fixed contents.
func atFixCommit(ctx context.Context, fix string, repo *gitrepo.Repo, fd *diff.FileDiff) (buggy, fixed []byte, err error) {
	name := fd.Name()
	fixed, err = repo.ReadFile(ctx, fix, name)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s at fix commit %s (fetch the clone or check the commit): %w", name, short(fix), err)
	}
	if !fd.IsNew {
		if buggy, err = diff.Apply(fixed, diff.Reverse(fd), diff.ApplyOptions{}); err != nil {
			return nil, nil, fmt.Errorf("reverse-apply gold patch to %s at fix commit %s: %w", name, short(fix), err)
		}
	}
	return buggy, fixed, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

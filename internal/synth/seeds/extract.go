package seeds

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Stage names the step of rxsynth §3 that decided a bug or pair.
type Stage string

// Stages of the extraction funnel. StageScope is §3.1's type scope for bugs
// that F1/F2 do not drop but that fail with no in-scope type (other
// unchecked or unknown classes); StageInput is unusable benchmark metadata.
const (
	StageInput Stage = "input"
	StageF1    Stage = "F1"
	StageF2    Stage = "F2"
	StageScope Stage = "scope"
	StageF3    Stage = "F3"
	StageF4    Stage = "F4"
	StageF5    Stage = "F5"
	StageSeed  Stage = "seed" // kept
)

// BugLog is the extraction log record of one source bug: its outcome, the
// stage that excluded it and why, and the decision for every changed
// method. Every bug processed gets exactly one.
type BugLog struct {
	Bug       string      `json:"bug"`
	Benchmark string      `json:"benchmark"`
	Project   string      `json:"project"`
	Status    Status      `json:"status,omitempty"` // §3.1/F1/F2 status
	Types     []Type      `json:"types,omitempty"`  // in-scope types of its failures
	Exception Type        `json:"exception,omitempty"`
	Kept      bool        `json:"kept"`
	Stage     Stage       `json:"stage"` // excluding stage, or "seed" when kept
	Reason    string      `json:"reason"`
	Methods   []MethodLog `json:"methods,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
}

// MethodLog is the decision for one changed method of a bug.
type MethodLog struct {
	PairID string `json:"pair_id"`
	File   string `json:"file"`
	Method string `json:"method"`
	Kept   bool   `json:"kept"`
	Stage  Stage  `json:"stage"`
	Reason string `json:"reason"`
	LLOC   int    `json:"lloc,omitempty"` // of the buggy method
}

// Sink receives the extraction's records: each bug's seeds and its log.
type Sink interface {
	Emit(seeds []corpus.Seed, log BugLog) error
}

// Validator is filter F5 (rxsynth §3.2): it confirms that the buggy method
// can directly throw the labelled exception and the fix addresses that
// cause.
type Validator interface {
	Validate(ctx context.Context, s corpus.Seed) (Validation, error)
}

// Validation is a Validator's verdict.
type Validation struct {
	Accept     bool    `json:"accept"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
}

// ExtractOptions configure Extract.
type ExtractOptions struct {
	Repos     *RepoFinder
	Scan      ScanOptions
	Validator Validator // nil: F5 is not applied
	// SingleMethod reads F3 strictly: a fix that changes the bodies of
	// several methods is dropped instead of giving one pair per method.
	SingleMethod bool
	// Progress, when set, is called after each bug.
	Progress func(done, total int)
}

// Measured on Defects4J (854 active bugs, rjust/defects4j ca4a0ef metadata,
// upstream git clones under one folder (--repos); Chart's Subversion revisions and
// Closure have no clone there, so their runtime bugs are excluded at F3
// with that reason). Default options (rxsynth §3.1: exact types,
// production origin): 144 runtime bugs → 106 pass F3 → 139 seeds from 106
// bugs: NPE 43, IAE 41, AIOOBE 24, NFE 7, CCE 5, SIOOBE 11, ISE 8; the
// reference-set rule keeps 133. Before the origin rule (and with project
// subclasses), 193 seeds from 144 bugs.
// The paper's Defects4J row is 66 pairs (NPE 20, IAE 13, AIOOBE 13, NFE 6,
// CCE 4, SIOOBE 8, ISE 2) after F5 and a per-pair quality review that are
// not published; its Lang-47 gives two pairs here too. The whole run
// takes about 30 s on a loaded 2-core VM:
//
//	benchforge seeds extract --defects4j "$BENCHFORGE_SHARED_DATA/defects4j" \
//	    --repos repos --out seeds.jsonl --reference-set ref.jsonl
//
// Extract runs the seed-extraction funnel of rxsynth §3.2 over bugs:
// F1/F2 and the type scope on the failure records, F3 method pairs from
// the repository, F4 for IAE/ISE, and F5 when a Validator is set. Every
// bug ends as one BugLog (kept or excluded with stage and reason) and its
// seeds, both handed to sink; it returns the logs in input order.
// ExtractToFiles is the resumable run. Only a context cancellation or a
// sink failure stops the run.
func Extract(ctx context.Context, bugs []BugInput, opts ExtractOptions, sink Sink) ([]BugLog, error) {
	var logs []BugLog
	err := extractEach(ctx, bugs, indices(len(bugs)), opts, func(seeds []corpus.Seed, l BugLog) error {
		if err := sink.Emit(seeds, l); err != nil {
			return err
		}
		logs = append(logs, l)
		return nil
	})
	return logs, err
}

// extractEach extracts bugs[i] for each i of todo in turn, handing its
// seeds and log to emit, and reports progress over all bugs.
func extractEach(ctx context.Context, bugs []BugInput, todo []int, opts ExtractOptions, emit func([]corpus.Seed, BugLog) error) error {
	for _, i := range todo {
		in := bugs[i]
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("seeds.Extract(%s): %w", in.ID, err)
		}
		seeds, l, err := extractBug(ctx, in, opts)
		if err != nil {
			return err
		}
		if err := emit(seeds, l); err != nil {
			return fmt.Errorf("seeds.Extract(%s): %w", in.ID, err)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(bugs))
		}
	}
	return nil
}

// extractBug returns an error only for cancellation; every other failure
// is an exclusion in the log.
func extractBug(ctx context.Context, in BugInput, opts ExtractOptions) ([]corpus.Seed, BugLog, error) {
	l := BugLog{Bug: in.ID, Benchmark: in.Benchmark, Project: in.Project}
	seeds, ex, err := funnel(ctx, in, opts, &l)
	if err != nil {
		return nil, l, err
	}
	if ex != nil {
		l.Stage, l.Reason = ex.stage, ex.reason
		return nil, l, nil
	}
	l.Kept, l.Stage = true, StageSeed
	l.Reason = fmt.Sprintf("%d of %d changed methods kept", len(seeds), len(l.Methods))
	return seeds, l, nil
}

// exclusion is why a bug leaves the funnel: the stage and the reason.
type exclusion struct {
	stage  Stage
	reason string
}

func exclude(st Stage, format string, args ...any) *exclusion {
	return &exclusion{stage: st, reason: fmt.Sprintf(format, args...)}
}

// funnel runs bug in through the stages, filling l: its label (F1/F2
// and the type scope), its method pairs (F3) and each pair's decision
// (F4, F5). It returns the kept seeds, or the exclusion that ends the bug.
func funnel(ctx context.Context, in BugInput, opts ExtractOptions, l *BugLog) ([]corpus.Seed, *exclusion, error) {
	if in.Problem != "" {
		return nil, exclude(StageInput, "%s", in.Problem), nil
	}
	label, ex := bugLabel(in, opts.Scan, l)
	if ex != nil {
		return nil, ex, nil
	}
	l.Exception = label
	pairs, ex, err := methodPairs(ctx, in, opts, l)
	if err != nil {
		return nil, nil, err
	}
	if ex != nil {
		return nil, ex, nil
	}
	return pairSeeds(ctx, in, opts, label, pairs, l)
}

// bugLabel classifies the bug's failures (recording status and types in
// l) and returns its exception label: the input's, or the classified
// type of most failures; a bug without an in-scope failure is excluded.
func bugLabel(in BugInput, scan ScanOptions, l *BugLog) (Type, *exclusion) {
	bug := Classify(in.ID, in.Project, in.Failures, scan)
	l.Status, l.Types = bug.Status, bug.Types
	label := in.Exception
	if label != "" {
		if bug.Status != StatusRuntime || !slices.Contains(bug.Types, label) {
			l.Notes = append(l.Notes, fmt.Sprintf("type %s given by the input, not classified from the failure log (status %s)", label, bug.Status))
		}
		return label, nil
	}
	if ex := statusExclusion(bug); ex != nil {
		return "", ex
	}
	label = primaryType(bug, scan)
	if len(bug.Types) > 1 {
		l.Notes = append(l.Notes, fmt.Sprintf("failures have several in-scope types %v; labelled %s, the type of most failures", bug.Types, label))
	}
	return label, nil
}

// statusExclusion is the exclusion of a bug whose failures give no
// in-scope runtime type (F1, F2, the type scope), or nil.
func statusExclusion(bug Bug) *exclusion {
	switch bug.Status {
	case StatusJUnitOnly:
		return exclude(StageF1, "only JUnit artefacts fail: %s", classList(bug))
	case StatusCheckedOnly:
		return exclude(StageF2, "only checked exceptions fail: %s", classList(bug))
	case StatusUnchecked, StatusUnknown:
		return exclude(StageScope, "no failure has one of the seven in-scope types: %s", classList(bug))
	case StatusTestOrigin:
		return exclude(StageScope, "the in-scope root cause was thrown outside production code (a test class, a test framework or JDK code called from a test; --any-origin counts it): %s", classList(bug))
	}
	return nil
}

// methodPairs is filter F3: the fix's changed files from the bug's
// repository (notes in l) and their method pairs.
func methodPairs(ctx context.Context, in BugInput, opts ExtractOptions, l *BugLog) ([]MethodPair, *exclusion, error) {
	if opts.Repos == nil {
		return nil, exclude(StageF3, "no repository location given (pass --repos DIR or --mapping FILE)"), nil
	}
	repo, err := opts.Repos.Find(ctx, in.Project, in.Repo)
	if err != nil {
		return nil, exclude(StageF3, "%v", err), nil
	}
	files, notes, err := fixFiles(ctx, repo, in)
	l.Notes = append(l.Notes, notes...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("seeds.Extract(%s): %w", in.ID, ctx.Err())
		}
		return nil, exclude(StageF3, "%v", err), nil
	}
	pairs, ex := ExtractMethodPairs(files)
	if ex != nil {
		return nil, exclude(StageF3, "%s", ex.Reason), nil
	}
	if opts.SingleMethod && len(pairs) > 1 {
		var keys []string
		for _, p := range pairs {
			keys = append(keys, p.Key)
		}
		return nil, exclude(StageF3, "fix changes %d method bodies (%s); --single-method keeps one-method fixes only", len(pairs), strings.Join(keys, ", ")), nil
	}
	return pairs, nil, nil
}

// pairSeeds decides every method pair (its MethodLog added to l) and
// returns the kept seeds; with none kept, the bug is excluded at the
// furthest stage a pair reached.
func pairSeeds(ctx context.Context, in BugInput, opts ExtractOptions, label Type, pairs []MethodPair, l *BugLog) ([]corpus.Seed, *exclusion, error) {
	var seeds []corpus.Seed
	last := StageF3
	for k, p := range pairs {
		id := in.ID
		if len(pairs) > 1 {
			id = fmt.Sprintf("%s#%d", in.ID, k+1)
		}
		s, ml, err := decidePair(ctx, in, opts, label, id, p)
		if err != nil {
			return nil, nil, err
		}
		if ml.Kept {
			ml.Stage = StageSeed
			seeds = append(seeds, s)
		} else if stageRank(ml.Stage) > stageRank(last) {
			last = ml.Stage
		}
		l.Methods = append(l.Methods, ml)
	}
	if len(seeds) == 0 {
		var why []string
		for _, m := range l.Methods {
			why = append(why, m.Method+": "+m.Reason)
		}
		return nil, exclude(last, "no method pair survives: %s", strings.Join(why, "; ")), nil
	}
	return seeds, nil, nil
}

// decidePair builds the seed of method pair p (pair id id) and decides
// it: both methods parse alone, the seed record is valid, then F4 and,
// with a Validator, F5.
func decidePair(ctx context.Context, in BugInput, opts ExtractOptions, label Type, id string, p MethodPair) (corpus.Seed, MethodLog, error) {
	ml := MethodLog{PairID: id, File: p.File, Method: p.Key, Stage: StageF3}
	bm, berr := metrics.OfMethodSource([]byte(p.Buggy))
	_, ferr := metrics.OfMethodSource([]byte(p.Fixed))
	s := corpus.Seed{BugID: id, SourceBug: in.ID, Benchmark: in.Benchmark, Project: in.Project,
		Exception: label.SimpleName(), BuggyMethod: p.Buggy, FixedMethod: p.Fixed, File: p.File,
		MethodSignature: p.Signature, BuggySpan: corpus.Span{Start: p.BuggySpan[0], End: p.BuggySpan[1]},
		FixedSpan: corpus.Span{Start: p.FixedSpan[0], End: p.FixedSpan[1]}, Diff: methodDiff(p.File, p.Buggy, p.Fixed),
		Repo: in.Repo, FixedCommit: in.Fixed}
	switch {
	case berr != nil:
		ml.Reason = fmt.Sprintf("buggy method %s in %s cannot be parsed alone: %v", p.Key, p.File, berr)
	case ferr != nil:
		ml.Reason = fmt.Sprintf("fixed method %s in %s cannot be parsed alone: %v", p.Key, p.File, ferr)
	case s.Validate() != nil:
		ml.Reason = fmt.Sprintf("seed record invalid: %v", s.Validate())
	default:
		ml.LLOC = bm.Metrics.LLOC
		here := ThrownIn(in.Failures, label, opts.Scan.exact(), path.Base(p.File), p.Name, p.BuggySpan)
		d := CheckF4(label, p.Buggy, p.Fixed, here)
		ml.Stage, ml.Reason, ml.Kept = StageF4, d.Reason, d.Keep
		if d.Keep && opts.Validator != nil {
			if err := validateF5(ctx, opts.Validator, s, &ml); err != nil {
				return s, ml, fmt.Errorf("seeds.Extract(%s): %w", in.ID, err)
			}
		}
	}
	return s, ml, nil
}

// validateF5 applies filter F5 to a seed F4 kept, recording the verdict
// in ml; it returns an error only for cancellation.
func validateF5(ctx context.Context, v Validator, s corpus.Seed, ml *MethodLog) error {
	verdict, err := v.Validate(ctx, s)
	ml.Stage, ml.Kept = StageF5, false
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		ml.Reason = fmt.Sprintf("validation failed: %v", err)
	case !verdict.Accept || verdict.Confidence < MinConfidence:
		ml.Reason = fmt.Sprintf("validator rejects (accept=%t, confidence %.2f < %.2f needed): %s", verdict.Accept, verdict.Confidence, MinConfidence, verdict.Reason)
	default:
		ml.Kept, ml.Reason = true, fmt.Sprintf("validator accepts (confidence %.2f): %s", verdict.Confidence, verdict.Reason)
	}
	return nil
}

// MinConfidence is F5's acceptance threshold (rxsynth §3.2: confidence ≥ 0.7).
const MinConfidence = 0.7

func stageRank(s Stage) int {
	return slices.Index([]Stage{StageInput, StageF1, StageF2, StageScope, StageF3, StageF4, StageF5, StageSeed}, s)
}

func classList(b Bug) string {
	var cs []string
	for _, r := range b.Classes {
		cs = append(cs, r.Class)
	}
	if len(cs) == 0 {
		return "(no failure recorded)"
	}
	return strings.Join(cs, ", ")
}

// primaryType labels a bug with several in-scope types by the type of most
// of its failures (root cause per failure, as Classify); ties go to the
// earlier type in Table 3 order.
func primaryType(b Bug, opts ScanOptions) Type {
	count := map[Type]int{}
	for _, f := range b.Failures {
		one := Classify(b.ID, b.Project, []Failure{f}, opts)
		for _, t := range one.Types {
			count[t]++
		}
	}
	best := b.Types[0]
	for _, t := range b.Types {
		if count[t] > count[best] {
			best = t
		}
	}
	return best
}

// fixFiles reads the changed source files on both sides of the fix.
func fixFiles(ctx context.Context, repo *gitrepo.Repo, in BugInput) ([]FilePair, []string, error) {
	if _, err := repo.Resolve(ctx, in.Fixed); err != nil {
		return nil, nil, fmt.Errorf("fixed commit %s of %s not in %s: %w", in.Fixed, in.ID, repo.Path(), err)
	}
	if in.FixedToBuggy == nil {
		return commitFiles(ctx, repo, in)
	}
	var notes []string
	var out []FilePair
	var paths []string
	for _, fd := range in.FixedToBuggy {
		if err := unsupportedChange(fd); err != nil {
			return nil, nil, err
		}
		fp, note, err := reversedFile(ctx, repo, in, fd)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		out = append(out, fp)
		paths = append(paths, fd.OldPath)
	}
	for _, e := range in.Expected {
		if !slices.Contains(paths, e) {
			notes = append(notes, fmt.Sprintf("modified class file %s (modified_classes + dir-layout.csv) is not in the patch", e))
		}
	}
	return out, notes, nil
}

// unsupportedChange refuses a file change that is not an edit in place.
func unsupportedChange(fd *diff.FileDiff) error {
	switch {
	case fd.IsBinary:
		return fmt.Errorf("binary source change in %s", fd.Name())
	case fd.IsNew:
		return fmt.Errorf("fix adds file %s", fd.NewPath)
	case fd.IsDeleted:
		return fmt.Errorf("fix deletes file %s", fd.OldPath)
	case fd.OldPath != fd.NewPath:
		return fmt.Errorf("fix renames %s to %s", fd.NewPath, fd.OldPath)
	}
	return nil
}

// reversedFile reads fd's file at the fixed commit and applies the
// reversed fix to get the buggy side. The note says where the file was
// found when the benchmark's path is not the repository's.
func reversedFile(ctx context.Context, repo *gitrepo.Repo, in BugInput, fd *diff.FileDiff) (FilePair, string, error) {
	var note string
	p := fd.OldPath
	fixed, err := repo.ReadFile(ctx, in.Fixed, p)
	if errors.Is(err, errs.ErrNotFound) {
		// The benchmark's project root may be a subdirectory of the
		// repository (Defects4J Time's old revisions live in JodaTime/).
		if m, lerr := repo.ListFiles(ctx, in.Fixed, "**/"+p); lerr == nil && len(m) == 1 {
			note = fmt.Sprintf("%s found as %s in the repository", p, m[0])
			p = m[0]
			fixed, err = repo.ReadFile(ctx, in.Fixed, p)
		}
	}
	if err != nil {
		return FilePair{}, "", fmt.Errorf("%s at fixed commit %s: %w", p, in.Fixed, err)
	}
	buggy, err := diff.Apply(fixed, fd, diff.ApplyOptions{})
	if err != nil {
		return FilePair{}, "", fmt.Errorf("reversed fix does not apply to %s at fixed commit %s: %w", p, in.Fixed, err)
	}
	return FilePair{Path: p, Buggy: buggy, Fixed: fixed}, note, nil
}

// commitFiles compares the Java files outside test directories between the
// buggy and fixed commits.
func commitFiles(ctx context.Context, repo *gitrepo.Repo, in BugInput) ([]FilePair, []string, error) {
	if _, err := repo.Resolve(ctx, in.Buggy); err != nil {
		return nil, nil, fmt.Errorf("buggy commit %s of %s not in %s: %w", in.Buggy, in.ID, repo.Path(), err)
	}
	bl, err := productionSources(ctx, repo, in.Buggy)
	if err != nil {
		return nil, nil, err
	}
	fl, err := productionSources(ctx, repo, in.Fixed)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Equal(bl, fl) {
		return nil, nil, errors.New("the fix adds, removes or renames Java source files")
	}
	bm, err := repo.ReadFiles(ctx, in.Buggy, bl)
	if err != nil {
		return nil, nil, err
	}
	fm, err := repo.ReadFiles(ctx, in.Fixed, fl)
	if err != nil {
		return nil, nil, err
	}
	var out []FilePair
	for _, p := range bl {
		if string(bm[p]) != string(fm[p]) {
			out = append(out, FilePair{Path: p, Buggy: bm[p], Fixed: fm[p]})
		}
	}
	if len(out) == 0 {
		return nil, nil, errors.New("no Java source file outside test directories differs between the commits")
	}
	return out, nil, nil
}

// productionSources lists the Java files of rev outside test directories.
func productionSources(ctx context.Context, repo *gitrepo.Repo, rev string) ([]string, error) {
	fs, err := repo.ListFiles(ctx, rev, "**/*.java")
	var out []string
	for _, f := range fs {
		if !isTestPath(f) {
			out = append(out, f)
		}
	}
	return out, err
}

func isTestPath(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "test" || seg == "tests" || seg == "src-test" {
			return true
		}
	}
	return false
}

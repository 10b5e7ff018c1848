package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// maxFileBytes bounds the files Stage I mines (larger ones are generated
// code or data).
const maxFileBytes = 256 << 10

// globs are the source files Stage I mines for a language.
func globs(lang string) []string {
	switch lang {
	case "java":
		return []string{"**/*.java"}
	case "python":
		return []string{"**/*.py"}
	}
	return []string{"**/*.java", "**/*.py"}
}

// stage1 runs the repository presence test for the repository of s at the
// cutoff snapshot. cacheable is false for verdicts that depend on the
// environment (no clone, no snapshot) rather than on the snapshot, so a
// rerun retries them.
func (r *runner) stage1(ctx context.Context, s bench.Sample) (rec RepoRecord, cacheable bool, err error) {
	rec = RepoRecord{Lang: s.Language, Alpha: r.opts.Alpha}
	rec.Repo, rec.Model, rec.Cutoff = s.Repo, r.model, r.cutoff
	files, err := r.cutoffFiles(ctx, s, &rec)
	if err != nil {
		// rec holds the verdict (no clone, insufficient) unless the run
		// was cancelled.
		return rec, false, ctx.Err()
	}
	if len(files) == 0 {
		rec.notProbed(repoprobe.Insufficient, fmt.Sprintf("no %s source files in snapshot %s", langName(s.Language), short(rec.SnapshotCommit)))
		return rec, true, nil
	}
	qs, err := r.selectQueries(ctx, s, files, &rec)
	if err != nil {
		return rec, false, err
	}
	if err := r.probe(ctx, s, qs, &rec); err != nil {
		return rec, false, err
	}
	if err := r.repoBaselines(ctx, s, files, &rec); err != nil {
		return rec, false, err
	}
	return rec, true, nil
}

// notProbed sets the verdict of a repository Stage I could not probe:
// its p-value is 1.
func (rec *RepoRecord) notProbed(verdict, reason string) {
	rec.Verdict, rec.Reason, rec.PValue = verdict, reason, 1
}

// cutoffFiles reads the source files of s's repository at the cutoff
// snapshot into rec (the snapshot commit, the file count). When the clone
// or the snapshot cannot be had it returns the error and rec gets the
// verdict: no_clone when there is no clone, insufficient otherwise.
func (r *runner) cutoffFiles(ctx context.Context, s bench.Sample, rec *RepoRecord) ([]repoprobe.File, error) {
	repo, err := r.opts.Source.Repo(ctx, s)
	if errors.Is(err, errs.ErrNotFound) {
		rec.notProbed(repoprobe.NoClone, err.Error())
		return nil, err
	}
	if err != nil {
		rec.notProbed(repoprobe.Insufficient, fmt.Sprintf("cannot open the clone: %v", err))
		return nil, err
	}
	snap, err := repo.Snapshot(ctx, r.opts.Cutoff)
	if err != nil {
		rec.notProbed(repoprobe.Insufficient, fmt.Sprintf("no cutoff snapshot: %v", err))
		return nil, err
	}
	rec.SnapshotCommit = snap.Hash
	files, err := readSnapshot(ctx, repo, snap.Hash, s.Language, r.opts.MaxFiles)
	if err != nil {
		rec.notProbed(repoprobe.Insufficient, fmt.Sprintf("cannot read snapshot %s: %v", short(snap.Hash), err))
		return nil, err
	}
	rec.Files = len(files)
	return files, nil
}

// selectQueries mines the snapshot's files for patterns and selects the
// signature snippets to probe with (distinctive, context-independent),
// counting both in rec.
func (r *runner) selectQueries(ctx context.Context, s bench.Sample, files []repoprobe.File, rec *RepoRecord) ([]repoprobe.Query, error) {
	o := r.opts
	r.progress("stage I", 0, 0, fmt.Sprintf("%s: mining %d files at %s", s.Repo, len(files), short(rec.SnapshotCommit)))
	pats, err := repoprobe.Mine(ctx, files, repoprobe.MineOptions{Freq: o.Index, MaxRepoFrac: o.MaxRepoFrac})
	if err != nil {
		return nil, err
	}
	rec.Patterns = map[repoprobe.PatternKind]int{}
	for _, p := range pats {
		rec.Patterns[p.Kind]++
	}
	cands := repoprobe.BuildQueries(files, pats, repoprobe.QueryOptions{})
	rec.Candidates = len(cands)
	qs, st, err := repoprobe.Select(ctx, cands, repoprobe.SelectOptions{
		Freq: o.Index, MaxRepoFrac: o.MaxRepoFrac, Reference: o.Reference, MinEntropy: o.MinEntropy,
		MaxQueries: o.MaxQueries, Seed: uint64(o.Seed), NoDistinct: o.Index == nil, NoContext: o.Reference == nil,
	})
	if err != nil {
		return nil, fmt.Errorf("select signature snippets of %s: %w", s.Repo, err)
	}
	rec.Select = &st
	return qs, nil
}

// probe probes the target with the queries and puts its verdict in rec.
func (r *runner) probe(ctx context.Context, s bench.Sample, qs []repoprobe.Query, rec *RepoRecord) error {
	o := r.opts
	r.progress("stage I", 0, 0, fmt.Sprintf("%s: probing %d signature snippets", s.Repo, len(qs)))
	v, err := repoprobe.Probe(ctx, o.Target, s.Repo, qs, repoprobe.ProbeOptions{
		Samples: o.Samples, Temperature: o.Temperature, MaxTokens: o.MaxTokens, Seed: o.Seed,
		P0: o.P0, Lang: s.Language, Alpha: o.Alpha, MinQueries: o.MinQueries, Sequential: !o.FixedN,
		Log: r.probes, Cutoff: r.cutoff, SnapshotCommit: rec.SnapshotCommit,
	})
	if err != nil {
		return fmt.Errorf("probe %s: %w", s.Repo, err)
	}
	v.Model, v.Cutoff = r.model, r.cutoff
	rec.RepoVerdict = v
	return nil
}

// repoBaselines scores snippets of the snapshot's files with the logit
// baselines into rec, when they are on; a target that cannot score, or a
// text it cannot score, leaves a note instead.
func (r *runner) repoBaselines(ctx context.Context, s bench.Sample, files []repoprobe.File, rec *RepoRecord) error {
	if !r.opts.Baselines || r.scorer == nil {
		return nil
	}
	texts := make([][]byte, len(files))
	for i, f := range files {
		texts[i] = f.Content
	}
	sc, err := r.scorer.Mean(ctx, baselines.Snippets(texts, r.opts.BaselineSnippets, 40))
	switch {
	case err == nil:
		rec.Baselines = &sc
	case errors.Is(err, errs.ErrUnsupported):
		r.noScore(err)
		rec.BaselineNote = "target cannot score log-probabilities"
	case errors.Is(err, errs.ErrInput):
		rec.BaselineNote = err.Error()
	default:
		return fmt.Errorf("baselines of %s: %w", s.Repo, err)
	}
	return nil
}

// readSnapshot reads the source files of the snapshot, at most max of them
// (evenly spaced in path order), skipping files over maxFileBytes.
func readSnapshot(ctx context.Context, repo *gitrepo.Repo, rev, lang string, max int) ([]repoprobe.File, error) {
	paths, err := repo.ListFiles(ctx, rev, globs(lang)...)
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	paths = spread(paths, max)
	contents, err := repo.ReadFiles(ctx, rev, paths)
	if err != nil {
		return nil, err
	}
	var out []repoprobe.File
	for _, p := range paths {
		c, ok := contents[p]
		if !ok || len(c) == 0 || len(c) > maxFileBytes {
			continue
		}
		out = append(out, repoprobe.File{Path: p, Content: c})
	}
	return out, nil
}

// spread picks at most max of paths, evenly spaced (max ≤ 0: all).
func spread(paths []string, max int) []string {
	if max <= 0 || len(paths) <= max {
		return paths
	}
	picked := make([]string, 0, max)
	for i := 0; i < max; i++ {
		picked = append(picked, paths[i*len(paths)/max])
	}
	return picked
}

func langName(lang string) string {
	switch lang {
	case "java":
		return "Java"
	case "python":
		return "Python"
	}
	return "Java or Python"
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

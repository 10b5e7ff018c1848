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
	o := r.opts
	rec = RepoRecord{Lang: s.Language, Alpha: o.Alpha}
	rec.Repo, rec.Model, rec.Cutoff = s.Repo, r.model, r.cutoff
	insufficient := func(reason string) (RepoRecord, bool, error) {
		rec.Verdict, rec.Reason, rec.PValue = repoprobe.Insufficient, reason, 1
		return rec, false, nil
	}
	repo, err := o.Source.Repo(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return rec, false, ctx.Err()
		}
		if errors.Is(err, errs.ErrNotFound) {
			rec.Verdict, rec.Reason, rec.PValue = repoprobe.NoClone, err.Error(), 1
			return rec, false, nil
		}
		return insufficient(fmt.Sprintf("cannot open the clone: %v", err))
	}
	snap, err := repo.Snapshot(ctx, o.Cutoff)
	if err != nil {
		if ctx.Err() != nil {
			return rec, false, ctx.Err()
		}
		return insufficient(fmt.Sprintf("no cutoff snapshot: %v", err))
	}
	rec.SnapshotCommit = snap.Hash
	files, err := readSnapshot(ctx, repo, snap.Hash, s.Language, o.MaxFiles)
	if err != nil {
		if ctx.Err() != nil {
			return rec, false, ctx.Err()
		}
		return insufficient(fmt.Sprintf("cannot read snapshot %s: %v", short(snap.Hash), err))
	}
	rec.Files = len(files)
	if len(files) == 0 {
		rec.Verdict, rec.PValue = repoprobe.Insufficient, 1
		rec.Reason = fmt.Sprintf("no %s source files in snapshot %s", langName(s.Language), short(snap.Hash))
		return rec, true, nil
	}
	r.progress("stage I", 0, 0, fmt.Sprintf("%s: mining %d files at %s", s.Repo, len(files), short(snap.Hash)))
	pats, err := repoprobe.Mine(ctx, files, repoprobe.MineOptions{Freq: o.Index, MaxRepoFrac: o.MaxRepoFrac})
	if err != nil {
		return rec, false, err
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
		return rec, false, fmt.Errorf("select signature snippets of %s: %w", s.Repo, err)
	}
	rec.Select = &st
	r.progress("stage I", 0, 0, fmt.Sprintf("%s: probing %d signature snippets", s.Repo, len(qs)))
	v, err := repoprobe.Probe(ctx, o.Target, s.Repo, qs, repoprobe.ProbeOptions{
		Samples: o.Samples, Temperature: o.Temperature, MaxTokens: o.MaxTokens, Seed: o.Seed,
		P0: o.P0, Lang: s.Language, Alpha: o.Alpha, MinQueries: o.MinQueries, Sequential: !o.FixedN,
		Log: r.probes, Cutoff: r.cutoff, SnapshotCommit: snap.Hash,
	})
	if err != nil {
		return rec, false, fmt.Errorf("probe %s: %w", s.Repo, err)
	}
	v.Model, v.Cutoff = r.model, r.cutoff
	rec.RepoVerdict = v
	if o.Baselines && r.scorer != nil {
		texts := make([][]byte, len(files))
		for i, f := range files {
			texts[i] = f.Content
		}
		sc, err := r.scorer.Mean(ctx, baselines.Snippets(texts, o.BaselineSnippets, 40))
		switch {
		case err == nil:
			rec.Baselines = &sc
		case errors.Is(err, errs.ErrUnsupported):
			r.noScore(err)
			rec.BaselineNote = "target cannot score log-probabilities"
		case errors.Is(err, errs.ErrInput):
			rec.BaselineNote = err.Error()
		default:
			return rec, false, fmt.Errorf("baselines of %s: %w", s.Repo, err)
		}
	}
	return rec, true, nil
}

// readSnapshot reads the source files of the snapshot, at most max of them
// (evenly spaced in path order), skipping files over maxFileBytes.
func readSnapshot(ctx context.Context, repo *gitrepo.Repo, rev, lang string, max int) ([]repoprobe.File, error) {
	paths, err := repo.ListFiles(ctx, rev, globs(lang)...)
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	if max > 0 && len(paths) > max {
		picked := make([]string, 0, max)
		for i := 0; i < max; i++ {
			picked = append(picked, paths[i*len(paths)/max])
		}
		paths = picked
	}
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

package pipeline

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/runkey"
)

// Versions of the decision logic, part of every record's settings: bump one
// when a change to its stage can change a finished record, so a resumed run
// recomputes instead of reusing a record the new logic would not give.
const (
	// Stage1Logic: 2 reports the sequential design's p-value (repoprobe
	// PValueKind) instead of the stopping boundary.
	Stage1Logic = "stage1/2"
	// Stage2Logic is patchcheck's own decision version, so records made by
	// another Stage II (the one-jump logic before history tracking) are
	// redone, never reused.
	Stage2Logic = patchcheck.DecisionVersion
	// BaselineLogic: 1 is the first keyed baselines.
	BaselineLogic = "baselines/1"
)

// PatchRecord is one line of patch.jsonl: a Stage II verdict with the
// settings that decided it. Key is SAMPLE@HASH (runkey.Settings.ID), so a
// rerun with other settings writes new records beside the old ones instead
// of reusing them; the embedded verdict's fields stay top-level, so the
// file also reads as []patchcheck.Verdict.
type PatchRecord struct {
	Key      string          `json:"key"`
	Settings runkey.Settings `json:"settings,omitempty"`
	patchcheck.Verdict
}

// patchKey is a patch.jsonl record's id; records written before the
// settings were keyed have none and keep their old id (sample|cutoff), which
// no new record uses.
func patchKey(p PatchRecord) string {
	if p.Key != "" {
		return p.Key
	}
	return p.SampleID + "|" + p.Cutoff
}

// repoSettings are the settings that decide a Stage I record.
func (r *runner) repoSettings() runkey.Settings {
	o := r.opts
	ref := ""
	if o.Reference != nil {
		ref = o.Reference.ID()
	}
	return runkey.Settings{
		"logic": Stage1Logic, "model": r.model, "cutoff": r.cutoff, "alpha": o.Alpha, "p0": o.P0,
		"max_repo_frac": o.MaxRepoFrac, "min_entropy": o.MinEntropy, "max_queries": o.MaxQueries,
		"min_queries": o.MinQueries, "samples": o.Samples, "max_tokens": o.MaxTokens, "temperature": o.Temperature,
		"seed": o.Seed, "fixed_n": o.FixedN, "max_files": o.MaxFiles, "reference_model": ref, "reference_index": r.indexID(),
	}
}

func (r *runner) indexID() string {
	switch {
	case r.opts.Index == nil:
		return ""
	case r.opts.IndexID != "":
		return r.opts.IndexID
	}
	return "on"
}

// PatchSettings are the settings that decide a Stage II verdict at cutoff
// (RFC 3339) under o; embedder and tests name the embedding model and the
// test options ("" when off).
func PatchSettings(o patchcheck.Options, cutoff, embedder, tests string) runkey.Settings {
	th := o.Threshold
	if th <= 0 {
		th = 0.7
	}
	return runkey.Settings{
		"logic": Stage2Logic, "cutoff": cutoff, "threshold": th, "inconclusive_low": o.InconclusiveLow,
		"candidates": o.Candidates, "no_preprocess": o.NoPreprocess, "no_localize": o.NoLocalize,
		"exact_only": o.ExactOnly, "no_tests": o.NoTests, "no_history": o.NoHistory, "embedder": embedder, "tests": tests,
	}
}

func (r *runner) baselineSettings() runkey.Settings {
	ref := ""
	if r.opts.Reference != nil {
		ref = r.opts.Reference.ID()
	}
	return runkey.Settings{"logic": BaselineLogic, "model": r.model, "reference_model": ref, "min_k": r.opts.BaselineK}
}

// otherSettings summarises records of file that were made with settings
// other than now for items of this run: they are kept, not used, and the
// note names the differing settings so a user sees why they were not
// reused.
func otherSettings(file string, now runkey.Settings, old []runkey.Settings) string {
	if len(old) == 0 {
		return ""
	}
	diffs := map[string]bool{}
	for _, s := range old {
		for _, d := range now.Diff(s) {
			diffs[d] = true
		}
	}
	var ds []string
	for d := range diffs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return fmt.Sprintf("%s holds %d records made with other settings (%s); they are kept beside the new ones and not used",
		file, len(old), strings.Join(ds, "; "))
}

package pipeline

import (
	"fmt"
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
	// Stage2Logic is patchcheck's own decision version (the "decision"
	// setting), so records made by another Stage II (the one-jump logic
	// before history tracking) are redone, never reused.
	Stage2Logic = patchcheck.DecisionVersion
	// BaselineLogic: 1 is the first keyed baselines.
	BaselineLogic = "baselines/1"
)

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
	return fmt.Sprintf("%s holds %d records made with other settings (%s); they are kept beside the new ones and not used",
		file, len(old), strings.Join(settingsDiff(now, old), "; "))
}

package pipeline

import (
	"encoding/json"
	"math"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/runkey"
)

// Files of an audit directory.
const (
	FileRepos     = "repos.jsonl"
	FileProbes    = "probes.jsonl"
	FilePatch     = "patch.jsonl"
	FileBaselines = "baselines.jsonl"
	FileVerdicts  = "verdicts.jsonl"
	FileClean     = "clean.jsonl"
	FileManifest  = "manifest.json"
	FileReport    = "report.html"
	FileRescore   = "rescore.json" // written by `audit rescore --out DIR`
	FileTestbed   = "testbed.json" // written by `audit testbed --out DIR`
)

// Flags on a combined verdict.
const (
	FlagRepoInsufficient = "repo_insufficient"
	FlagNoClone          = "no_local_clone"
	FlagPatchUnknown     = "patch_unknown"
	FlagNotApplicable    = "patch_not_applicable"
	FlagNoRepoVerdict    = "no_repo_verdict"
	FlagNoPatchVerdict   = "no_patch_verdict"
)

// RepoRecord is one line of repos.jsonl: the Stage I verdict of one
// repository for one model at one cutoff, with what led to it.
type RepoRecord struct {
	Key string `json:"key"` // REPO@HASH of Settings (runkey)
	// Settings decided this record (model, cutoff, Stage I parameters,
	// reference model and index, logic version).
	Settings runkey.Settings `json:"settings,omitempty"`
	repoprobe.RepoVerdict
	Lang       string                        `json:"lang,omitempty"`
	Files      int                           `json:"files"`
	Patterns   map[repoprobe.PatternKind]int `json:"patterns,omitempty"`
	Candidates int                           `json:"candidates"`
	Select     *repoprobe.SelectStats        `json:"select,omitempty"`
	Alpha      float64                       `json:"alpha"`
	Baselines  *baselines.Scores             `json:"baselines,omitempty"`
	// BaselineNote says why there are no baseline scores.
	BaselineNote string `json:"baseline_note,omitempty"`
}

// RepoKey is the Stage I cache key of repo under settings s.
func RepoKey(repo string, s runkey.Settings) string { return s.ID(repo) }

// BaselineRecord is one line of baselines.jsonl: the baseline scores of a
// sample's gold patch (baselines.PatchText) under one target model.
type BaselineRecord struct {
	Key       string           `json:"key"` // SAMPLE@HASH of Settings
	Settings  runkey.Settings  `json:"settings,omitempty"`
	SampleID  string           `json:"sample_id"`
	Repo      string           `json:"repo"`
	Model     string           `json:"model"`
	Reference string           `json:"reference,omitempty"`
	Scores    baselines.Scores `json:"scores"`
}

// Evidence is the evidence object of a combined verdict.
type Evidence struct {
	Repo           string             `json:"repo"`
	Cutoff         string             `json:"cutoff"`
	SnapshotCommit string             `json:"snapshot_commit,omitempty"`
	RepoVerdict    string             `json:"repo_verdict"`
	PValue         float64            `json:"p_value"`
	Alpha          float64            `json:"alpha"`
	Queries        int                `json:"queries"`
	WeightedHits   float64            `json:"weighted_hits"`
	RepoReason     string             `json:"repo_reason,omitempty"`
	PatchVerdict   string             `json:"patch_verdict"`
	PatchScore     float64            `json:"patch_score"`
	PatchThreshold float64            `json:"patch_threshold"`
	PatchMethod    string             `json:"patch_method,omitempty"`
	PatchReason    string             `json:"patch_reason,omitempty"`
	RepoScore      float64            `json:"repo_score"`             // ρ₁
	PatchScoreN    float64            `json:"patch_score_normalised"` // ρ₂
	Flags          []string           `json:"flags,omitempty"`
	Baselines      map[string]float64 `json:"baselines,omitempty"` // membership-oriented
}

// RepoScore maps a Stage I p-value onto [0, 1] with the decision p ≤ α at ½
// (see the package doc).
func RepoScore(p, alpha float64) float64 {
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	if math.IsNaN(p) || p >= 1 {
		return 0
	}
	x := -math.Log10(math.Max(p, 1e-300))
	xa := -math.Log10(alpha)
	if x < xa {
		return x / (2 * xa)
	}
	return 0.5 + 0.5*(1-xa/x)
}

// PatchScore maps a Stage II score onto [0, 1] with the decision s ≥ τ at ½.
func PatchScore(s, threshold float64) float64 {
	if !(threshold > 0 && threshold < 1) {
		threshold = 0.7
	}
	if math.IsNaN(s) {
		return 0
	}
	s = math.Max(0, math.Min(1, s))
	if s < threshold {
		return s / (2 * threshold)
	}
	return 0.5 + (s-threshold)/(2*(1-threshold))
}

// side clamps a normalised score onto the side of ½ its verdict is on.
func side(r float64, present bool) float64 {
	if present {
		return math.Max(r, 0.5)
	}
	return math.Min(r, math.Nextafter(0.5, 0))
}

// Combine builds the combined verdict of one sample for model from its
// Stage I record (nil when the repository has none), its Stage II verdict
// (nil when missing) and its baseline scores (nil when none).
func Combine(sampleID, model, repo, cutoff string, alpha float64, rv *RepoRecord, pv *patchcheck.Verdict, bl *baselines.Scores) rescore.Verdict {
	ev := Evidence{Repo: repo, Cutoff: cutoff, Alpha: alpha, PValue: 1, RepoVerdict: repoprobe.Insufficient, PatchVerdict: patchcheck.Unknown}
	repoPresent, patchPresent := false, false
	if rv == nil {
		ev.Flags = append(ev.Flags, FlagNoRepoVerdict)
	} else {
		ev.SnapshotCommit = rv.SnapshotCommit
		ev.RepoVerdict, ev.PValue, ev.Queries, ev.WeightedHits, ev.RepoReason = rv.Verdict, rv.PValue, rv.Queries, rv.WeightedHits, rv.Reason
		repoPresent = rv.Present
		switch rv.Verdict {
		case repoprobe.Insufficient:
			ev.Flags = append(ev.Flags, FlagRepoInsufficient)
		case repoprobe.NoClone:
			ev.Flags = append(ev.Flags, FlagNoClone)
		}
	}
	ev.RepoScore = side(RepoScore(ev.PValue, alpha), repoPresent)
	if pv == nil {
		ev.Flags = append(ev.Flags, FlagNoPatchVerdict)
		ev.PatchThreshold = 0.7
	} else {
		ev.PatchVerdict, ev.PatchScore, ev.PatchThreshold, ev.PatchMethod, ev.PatchReason = pv.Verdict, pv.Score, pv.Threshold, pv.Method, pv.Reason
		if ev.SnapshotCommit == "" {
			ev.SnapshotCommit = pv.SnapshotCommit
		}
		patchPresent = pv.Present
		switch pv.Verdict {
		case patchcheck.Unknown:
			ev.Flags = append(ev.Flags, FlagPatchUnknown)
		case patchcheck.NotApplicable:
			ev.Flags = append(ev.Flags, FlagNotApplicable)
		}
	}
	ev.PatchScoreN = side(PatchScore(ev.PatchScore, ev.PatchThreshold), patchPresent)
	if bl != nil {
		ev.Baselines = bl.Membership()
	}
	raw, _ := json.Marshal(ev) // plain data: cannot fail
	return rescore.Verdict{
		SampleID: sampleID, Model: model,
		RepoPresent: repoPresent, PatchPresent: patchPresent,
		Contaminated: repoPresent && patchPresent,
		Score:        math.Min(ev.RepoScore, ev.PatchScoreN),
		Evidence:     raw,
	}
}

// DecodeEvidence parses a combined verdict's evidence.
func DecodeEvidence(v rescore.Verdict) (Evidence, error) {
	var ev Evidence
	if len(v.Evidence) == 0 {
		return ev, nil
	}
	err := json.Unmarshal(v.Evidence, &ev)
	return ev, err
}

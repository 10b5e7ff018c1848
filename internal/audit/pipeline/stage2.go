package pipeline

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/testverify"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/step"
)

// PatchNames name the Stage II settings that patchcheck.Options holds as
// live objects (an embedder session, a test verifier), so they can enter a
// verdict's settings and run key.
type PatchNames struct {
	Embedder    string // the embedding model spec; "" none
	TestCmd     string // the test command template; "" detected per sample
	JUnitXML    string // the JUnit XML glob read with TestCmd
	TestTimeout time.Duration
}

// PatchSettings are every setting that decides a Stage II verdict at
// cutoff under o (issue 14: a verdict is reused only when all of them are
// the same). `audit patch` and `audit run` key their verdicts by these
// alone, so the two commands reuse each other's records.
func PatchSettings(o patchcheck.Options, cutoff time.Time, n PatchNames) runkey.Settings {
	th := o.Threshold
	if th <= 0 {
		th = 0.7 // patchcheck's default: a zero flag decides as 0.7 does
	}
	s := runkey.Settings{
		"cutoff":        cutoff.UTC().Format(time.RFC3339),
		"threshold":     th,
		"no_preprocess": o.NoPreprocess,
		"no_localize":   o.NoLocalize,
		"exact_only":    o.ExactOnly,
		"no_history":    o.NoHistory,
		"embedder":      n.Embedder,
		"decision":      Stage2Logic,
	}
	if o.NoFacts {
		s["no_facts"] = true // absent at the default, as before it was a setting
	}
	if o.Candidates > 0 {
		s["candidates"] = o.Candidates // absent at the default, as before it was a setting
	}
	tests := !o.NoTests
	s["test_fallback"] = tests
	if tests {
		s["inconclusive_low"] = o.InconclusiveLow
		s["test_cmd"] = n.TestCmd
		s["junit_xml"] = n.JUnitXML
		s["test_timeout"] = n.TestTimeout.String()
		s["test_harness"] = testverify.Harness
	}
	return s
}

// PatchKey is a Stage II record's id in its log: its run key, or for a
// record written before run keys existed, its sample and cutoff (which no
// run key equals, so such a record is never reused).
func PatchKey(v patchcheck.Verdict) string {
	if v.RunKey != "" {
		return v.RunKey
	}
	return v.SampleID + "|" + v.Cutoff
}

// PatchOptions configure Patch.
type PatchOptions struct {
	// Path is the verdict log, appended to (resumable).
	Path    string
	Samples []bench.Sample
	// Cutoffs get one verdict per sample each (at least one).
	Cutoffs []time.Time
	Source  patchcheck.RepoSource
	Check   patchcheck.Options
	Names   PatchNames
	// Workers checks samples in parallel [2]; Recheck says which finished
	// verdicts are redone (unknown ones always are).
	Workers int
	Recheck runkey.Recheck
	// Noun, when set, names the records in the note of an error that
	// stops the pass (step.Spec.Noun).
	Noun string
	// Warn receives the repairs opening the log made (nil: dropped).
	Warn func(string) error
	// Start is called once, before any check, with the number of samples
	// to check; Verdict after each verdict is safe on disk, with the
	// verdicts written so far and the most this pass can write. Either
	// may be nil; an error from them stops the pass.
	Start   func(samples int) error
	Verdict func(v patchcheck.Verdict, done, total int) error
}

// PatchResult is what Patch did.
type PatchResult struct {
	// Settings are the settings of each cutoff, in Cutoffs order.
	Settings []runkey.Settings
	// Verdicts are the log's verdicts of this run's samples under this
	// run's settings, in log order.
	Verdicts []patchcheck.Verdict
	// Other are the settings of the log's other verdicts of this run's
	// samples (kept, not reused).
	Other []runkey.Settings
	// Resumed, Rechecked and Written count verdicts (step.Result).
	Resumed, Rechecked, Written int
	Warnings                    []string
}

// OtherSettings are the names of the settings in which r.Other differ
// from the first cutoff's, sorted.
func (r *PatchResult) OtherSettings() []string {
	if len(r.Settings) == 0 {
		return nil
	}
	return settingsDiff(r.Settings[0], r.Other)
}

// patchItem is one verdict to decide: a sample at one cutoff.
type patchItem struct {
	s   bench.Sample
	cut time.Time
}

// patchKeys are a run's settings by cutoff.
type patchKeys map[int64]runkey.Settings

func (k patchKeys) id(sample string, c time.Time) string { return k[c.UnixNano()].ID(sample) }

// Patch is Stage II, the one orchestration of `audit patch` and `audit
// run`: it decides every (sample, cutoff) verdict not yet final in
// o.Path, stamps each with its settings and run key, and returns the
// log's verdicts of this run. The checker decides all of a sample's
// missing cutoffs in one pass and shares a snapshot among a repository's
// samples, so the step hands it the whole to-do list (RunBatch).
func Patch(ctx context.Context, o PatchOptions) (*PatchResult, error) {
	if len(o.Cutoffs) == 0 {
		return nil, fmt.Errorf("pipeline.Patch: no cutoff: %w", errs.ErrUsage)
	}
	keys, out := patchKeys{}, &PatchResult{}
	for _, c := range o.Cutoffs {
		s := PatchSettings(o.Check, c, o.Names)
		keys[c.UnixNano()] = s
		out.Settings = append(out.Settings, s)
	}
	var items []patchItem
	for _, s := range o.Samples {
		for _, c := range o.Cutoffs {
			items = append(items, patchItem{s, c})
		}
	}
	all := o.Recheck == runkey.RecheckAll
	spec := step.Spec[patchItem, patchcheck.Verdict]{
		Path: o.Path, Key: PatchKey, Items: items, ID: func(it patchItem) string { return keys.id(it.s.ID, it.cut) },
		Retry: func(v patchcheck.Verdict) bool { return all || v.Verdict == patchcheck.Unknown },
		Warn:  o.Warn, Sync: jsonl.SyncBatch, Noun: o.Noun,
	}
	res, err := step.RunBatch(ctx, spec, func(ctx context.Context, todo []patchItem, emit step.Emit[patchcheck.Verdict]) error {
		return o.check(ctx, keys, todo, emit)
	})
	if res != nil {
		out.Resumed, out.Rechecked, out.Written, out.Warnings = res.Resumed, res.Rechecked, res.Written, res.Warnings
	}
	if err != nil {
		return out, err
	}
	out.Verdicts, out.Other = selectPatches(o.Samples, keys, res.Records)
	return out, nil
}

// check runs the checker over one pass's to-do list.
func (o PatchOptions) check(ctx context.Context, keys patchKeys, todo []patchItem, emit step.Emit[patchcheck.Verdict]) error {
	var list []bench.Sample
	listed, left := map[string]bool{}, map[string]bool{}
	for _, it := range todo {
		if !listed[it.s.ID] {
			list = append(list, it.s)
			listed[it.s.ID] = true
		}
		left[keys.id(it.s.ID, it.cut)] = true
	}
	if o.Start != nil {
		if err := o.Start(len(list)); err != nil {
			return err
		}
	}
	total, done := len(list)*len(o.Cutoffs), 0
	ro := patchcheck.RunOptions{Cutoffs: o.Cutoffs, Workers: o.Workers,
		Done: func(id string, c time.Time) bool { return !left[keys.id(id, c)] }}
	err := patchcheck.New(o.Check).Run(ctx, list, o.Source, ro, func(v patchcheck.Verdict) error {
		keys.stamp(&v, o.Cutoffs[0])
		if err := emit(v); err != nil {
			return err
		}
		done++ // Run calls emit serially
		if o.Verdict == nil {
			return nil
		}
		return o.Verdict(v, done, total)
	})
	if err != nil {
		return fmt.Errorf("stage II: %w", err)
	}
	return nil
}

// stamp gives v its settings and run key; a verdict at a cutoff the run
// did not ask for (none should be) gets the first cutoff's.
func (k patchKeys) stamp(v *patchcheck.Verdict, first time.Time) {
	c, err := time.Parse(time.RFC3339, v.Cutoff)
	s := k[c.UnixNano()]
	if err != nil || s == nil {
		s = k[first.UnixNano()]
	}
	v.Settings = s
	v.RunKey = s.ID(v.SampleID)
}

// selectPatches keeps the verdicts of this run's samples under this run's
// settings, and returns the settings of the others of the same samples.
func selectPatches(samples []bench.Sample, keys patchKeys, all []patchcheck.Verdict) ([]patchcheck.Verdict, []runkey.Settings) {
	want, ids := map[string]bool{}, map[string]bool{}
	for _, s := range samples {
		ids[s.ID] = true
		for _, st := range keys {
			want[st.ID(s.ID)] = true
		}
	}
	var mine []patchcheck.Verdict
	var other []runkey.Settings
	for _, v := range all {
		switch {
		case want[PatchKey(v)]:
			mine = append(mine, v)
		case ids[v.SampleID]:
			other = append(other, v.Settings)
		}
	}
	return mine, other
}

// settingsDiff names the settings in which any of old differs from now,
// sorted and without repeats.
func settingsDiff(now runkey.Settings, old []runkey.Settings) []string {
	diffs := map[string]bool{}
	for _, s := range old {
		for _, d := range now.Diff(s) {
			diffs[d] = true
		}
	}
	ds := make([]string, 0, len(diffs))
	for d := range diffs {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return ds
}

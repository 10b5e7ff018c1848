package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/runkey"
)

// parseCutoffs reads --cutoff: one date or several, comma-separated,
// returned sorted and without repeats.
func parseCutoffs(v string) ([]time.Time, error) {
	seen := map[int64]bool{}
	var out []time.Time
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		t, err := gitrepo.ParseTime(f)
		if err != nil {
			return nil, fmt.Errorf("--cutoff %q: %w", f, err)
		}
		if !seen[t.UnixNano()] {
			seen[t.UnixNano()] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--cutoff %q names no date", v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out, nil
}

func joinCutoffs(cs []time.Time) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.UTC().Format(time.RFC3339)
	}
	return strings.Join(s, ",")
}

// verdictKey is a verdict's record id: its run key, or for records written
// before run keys existed, the bare sample id (which no new key equals, so
// such records are never reused).
func verdictKey(v patchcheck.Verdict) string {
	if v.RunKey != "" {
		return v.RunKey
	}
	return v.SampleID
}

// patchKeys holds the settings that decide a verdict at each cutoff
// (issue 14: a verdict is reused only when all of them are the same).
type patchKeys struct {
	byCutoff map[int64]runkey.Settings
	first    runkey.Settings
}

func newPatchKeys(o auditPatchOptions, cutoffs []time.Time) patchKeys {
	k := patchKeys{byCutoff: map[int64]runkey.Settings{}}
	for i, c := range cutoffs {
		s := patchSettings(o, c)
		k.byCutoff[c.UnixNano()] = s
		if i == 0 {
			k.first = s
		}
	}
	return k
}

// patchSettings are every setting that decides a verdict at cutoff.
func patchSettings(o auditPatchOptions, cutoff time.Time) runkey.Settings {
	s := runkey.Settings{
		"cutoff":        cutoff.UTC().Format(time.RFC3339),
		"threshold":     o.threshold,
		"no_preprocess": o.noPreprocess,
		"no_localize":   o.noLocalize,
		"exact_only":    o.exactOnly,
		"no_history":    o.noHistory,
		"embedder":      o.embedder,
		"decision":      patchcheck.DecisionVersion,
	}
	tests := o.testFallback && !o.noTests
	s["test_fallback"] = tests
	if tests {
		s["inconclusive_low"] = o.low
		s["test_cmd"] = o.testCmd
		s["junit_xml"] = o.junitXML
		s["test_timeout"] = o.testTimeout.String()
	}
	return s
}

func (k patchKeys) settings(c time.Time) runkey.Settings { return k.byCutoff[c.UnixNano()] }

func (k patchKeys) id(sample string, c time.Time) string { return k.settings(c).ID(sample) }

// stamp gives v its settings and run key.
func (k patchKeys) stamp(v *patchcheck.Verdict) {
	c, err := time.Parse(time.RFC3339, v.Cutoff)
	s := k.byCutoff[c.UnixNano()]
	if err != nil || s == nil {
		s = k.first
	}
	v.Settings = s
	v.RunKey = s.ID(v.SampleID)
}

// select_ keeps the verdicts of this run's samples under this run's
// settings; the others of the same samples are counted in sum.Other with
// the settings that differ named.
func (k patchKeys) select_(sum *auditPatchSummary, samples []bench.Sample, all []patchcheck.Verdict) []patchcheck.Verdict {
	want := map[string]bool{}
	ids := map[string]bool{}
	for _, s := range samples {
		ids[s.ID] = true
		for _, st := range k.byCutoff {
			want[st.ID(s.ID)] = true
		}
	}
	diffs := map[string]bool{}
	var out []patchcheck.Verdict
	for _, v := range all {
		switch {
		case want[verdictKey(v)]:
			out = append(out, v)
		case ids[v.SampleID]:
			sum.Other++
			for _, d := range k.first.Diff(v.Settings) {
				diffs[d] = true
			}
		}
	}
	for d := range diffs {
		sum.OtherSettings = append(sum.OtherSettings, d)
	}
	sort.Strings(sum.OtherSettings)
	return out
}

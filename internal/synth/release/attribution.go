package release

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// mixedLicense is the manifest's code_license when the core pairs carry
// several licences; each record names its own.
const mixedLicense = "mixed"

// attributeCore sets every core pair's code licence and source: a pair
// from real code (its corpus.Pair source) takes the licence read from that
// repository at that commit; a pair without one takes opts.CodeLicense,
// and without that the build fails naming the pairs — the release does
// not label code it cannot attribute.
func attributeCore(ctx context.Context, r *records, l *loaded, in Inputs, opts Options) error {
	a := &attributor{cache: map[string]Attribution{}, find: func(repo string) (string, error) {
		if opts.Repos == "" {
			return "", fmt.Errorf("%w: pairs come from %s; pass --repos DIR holding its clone so its licence can be read", errs.ErrUsage, repo)
		}
		return jvm.FindGitDir(opts.Repos, repo)
	}}
	src := map[string]int{}
	for i, lp := range l.core {
		src[lp.Rec.PairID] = i
	}
	var unattributed []string
	for i := range r.Core {
		cp := &r.Core[i]
		lp := l.core[src[cp.PairID]]
		s := lp.Rec.Source
		if s == nil {
			if opts.CodeLicense == "" {
				unattributed = append(unattributed, cp.PairID)
			}
			cp.CodeLicense = opts.CodeLicense
			continue
		}
		at, err := a.attribute(ctx, s.Repo, s.Commit, s.Path)
		if err != nil {
			return fmt.Errorf("release: %s:%d: pair %s: %w", in.Core, lp.Line, cp.PairID, err)
		}
		cp.CodeLicense = at.License
		cp.Source = &CoreSource{Repo: s.Repo, Commit: s.Commit, Path: s.Path, Method: s.Method, Start: s.Span.Start, End: s.Span.End,
			Operator: s.Operator, Seed: s.Seed, Evidence: at.Evidence}
	}
	if len(unattributed) > 0 {
		return fmt.Errorf("release: %w: %d core pairs have no real source to read a licence from (first %s); pass --code-license SPDX to license generated code, or give the pairs their source",
			errs.ErrUsage, len(unattributed), strings.Join(unattributed[:min(3, len(unattributed))], ", "))
	}
	return nil
}

// codeLicense is the manifest's code licence: the one licence of every core
// pair, or "mixed".
func codeLicense(c Counts) string {
	switch len(c.CodeLicenses) {
	case 0:
		return ""
	case 1:
		return c.CodeLicenses[0].Name
	}
	return mixedLicense
}

func licenseCounts(core []CorePair) []NameCount {
	m := map[string]int{}
	for _, p := range core {
		m[p.CodeLicense]++
	}
	return nameCounts(m)
}

// jvmExclusions are the executed candidates a JVM-validated release does
// not ship: every execution record that is neither core nor already
// excluded, with the criterion of rxsynth §5.4 it failed first.
func jvmExclusions(r *records, l *loaded) []ExcludedRecord {
	have := recordIDs(r)
	var ids []string
	for id := range l.executions {
		if !have[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []ExcludedRecord
	for _, id := range ids {
		e := l.executions[id].Rec
		out = append(out, ExcludedRecord{PairID: id, Partition: PartExcluded, ErrorType: e.ErrorType, Stage: StageJVM,
			Category: "jvm_unconfirmed_" + failedCriterion(e), Reason: e.Reason, Generator: l.candidates[id].Generator})
	}
	return out
}

// failedCriterion names the first §5.4 step an execution did not pass.
func failedCriterion(e jvm.Execution) string {
	switch {
	case !e.Compile.OK:
		return "compile"
	case !e.Criteria.A:
		return "a"
	case !e.Criteria.C:
		return "c"
	}
	return "confirmed_not_in_core"
}

// accountFor checks that every generated candidate (--candidates) ends in
// the core or the excluded records, so the release's counts add up.
func accountFor(r *records, l *loaded, in Inputs) error {
	if len(l.candidates) == 0 {
		return nil
	}
	have := recordIDs(r)
	var missing []string
	for id := range l.candidates {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("release: %w: %d candidates of %s are neither core nor excluded (first %s); add the rejection logs (--excluded) or the JVM records (--executions) that decided them",
		errs.ErrInput, len(missing), in.Candidates, strings.Join(missing[:min(3, len(missing))], ", "))
}

// recordIDs are the pair ids of the core and excluded records.
func recordIDs(r *records) map[string]bool {
	have := map[string]bool{}
	for _, p := range r.Core {
		have[p.PairID] = true
	}
	for _, e := range r.Excluded {
		have[e.PairID] = true
	}
	return have
}

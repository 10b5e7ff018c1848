package testverify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// Harness names the version of the test-verification harness (how the
// buggy version is built, the runners, the gold control). It enters the
// settings of every Stage II record decided with --test-fallback, so a
// resumed run does not reuse a verdict an older harness decided.
const Harness = "testverify/2 (gold control, Defects4J fix-minus-gold tree, javac runner)"

// goldRun is the outcome of one sample's gold control.
type goldRun struct {
	detail string
	err    error
}

// goldCheck runs the gold patch through the same harness as the modified
// patch: if the listed tests do not all pass with the benchmark's own fix
// in place, the harness cannot tell a fix from a non-fix for this sample
// (a JDK newer than the project, a library Debian lacks, a test that
// needs the network), so a failure of the modified patch would say
// nothing. Then Verify's answer is inconclusive (ErrInconclusive), with the
// control's outcome as its reason, never "failed". The outcome is cached
// per sample and base commit for the Verifier's life (several cutoffs of
// one sample share it).
func (v *Verifier) goldCheck(ctx context.Context, op string, s bench.Sample, repo *gitrepo.Repo, hash string, tests []string) (string, error) {
	key := s.ID + "\x00" + hash
	v.goldMu.Lock()
	if c, ok := v.goldRuns[key]; ok {
		v.goldMu.Unlock()
		return c.detail, c.err
	}
	v.goldMu.Unlock()
	c := v.runGold(ctx, op, s, repo, hash, tests)
	if ctx.Err() != nil {
		return c.detail, c.err
	}
	v.goldMu.Lock()
	if v.goldRuns == nil {
		v.goldRuns = map[string]goldRun{}
	}
	v.goldRuns[key] = c
	v.goldMu.Unlock()
	return c.detail, c.err
}

// runGold applies the gold patch in a fresh work tree and runs the
// tests; a nil error means every test passed.
func (v *Verifier) runGold(ctx context.Context, op string, s bench.Sample, repo *gitrepo.Repo, hash string, tests []string) goldRun {
	if strings.TrimSpace(s.Patch) == "" {
		return goldRun{"gold control: the sample has no gold patch", fmt.Errorf("%s: gold control: the sample has no gold patch to check the harness with: %w", op, ErrInconclusive)}
	}
	tmp, err := os.MkdirTemp(v.TempDir, "benchforge-control-*")
	if err != nil {
		return goldRun{"", fmt.Errorf("%s: gold control work tree: %v: %w", op, err, errs.ErrUnavailable)}
	}
	defer sandbox.ForceRemove(tmp)
	work, detail, err := v.patchedTree(ctx, op, s, repo, hash, tmp, []byte(s.Patch))
	if err == nil {
		var passed bool
		passed, detail, err = v.runTests(ctx, op, s, work, tests)
		if err == nil && passed {
			return goldRun{}
		}
	}
	if err != nil && !errors.Is(err, ErrInconclusive) && !errors.Is(err, errs.ErrInput) {
		return goldRun{"", err} // the harness itself could not run
	}
	why := detail
	if err != nil {
		why = err.Error()
	}
	d := "gold control failed, so the harness cannot judge this sample: with the gold patch " + oneLine(why, 900)
	return goldRun{d, fmt.Errorf("%s: %s: %w", op, d, ErrInconclusive)}
}

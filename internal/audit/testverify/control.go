package testverify

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
)

// Harness names the version of the test-verification harness (how the
// buggy version is built, the runners, the controls). It enters the
// settings of every Stage II record decided with --test-fallback, so a
// resumed run does not reuse a verdict an older harness decided.
const Harness = "testverify/3 (gold and buggy controls, Defects4J fix-minus-gold tree, javac and sympy runners, the snapshot's Java imports in the modified patch)"

// The controls. The tests judge the snapshot's code (BenchChecker §3.4)
// only if this harness — this interpreter, these installed packages, this
// sandbox — can tell the sample's fixed version from its buggy one. An
// environment far newer than an old commit (sympy 1.0 does not import on
// Python 3.11) or a missing package fails the tests whatever the patch, and
// a "failed" there would call a present fix absent for a reason that has
// nothing to do with it. So before the modified patch runs, the gold patch
// runs under the same harness and must pass every listed test; and before
// a pass counts, the buggy version alone must fail a FAIL_TO_PASS test (or
// the tests cannot tell a fix from the bug here). A control that does not
// hold makes the result inconclusive (ErrInconclusive, with the control's
// outcome in the message), never failed or passed. Each control runs once
// per sample and base commit; later calls (the other cutoffs of a run)
// reuse its outcome.

// runFunc runs tests on the buggy version with patch (nil: none; what
// names it) applied.
type runFunc func(what string, patch []byte, tests []string) (bool, string, error)

// controlOutcome is a finished control: its detail and error (nil: held).
type controlOutcome struct {
	detail string
	err    error
}

// goldControl runs the gold patch under the harness; it holds when every
// listed test passes.
func (v *Verifier) goldControl(ctx context.Context, op string, s bench.Sample, hash string, tests []string, run runFunc) (string, error) {
	return v.control(ctx, "gold", s, hash, func() controlOutcome {
		passed, detail, err := run("the gold patch", []byte(s.Patch), tests)
		switch {
		case errors.Is(err, errs.ErrInput):
			// the test patch or the gold patch does not apply: the
			// sample's own parts do not fit this tree
			return inconclusive(op, "control: "+detail, err)
		case errors.Is(err, ErrInconclusive):
			return inconclusive(op, "control: the gold patch's run is "+detail, err)
		case err != nil:
			return controlOutcome{detail, err}
		case !passed:
			return inconclusive(op, "control failed: the gold patch does not pass the listed tests under this harness ("+detail+")", nil)
		}
		return controlOutcome{}
	})
}

// buggyControl runs the buggy version (test patch only) on the sample's
// FAIL_TO_PASS tests; it holds when one of them fails.
func (v *Verifier) buggyControl(ctx context.Context, op string, s bench.Sample, hash string, run runFunc) (string, error) {
	return v.control(ctx, "buggy", s, hash, func() controlOutcome {
		f2p := failToPass(s)
		if len(f2p) == 0 {
			return inconclusive(op, "control: the sample lists no FAIL_TO_PASS test, so a pass cannot tell the fix from the bug", nil)
		}
		passed, detail, err := run("", nil, f2p)
		switch {
		case errors.Is(err, ErrInconclusive):
			return inconclusive(op, "control: the buggy version's run is "+detail, err)
		case err != nil:
			return controlOutcome{detail, err}
		case passed:
			return inconclusive(op, fmt.Sprintf("control failed: the buggy version already passes its %d FAIL_TO_PASS tests under this harness, so a pass says nothing", len(f2p)), nil)
		}
		return controlOutcome{}
	})
}

// control returns the outcome of control kind for (s, hash), running it
// once; a run cut short by ctx is not remembered.
func (v *Verifier) control(ctx context.Context, kind string, s bench.Sample, hash string, do func() controlOutcome) (string, error) {
	key := kind + "\x00" + s.ID + "\x00" + hash
	v.mu.Lock()
	c, ok := v.controls[key]
	v.mu.Unlock()
	if ok {
		return c.detail, c.err
	}
	c = do()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	v.mu.Lock()
	if v.controls == nil {
		v.controls = map[string]controlOutcome{}
	}
	v.controls[key] = c
	v.mu.Unlock()
	return c.detail, c.err
}

// inconclusive is a control that did not hold: detail, and an error
// wrapping ErrInconclusive (and cause, when there is one).
func inconclusive(op, detail string, cause error) controlOutcome {
	msg := fmt.Sprintf("%s: %s; the harness cannot judge this sample, so the snapshot is neither confirmed nor refuted: %v", op, detail, ErrInconclusive)
	causes := []error{ErrInconclusive}
	if cause != nil {
		causes = append(causes, cause)
	}
	return controlOutcome{detail, &controlErr{msg, causes}}
}

// controlErr is a control that did not hold. Its message already holds
// the cause's detail, so the cause is wrapped (errors.Is sees it, e.g.
// the *diff.ApplyError of a gold patch that does not apply) but not
// repeated.
type controlErr struct {
	msg    string
	causes []error
}

func (e *controlErr) Error() string   { return e.msg }
func (e *controlErr) Unwrap() []error { return e.causes }

// failToPass is the sample's FAIL_TO_PASS tests without blanks or
// duplicates.
func failToPass(s bench.Sample) []string {
	return sampleTests(bench.Sample{Tests: bench.Tests{FailToPass: s.Tests.FailToPass}})
}

package jvm

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Pair statuses. A pair is confirmed when criterion (c) holds; anything
// else is unconfirmed, which is not evidence that the pair is invalid
// (rxsynth §5.4).
const (
	StatusConfirmed   = "confirmed"
	StatusUnconfirmed = "unconfirmed"
)

// SearchVersion names the version of the input search (its candidates,
// anchors and skipping rules), which decides an execution beyond the
// settings of a run. It is part of an executions log's settings, so a
// run never resumes a log an older search wrote; bump it whenever a
// change can alter a record (search-2: receivers through subclasses,
// the receiver_state and self_test anchors, skipped vectors).
const SearchVersion = "search-2"

// Execution is one pair's record in executions.jsonl.
type Execution struct {
	PairID    string `json:"pair_id"`
	ErrorType string `json:"error_type"`
	// Regime is the Table 8 regime of a model-built harness ("" for the
	// boundary search); Harness what the model was asked and answered.
	Regime  string        `json:"regime,omitempty"`
	Harness *ModelHarness `json:"harness,omitempty"`
	// Status is confirmed or unconfirmed; Reason says why not.
	Status  string        `json:"status"`
	Reason  string        `json:"reason,omitempty"`
	Compile CompileResult `json:"compile"`
	Method  string        `json:"method,omitempty"`
	Static  bool          `json:"static,omitempty"`
	Params  []Param       `json:"params,omitempty"`
	// Site is the patched site the (c) criterion is judged against.
	Site Site `json:"site"`
	// Candidates is the number of argument vectors generated; InputsTried
	// how many were run on the buggy method; Calls all calls made.
	Candidates  int `json:"candidates"`
	InputsTried int `json:"inputs_tried"`
	// Skipped counts the vectors not run because one of their candidates
	// had failed to build on an earlier input (the call would be the
	// same arg_error).
	Skipped int `json:"skipped,omitempty"`
	Calls   int `json:"calls"`
	Budget  int `json:"budget"`
	// Anchors are the rules that derived patch-anchored inputs from the
	// fix (anchor.go); Anchored how many vectors they gave, tried first.
	Anchors  []string `json:"anchors,omitempty"`
	Anchored int      `json:"anchored,omitempty"`
	// Criteria are the verdicts of rxsynth §5.4 / Table 8.
	Criteria Criteria `json:"criteria"`
	// A, B and C are the first inputs meeting each criterion, as Java
	// source, with what each method did.
	A *Trigger `json:"a,omitempty"`
	B *Trigger `json:"b,omitempty"`
	C *Trigger `json:"c,omitempty"`
	// Outcomes counts what the buggy method did on the inputs tried, by
	// kind ("returned", "arg_error": its receiver or an argument failed to
	// construct) and, for "threw", by the thrown class ("threw
	// java.lang.NullPointerException"; "threw off the method" when the
	// exception did not pass through it): it says why no input raised the
	// labelled type (issue 16's breakdown of unconfirmed pairs).
	Outcomes map[string]int `json:"outcomes,omitempty"`
	// Hazards are calls that timed out or exited the JVM.
	Hazards []Hazard `json:"hazards,omitempty"`
	// Network is how the worker was isolated ("isolated", "shared");
	// ExitTrap whether System.exit was trapped in-process.
	Network  string `json:"network,omitempty"`
	ExitTrap bool   `json:"exit_trap,omitempty"`
	// Files is how the worker's file system and processes were isolated
	// ("isolated": read-only view, own mount and PID namespaces; "shared":
	// the host refused them); SandboxNotes say what the sandbox could not
	// enforce and why.
	Files        string   `json:"files,omitempty"`
	SandboxNotes []string `json:"sandbox_notes,omitempty"`
	// Tampered: the code under test wrote to the worker's reply channel;
	// the pair is unconfirmed, whatever its calls seemed to show.
	Tampered bool   `json:"tampered,omitempty"`
	JDK      string `json:"jdk"`
	Millis   int64  `json:"millis"`

	firstBuggy Outcome
	firstFixed *Outcome
}

// CompileResult says whether the harness compiled and with which stubs.
type CompileResult struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	// Rounds is the javac rounds judged on the pair's diagnostics (1: it
	// compiled at once); BatchRounds the javac runs its batch took, which
	// the slowest pair of the batch decides.
	Rounds      int      `json:"rounds"`
	BatchRounds int      `json:"batch_rounds"`
	Stubs       []string `json:"stubs,omitempty"`
}

// Criteria are rxsynth §5.4's three execution criteria:
//
//	(a) some input makes the buggy method raise the labelled type;
//	(b) some input does (a) and the fixed method returns normally on it;
//	(c) some input makes the buggy method raise it at the patched site
//	    and the fixed method does not raise it there.
type Criteria struct {
	A bool `json:"a"`
	B bool `json:"b"`
	C bool `json:"c"`
}

// Trigger is a confirming input and what each side did with it.
type Trigger struct {
	Input string   `json:"input"`
	Buggy Outcome  `json:"buggy"`
	Fixed *Outcome `json:"fixed,omitempty"`
	// Anchored: the input is a patch-anchored one (anchor.go).
	Anchored bool `json:"anchored,omitempty"`
}

// Hazard is a call that did not come back normally.
type Hazard struct {
	Input   string  `json:"input"`
	Side    string  `json:"side"` // "B" buggy or "F" fixed
	Outcome Outcome `json:"outcome"`
}

// tamper records a forged reply: no verdict of this pair stands.
func (e *Execution) tamper() {
	e.Tampered = true
	e.A, e.B, e.C = nil, nil, nil
	e.Status, e.Reason = StatusUnconfirmed, "tampered: the code under test wrote to the worker's reply channel"
	e.judge()
}

func (e *Execution) judge() {
	e.Criteria = Criteria{A: e.A != nil, B: e.B != nil, C: e.C != nil}
	switch {
	case e.Criteria.C:
		e.Status = StatusConfirmed
	case e.Status != "":
		// already decided (compile or harness failure)
	case !e.Criteria.A && len(e.Hazards) > 0:
		e.Status, e.Reason = StatusUnconfirmed, fmt.Sprintf("no input raised %s; %d calls timed out or exited", e.ErrorType, len(e.Hazards))
	case !e.Criteria.A:
		e.Status, e.Reason = StatusUnconfirmed, fmt.Sprintf("no input tried raised %s", e.ErrorType)
	case e.fixedRaisesAtSite():
		e.Status, e.Reason = StatusUnconfirmed, fmt.Sprintf("the fixed method also raises %s at the patched site", e.ErrorType)
	default:
		e.Status, e.Reason = StatusUnconfirmed, fmt.Sprintf("%s raised, but not at the patched site (buggy lines %v)", e.ErrorType, e.Site.Buggy)
	}
}

// fixedRaisesAtSite reports whether the first fixed-method call raised
// the labelled exception at the patched site too.
func (e *Execution) fixedRaisesAtSite() bool {
	f := e.firstFixed
	return f != nil && raises(*f, e.ErrorType) && f.Line > 0 && contains(e.Site.Fixed, f.Line)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ExecutionsFile is the record log's name inside the output directory.
const ExecutionsFile = "executions.jsonl"

// ConfirmedFile holds the input pairs confirmed by criterion (c), as
// corpus.Pair records; it is rewritten on every run.
const ConfirmedFile = "confirmed.jsonl"

// Summary is what Run and RunModel return.
type Summary struct {
	// Verified counts the pairs checked in this run; Skipped those already
	// in the record log from an earlier run.
	Verified, Skipped int
	Path              string
	Table             Table
	// Confirmed counts the input pairs meeting criterion (c); they are
	// written, unchanged, to ConfirmedPath: an execution-validated corpus
	// that needs no judge model.
	Confirmed     int
	ConfirmedPath string
	// Model counts what the harness model answered (RunModel only).
	Model    *ModelCounts
	Warnings []string
	// Builds are the project builds of project mode, in build order.
	Builds []BuildReport
}

// Run verifies every pair not yet in outDir/executions.jsonl, appending
// one record per pair as it finishes, and returns the confirmation table
// over the whole file. A killed or cancelled run resumes where it stopped
// without duplicating a record.
func Run(ctx context.Context, pairs []corpus.Pair, outDir string, opts Options) (Summary, error) {
	return runLog(ctx, pairs, filepath.Join(outDir, ExecutionsFile), filepath.Join(outDir, ConfirmedFile), nil, opts)
}

// verifyOnce runs pairs on one Verifier, with the boundary search (b nil)
// or b's model-built harnesses.
func verifyOnce(ctx context.Context, pairs []corpus.Pair, b *Builder, opts Options, emit func(Execution) error) error {
	v, err := New(ctx, opts)
	if err != nil {
		return err
	}
	defer v.Close()
	if b == nil {
		return v.Verify(ctx, pairs, emit)
	}
	return buildAndVerify(ctx, v, b, pairs, emit)
}

// runLog is Run over the log at path, with the boundary search (b nil) or
// b's model-built harnesses.
func runLog(ctx context.Context, pairs []corpus.Pair, path, confirmedPath string, b *Builder, opts Options) (Summary, error) {
	s := Summary{Path: path}
	if err := validatePairs(pairs); err != nil {
		return s, err
	}
	progress := opts.Progress
	opts.Progress = nil // the step reports each appended record
	res, err := step.RunBatch(ctx, step.Spec[corpus.Pair, Execution]{
		Path: path, Key: func(e Execution) string { return e.PairID }, Items: pairs, ID: func(p corpus.Pair) string { return p.PairID },
		Sync: jsonl.SyncBatch, BatchSize: 20, Progress: progress,
	}, func(ctx context.Context, todo []corpus.Pair, emit step.Emit[Execution]) (err error) {
		if opts.Projects != nil && b == nil {
			s.Builds, err = verifyProjects(ctx, todo, opts, emit)
			return err
		}
		return verifyOnce(ctx, todo, b, opts, emit)
	})
	if res != nil {
		s.Warnings, s.Skipped, s.Verified = res.Warnings, res.Resumed, res.Written
	}
	if err != nil {
		return s, err
	}
	recs := res.Records
	s.Table = Confirmation(recs)
	if b != nil {
		s.Model = countModel(recs)
	}
	keep := confirmedPairs(pairs, recs)
	s.Confirmed, s.ConfirmedPath = len(keep), confirmedPath
	if err := jsonl.Rewrite(s.ConfirmedPath, keep); err != nil {
		return s, err
	}
	return s, nil
}

// validatePairs validates every pair and refuses a pair_id given twice.
func validatePairs(pairs []corpus.Pair) error {
	seen := map[string]bool{}
	for i, p := range pairs {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("corpus pair %d: %w", i+1, err)
		}
		if seen[p.PairID] {
			return fmt.Errorf("corpus pair %d: pair_id %q appears twice: %w", i+1, p.PairID, errs.ErrInput)
		}
		seen[p.PairID] = true
	}
	return nil
}

// confirmedPairs are the pairs whose record is confirmed, in input order.
func confirmedPairs(pairs []corpus.Pair, recs []Execution) []corpus.Pair {
	confirmed := map[string]bool{}
	for _, e := range recs {
		confirmed[e.PairID] = e.Status == StatusConfirmed
	}
	var keep []corpus.Pair
	for _, p := range pairs {
		if confirmed[p.PairID] {
			keep = append(keep, p)
		}
	}
	return keep
}

// noteOutcome counts the buggy method's outcome o in e.Outcomes.
func (e *Execution) noteOutcome(o Outcome) {
	key := o.Kind
	if o.Kind == "threw" {
		key += " " + o.Exception
		if o.Line == 0 {
			key += " off the method"
		}
	}
	if e.Outcomes == nil {
		e.Outcomes = map[string]int{}
	}
	e.Outcomes[key]++
}

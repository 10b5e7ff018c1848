// Package corpus owns the record types of the synthesis pipeline — real
// seed pairs, synthetic pairs and their judgements — with the JSON field
// names of DESIGN.md's data model, which are the contract between the
// pipeline's stages (seeds → generate → gate → judge → verify → fidelity →
// evaluate) and with released datasets.
package corpus

import (
	"fmt"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
)

// The seven in-scope unchecked exception types of rxsynth §3.1, in the
// paper's table order.
const (
	NullPointer     = "NullPointerException"
	IllegalArgument = "IllegalArgumentException"
	ArrayIndexOOB   = "ArrayIndexOutOfBoundsException"
	NumberFormat    = "NumberFormatException"
	ClassCast       = "ClassCastException"
	StringIndexOOB  = "StringIndexOutOfBoundsException"
	IllegalState    = "IllegalStateException"
)

// Types lists the in-scope exception types in a fixed order, for tables.
var Types = []string{NullPointer, IllegalArgument, ArrayIndexOOB, NumberFormat, ClassCast, StringIndexOOB, IllegalState}

// ValidType reports whether t is one of the seven in-scope types.
func ValidType(t string) bool { return slices.Contains(Types, t) }

// Span is a 1-based inclusive line range inside a file.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Seed is a real method-level bug/fix pair mined from a bug benchmark
// (rxsynth §3). BugID identifies the pair (one bug can give several pairs,
// one per changed method); SourceBug is the benchmark bug it came from and
// is the unit of leakage control (§7.2).
type Seed struct {
	BugID           string `json:"bug_id"`
	SourceBug       string `json:"source_bug"`
	Benchmark       string `json:"benchmark"`
	Project         string `json:"project"`
	Exception       string `json:"exception"`
	BuggyMethod     string `json:"buggy_method"`
	FixedMethod     string `json:"fixed_method"`
	File            string `json:"file"`
	MethodSignature string `json:"method_signature"`
	BuggySpan       Span   `json:"buggy_span"`
	FixedSpan       Span   `json:"fixed_span"`
	Diff            string `json:"diff"`
	// Repo ("owner/name") and FixedCommit locate File at the fixed
	// revision, where FixedSpan holds FixedMethod (Defects4J's buggy
	// version is that file with the fix reversed, not a commit).
	Repo        string `json:"repo,omitempty"`
	FixedCommit string `json:"fixed_commit,omitempty"`
}

// Validate checks the fields every later stage relies on.
func (s Seed) Validate() error {
	switch {
	case s.BugID == "":
		return fmt.Errorf("seed: %w: bug_id is empty", errs.ErrInput)
	case s.SourceBug == "":
		return fmt.Errorf("seed %s: %w: source_bug is empty", s.BugID, errs.ErrInput)
	case !ValidType(s.Exception):
		return fmt.Errorf("seed %s: %w: exception %q is not one of the seven in-scope types", s.BugID, errs.ErrInput, s.Exception)
	case s.BuggyMethod == "" || s.FixedMethod == "":
		return fmt.Errorf("seed %s: %w: buggy_method and fixed_method must both be set", s.BugID, errs.ErrInput)
	}
	return nil
}

// Judgement is a judge's verdict on a pair (rxsynth §5.1): the throwing
// site and a concrete trigger from stage 1, and whether stage 2 found the
// fix removes it.
type Judgement struct {
	Model      string  `json:"model"`
	Confidence float64 `json:"confidence"`
	Site       string  `json:"site,omitempty"`
	SiteLine   int     `json:"site_line,omitempty"`
	Trigger    string  `json:"trigger,omitempty"`
	Verdict    string  `json:"verdict"` // "accept" | "reject"
	Repaired   bool    `json:"repaired,omitempty"`
}

// Flags are the release flags of rxsynth §8.1.
type Flags struct {
	ISELowConfidence   bool `json:"ise_low_confidence,omitempty"`
	FixIntroducesLabel bool `json:"fix_introduces_label,omitempty"`
}

// Pair is a synthetic bug/fix pair with its provenance: which seeds
// conditioned it (ExampleBugIDs, mapped to source bugs for leakage
// control), which generator and prompt made it, and its validation.
type Pair struct {
	PairID        string     `json:"pair_id"`
	SampleID      string     `json:"sample_id,omitempty"`
	ErrorType     string     `json:"error_type"`
	BuggyMethod   string     `json:"buggy_method"`
	FixedMethod   string     `json:"fixed_method"`
	ExampleBugIDs []string   `json:"example_bug_ids"`
	Generator     string     `json:"generator"`
	PromptHash    string     `json:"prompt_hash,omitempty"`
	SizeTarget    int        `json:"size_target,omitempty"`
	Judge         *Judgement `json:"judge,omitempty"`
	Flags         Flags      `json:"flags"`
	// Source, when set, is the real code the pair came from: the JVM
	// verifier compiles against that project and replaces the method in
	// its real class; the release takes the licence from it.
	Source *Source `json:"source,omitempty"`
}

// Source is a pair's provenance in real code: the repository and commit,
// the file and the span of the host method there, the operator that made
// the pair (mutation generator) and the seed it was grounded on.
type Source struct {
	Repo     string `json:"repo"`
	Commit   string `json:"commit"`
	Path     string `json:"path"`
	Method   string `json:"method,omitempty"` // signature of the host method
	Span     Span   `json:"span"`             // the host method's lines in Path at Commit
	Operator string `json:"operator,omitempty"`
	Seed     string `json:"seed,omitempty"`
	License  string `json:"license,omitempty"` // SPDX identifier found at the source
}

// Validate checks the fields every later stage relies on.
func (p Pair) Validate() error {
	switch {
	case p.PairID == "":
		return fmt.Errorf("pair: %w: pair_id is empty", errs.ErrInput)
	case !ValidType(p.ErrorType):
		return fmt.Errorf("pair %s: %w: error_type %q is not one of the seven in-scope types", p.PairID, errs.ErrInput, p.ErrorType)
	case p.BuggyMethod == "" || p.FixedMethod == "":
		return fmt.Errorf("pair %s: %w: buggy_method and fixed_method must both be set", p.PairID, errs.ErrInput)
	}
	return nil
}

// SeedPair is a real seed as a pair to verify or release: its id is the
// seed's bug_id, its generator "seed", and its source the fixed revision
// of the seed's file with the fixed method's span (when the seed records
// its repository and commit): the buggy method replaces that span.
func SeedPair(s Seed) Pair {
	p := Pair{PairID: s.BugID, ErrorType: s.Exception, BuggyMethod: s.BuggyMethod, FixedMethod: s.FixedMethod,
		ExampleBugIDs: []string{s.SourceBug}, Generator: "seed"}
	if s.Repo != "" && s.FixedCommit != "" {
		p.Source = &Source{Repo: s.Repo, Commit: s.FixedCommit, Path: s.File, Method: s.MethodSignature, Span: s.FixedSpan, Seed: s.BugID}
	}
	return p
}

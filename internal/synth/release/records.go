package release

import "github.com/benchforge/benchforge/internal/synth/corpus"

// Partition names (rxsynth §8.1, Table 19).
const (
	PartCore     = "core"
	PartExcluded = "excluded"
	PartContrast = "contrast"
	PartSeeds    = "seeds"
)

// Exclusion stages: the generation-time gates (internal/synth/gate) or the
// semantic judge (internal/synth/judge).
const (
	StageGate  = "gate"
	StageJudge = "judge"
	StageJVM   = "jvm"
)

// Id-map entry kinds.
const (
	KindBugID     = "bug_id"     // a seed's bug_id
	KindSourceBug = "source_bug" // a source bug, mapped to itself
	KindAlias     = "alias"      // an extra identifier from --id-map
)

// enumSets are the closed vocabularies the schema generator writes for a
// field tagged `enum:"name"`.
var enumSets = map[string][]string{
	"error_type": corpus.Types,
	"partition":  {PartCore, PartExcluded, PartContrast},
	"stage":      {StageGate, StageJudge, StageJVM},
	"kind":       {KindBugID, KindSourceBug, KindAlias},
	"verdict":    {"accept"},
	"execution":  {"confirmed", "unconfirmed"},
	"method":     {ValidatedByJudge, ValidatedByJVM},
	// A criterion (c) trigger's outcomes: the buggy method threw, the fixed
	// one returned or threw something else (rxsynth §5.4).
	"outcome": {"returned", "threw"},
}

// CorePair is one line of core.jsonl: a validated seed-grounded pair with
// its exemplar provenance, its validation and release flags (§8.1).
//
// A core pair is validated one of two ways, named by validation.by: by the
// LLM judge (the judge block holds the accepting judgement) or by JVM
// execution under criterion (c) (validation.jvm holds the evidence; there
// is no judge block). The schema subset has no conditionals, so the schema
// marks both blocks optional and Check enforces that exactly the one
// validation.by names is present.
type CorePair struct {
	PairID        string         `json:"pair_id" desc:"unique pair identifier (the candidate id)"`
	SampleID      string         `json:"sample_id,omitempty" desc:"key of the pair's structured judgement log entries"`
	Partition     string         `json:"partition" enum:"partition" desc:"always core"`
	ErrorType     string         `json:"error_type" enum:"error_type" desc:"labelled unchecked exception type"`
	BuggyMethod   string         `json:"buggy_method" desc:"buggy Java method, comments stripped"`
	FixedMethod   string         `json:"fixed_method" desc:"fixed Java method, same signature"`
	ExampleBugIDs []string       `json:"example_bug_ids" desc:"seed identifiers that conditioned generation; resolve through id_map.csv"`
	Generator     string         `json:"generator" desc:"generator and configuration that produced the pair"`
	PromptHash    string         `json:"prompt_hash,omitempty" desc:"sha256 of the generation prompt"`
	SizeTarget    int            `json:"size_target,omitempty" min:"0" desc:"requested logical size (statements)"`
	Validation    CoreValidation `json:"validation" desc:"how the pair was validated: by names the method and which evidence block is present"`
	Judge         *CoreJudge     `json:"judge,omitempty" desc:"the accepting judgement (rxsynth §5.1); present exactly when validation.by is judge"`
	Flags         CoreFlags      `json:"flags" desc:"release flags (rxsynth §8.1)"`
	CodeLicense   string         `json:"code_license" desc:"SPDX licence of the pair's code: the licence of the source it came from, or the licence the releaser gave generated code"`
	Source        *CoreSource    `json:"source,omitempty" desc:"the real code the pair came from, when it came from real code"`
}

// CoreSource is a core pair's provenance in real code.
type CoreSource struct {
	Repo     string `json:"repo" desc:"source repository (owner/name)"`
	Commit   string `json:"commit" desc:"commit of the host file"`
	Path     string `json:"path" desc:"host file in the repository"`
	Method   string `json:"method,omitempty" desc:"host method signature"`
	Start    int    `json:"start_line" min:"0" desc:"host method's first line in path at commit"`
	End      int    `json:"end_line" min:"0" desc:"host method's last line"`
	Operator string `json:"operator,omitempty" desc:"mutation operator that made the pair"`
	Seed     string `json:"seed,omitempty" desc:"seed the pair was grounded on"`
	Evidence string `json:"license_evidence" desc:"where the licence was read: the file's header or the repository's licence file at the commit"`
}

// CoreValidation says how a core pair was validated.
type CoreValidation struct {
	By  string         `json:"by" enum:"method" desc:"judge: accepted by the LLM judge, evidence in the record's judge block; jvm: confirmed on a JVM under criterion (c) of rxsynth §5.4, evidence in validation.jvm"`
	JVM *CoreExecution `json:"jvm,omitempty" desc:"the JVM execution evidence; present exactly when by is jvm"`
}

// CoreExecution is the evidence of a JVM-validated pair: the first input
// that met criterion (c) — the buggy method raises the labelled type at the
// patched site and the fixed method does not — with what each side did.
// Lines are 1-based and relative to the method's first line.
type CoreExecution struct {
	JDK            string      `json:"jdk" desc:"version of the JDK the pair was compiled and run with"`
	Regime         string      `json:"regime,omitempty" desc:"rxsynth Table 8 regime of the model-built harness; absent for the boundary-value search"`
	Input          string      `json:"input" desc:"the criterion (c) trigger: the call with its arguments, as Java source"`
	SiteLines      []int       `json:"site_lines" desc:"the patched site in the buggy method: its changed lines and two context lines either side (recomputed from the methods on check)"`
	FixedSiteLines []int       `json:"fixed_site_lines" desc:"the same site in the fixed method"`
	BuggyOutcome   CoreOutcome `json:"buggy_outcome" desc:"what the buggy method did on the input: threw the labelled type at a site line"`
	FixedOutcome   CoreOutcome `json:"fixed_outcome" desc:"what the fixed method did on the input: returned, or threw other than the labelled type at the site"`
	InputsTried    int         `json:"inputs_tried" min:"0" desc:"inputs run on the buggy method before the search stopped"`
	Budget         int         `json:"budget" min:"0" desc:"the most method calls allowed for the pair"`
}

// CoreOutcome is what one method did on the trigger input.
type CoreOutcome struct {
	Kind      string `json:"kind" enum:"outcome" desc:"returned or threw"`
	Exception string `json:"exception,omitempty" desc:"the thrown class, fully qualified"`
	Line      int    `json:"line,omitempty" min:"0" desc:"line of the method's frame the exception passed through"`
	Message   string `json:"message,omitempty" desc:"the exception's message"`
}

// CoreJudge is the accepting judge's metadata kept in a core record.
type CoreJudge struct {
	Model      string  `json:"model" desc:"judge model id"`
	Confidence float64 `json:"confidence" min:"0" desc:"accepting judgement's confidence in [0, 1]"`
	Site       string  `json:"site,omitempty" desc:"throwing expression at the patched location"`
	SiteLine   int     `json:"site_line,omitempty" min:"0" desc:"line of the site in the buggy method"`
	Trigger    string  `json:"trigger,omitempty" desc:"concrete argument values or state that raise the type"`
	Verdict    string  `json:"verdict" enum:"verdict" desc:"always accept"`
	Repaired   bool    `json:"repaired,omitempty" desc:"accepted after the one fix-only repair (§5.3)"`
}

// CoreFlags are the two release flags, always present.
type CoreFlags struct {
	ISELowConfidence   bool `json:"ise_low_confidence" desc:"IllegalStateException pair accepted at or below the manifest's confidence threshold (lower validation reliability, §5.3)"`
	FixIntroducesLabel bool `json:"fix_introduces_label" desc:"the fixed method adds an explicit throw of the labelled type"`
}

// ExcludedRecord is one line of excluded.jsonl: a candidate rejected during
// validation, with the stage, category and stated reason. It keeps no
// exemplar provenance and no method bodies.
type ExcludedRecord struct {
	PairID    string `json:"pair_id" desc:"candidate identifier"`
	SampleID  string `json:"sample_id,omitempty" desc:"judgement log key"`
	Partition string `json:"partition" enum:"partition" desc:"always excluded"`
	ErrorType string `json:"error_type" enum:"error_type" desc:"labelled exception type"`
	Stage     string `json:"stage" enum:"stage" desc:"gate, judge, or jvm (not confirmed on a JVM; category names the failing criterion)"`
	Category  string `json:"category" desc:"rejection category (judge category, or gate_<cause>)"`
	Reason    string `json:"reason,omitempty" desc:"the judge's stated reason or the gate's detail"`
	Generator string `json:"generator,omitempty" desc:"generator, when known"`
	Model     string `json:"model,omitempty" desc:"judge model, for judged candidates"`
	Rubric    string `json:"rubric,omitempty" desc:"judge rubric, for judged candidates"`
}

// ContrastRecord is one line of contrast.jsonl: a zero-shot pair kept for
// grounding comparison. It carries no semantic-validity label.
type ContrastRecord struct {
	ID          string `json:"id" desc:"unique pair identifier"`
	Partition   string `json:"partition" enum:"partition" desc:"always contrast"`
	ErrorType   string `json:"error_type" enum:"error_type" desc:"labelled exception type"`
	BuggyMethod string `json:"buggy_method" desc:"buggy Java method"`
	FixedMethod string `json:"fixed_method" desc:"fixed Java method"`
	Generator   string `json:"generator" desc:"generator and configuration"`
	PromptHash  string `json:"prompt_hash,omitempty" desc:"sha256 of the generation prompt"`
}

// SeedRecord is one element of seeds.json: a real method-level bug/fix pair
// with its source-project provenance. Its fields are corpus.Seed's.
type SeedRecord struct {
	BugID           string   `json:"bug_id" desc:"pair identifier (one bug can give several pairs)"`
	SourceBug       string   `json:"source_bug" desc:"benchmark bug the pair came from: the unit of leakage control (§7.2)"`
	Benchmark       string   `json:"benchmark" desc:"bug benchmark (e.g. Defects4J)"`
	Project         string   `json:"project" desc:"source project; its licence applies to the methods"`
	Exception       string   `json:"exception" enum:"error_type" desc:"canonical exception type"`
	BuggyMethod     string   `json:"buggy_method" desc:"buggy method as in the project"`
	FixedMethod     string   `json:"fixed_method" desc:"fixed method as in the project"`
	File            string   `json:"file" desc:"source file path in the project"`
	MethodSignature string   `json:"method_signature" desc:"method signature"`
	BuggySpan       SeedSpan `json:"buggy_span" desc:"lines of the buggy method in the buggy file"`
	FixedSpan       SeedSpan `json:"fixed_span" desc:"lines of the fixed method in the fixed file"`
	Diff            string   `json:"diff" desc:"unified diff of the method"`
	Repo            string   `json:"repo,omitempty" desc:"source repository (owner/name)"`
	FixedCommit     string   `json:"fixed_commit,omitempty" desc:"commit whose file holds the fixed method at fixed_span"`
}

// SeedSpan is a 1-based inclusive line range.
type SeedSpan struct {
	Start int `json:"start" min:"0" desc:"first line"`
	End   int `json:"end" min:"0" desc:"last line"`
}

// IDMapRow is one row of id_map.csv: an identifier that may appear in
// example_bug_ids and the source bug it belongs to.
type IDMapRow struct {
	ID        string `json:"id" desc:"identifier (seed bug_id, source bug or alias)"`
	SourceBug string `json:"source_bug" desc:"source bug the identifier belongs to"`
	Kind      string `json:"kind" enum:"kind" desc:"bug_id, source_bug or alias"`
}

// GenerationRow is one row of generation.csv: per-pair generation metadata
// of a released synthetic pair (core or contrast), joined from the
// candidates and execution records when given.
type GenerationRow struct {
	PairID          string   `json:"pair_id" desc:"pair identifier (core pair_id or contrast id)"`
	Partition       string   `json:"partition" enum:"partition" desc:"core or contrast"`
	ErrorType       string   `json:"error_type" enum:"error_type" desc:"labelled exception type"`
	Generator       string   `json:"generator" desc:"generator and configuration"`
	Operator        string   `json:"operator,omitempty" desc:"mutation operator, for the mutation generator"`
	PromptHash      string   `json:"prompt_hash,omitempty" desc:"sha256 of the generation prompt"`
	SizeTarget      int      `json:"size_target,omitempty" min:"0" desc:"requested logical size"`
	ExampleBugIDs   []string `json:"example_bug_ids" desc:"exemplar identifiers, ';'-separated in CSV"`
	SourceBugs      []string `json:"source_bugs" desc:"distinct source bugs of the exemplars, ';'-separated in CSV"`
	SourceFile      string   `json:"source_file,omitempty" desc:"file the candidate was derived from"`
	SourceMethod    string   `json:"source_method,omitempty" desc:"method the candidate was derived from"`
	SourceStartLine int      `json:"source_start_line,omitempty" min:"0" desc:"first line of that method"`
	SourceSiteLine  int      `json:"source_site_line,omitempty" min:"0" desc:"line of the mutated site"`
	Execution       string   `json:"execution,omitempty" enum:"execution" desc:"JVM verification status (§5.4), when run"`
	ExecA           *bool    `json:"exec_a,omitempty" desc:"criterion (a): some input raises the type in the buggy method"`
	ExecB           *bool    `json:"exec_b,omitempty" desc:"criterion (b): ... and the fixed method returns normally"`
	ExecC           *bool    `json:"exec_c,omitempty" desc:"criterion (c): raised at the patched site and not by the fix"`
}

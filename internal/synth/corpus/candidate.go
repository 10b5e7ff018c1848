package corpus

// Candidate is one generated pair before the gates (a line of
// candidates.jsonl). A generator either fills BuggyMethod and FixedMethod
// itself (mutation) or leaves them empty and records the model's raw
// Answer, which the gates parse. It lives here, not in generate, because
// the gate, the screen and the release read it without depending on any
// generator.
type Candidate struct {
	ID            string           `json:"id"`
	ErrorType     string           `json:"error_type"`
	Generator     string           `json:"generator"`
	Operator      string           `json:"operator,omitempty"`
	BuggyMethod   string           `json:"buggy_method,omitempty"`
	FixedMethod   string           `json:"fixed_method,omitempty"`
	Answer        string           `json:"answer,omitempty"`
	Source        *CandidateSource `json:"source,omitempty"`
	ExampleBugIDs []string         `json:"example_bug_ids"`
	PromptHash    string           `json:"prompt_hash,omitempty"`
	SizeTarget    int              `json:"size_target,omitempty"`
}

// CandidateSource locates the real code a candidate was derived from. The
// gate turns it into a Pair's Source (a span instead of two lines).
type CandidateSource struct {
	// Repo and Commit, when the corpus is a repository revision, locate
	// File: the pair's provenance in real code.
	Repo      string `json:"repo,omitempty"`
	Commit    string `json:"commit,omitempty"`
	File      string `json:"file"`
	Method    string `json:"method"` // qualified name and signature
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	SiteLine  int    `json:"site_line,omitempty"` // line of the mutated site in File
}

package rescore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
)

// Verdict is the combined per-sample, per-model record of DESIGN.md
// (Stage I ∧ Stage II). Only the fields rescoring needs are decoded
// strictly; evidence is kept verbatim.
type Verdict struct {
	SampleID     string          `json:"sample_id"`
	Model        string          `json:"model"`
	RepoPresent  bool            `json:"repo_present"`
	PatchPresent bool            `json:"patch_present"`
	Contaminated bool            `json:"contaminated"`
	Score        float64         `json:"score"`
	Evidence     json.RawMessage `json:"evidence,omitempty"`
}

// Judgement is one sample's contamination decision as rescoring uses it.
type Judgement struct {
	SampleID     string
	Model        string // "" for Stage II (PatchVerdict) files: model-independent
	Contaminated bool
}

// Verdicts is a loaded verdict file.
type Verdicts struct {
	// Kind is "verdict" (combined Verdict records, contaminated field) or
	// "patch" (Stage II PatchVerdict records, present field).
	Kind string
	// Models lists the distinct models in file order ("" for patch files).
	Models []string
	// By maps model → sample id → contaminated.
	By map[string]map[string]bool
	// Unjudged maps model → sample id → true for a sample whose verdict
	// could not tell: a Stage II verdict unknown or not_applicable, or a
	// combined verdict not contaminated with neither stage saying absent
	// (a repository insufficient or a patch unknown). Such samples are
	// neither clean nor contaminated (Options.Unjudged decides).
	Unjudged map[string]map[string]bool
}

// cannotTell reports whether a verdict record could not tell (see
// Verdicts.Unjudged).
func cannotTell(kind string, contaminated bool, verdict string, ev json.RawMessage) bool {
	if kind == "patch" {
		return verdict == "unknown" || verdict == "not_applicable"
	}
	if contaminated || len(ev) == 0 {
		return false
	}
	var e struct {
		Repo  string `json:"repo_verdict"`
		Patch string `json:"patch_verdict"`
	}
	if json.Unmarshal(ev, &e) != nil || e.Repo == "" && e.Patch == "" {
		return false // evidence of another shape: the verdict stands
	}
	return e.Repo != "absent" && e.Patch != "absent"
}

// ReadVerdicts reads a JSONL file of Verdict records (detected by a
// "contaminated" field) or of Stage II PatchVerdict records (a "present"
// field, as internal/audit/patchcheck writes them). Every line must be of
// the kind of the first; a sample judged twice for one model is an error.
// Errors name path:line and wrap errs.ErrInput.
func ReadVerdicts(path string) (*Verdicts, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("rescore.ReadVerdicts(%s): %w: %v", path, errs.ErrNotFound, err)
		}
		return nil, fmt.Errorf("rescore.ReadVerdicts(%s): %w", path, err)
	}
	defer f.Close()
	v := &Verdicts{By: map[string]map[string]bool{}, Unjudged: map[string]map[string]bool{}}
	err = jsonl.Scan(f, func(line int, raw []byte) error {
		if err := v.add(raw); err != nil {
			return fmt.Errorf("rescore.ReadVerdicts: %s:%d: %w: %v", path, line, errs.ErrInput, err)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, errs.ErrInput) {
			return nil, err
		}
		return nil, fmt.Errorf("rescore.ReadVerdicts(%s): %w: %w", path, err, errs.ErrInput)
	}
	if v.Kind == "" {
		return nil, fmt.Errorf("rescore.ReadVerdicts(%s): %w: no verdicts in the file", path, errs.ErrInput)
	}
	return v, nil
}

// verdictLine is a line of a verdict file, as rescoring reads it.
type verdictLine struct {
	SampleID     string          `json:"sample_id"`
	Model        string          `json:"model"`
	Contaminated *bool           `json:"contaminated"`
	Present      *bool           `json:"present"`
	Verdict      string          `json:"verdict"`
	Evidence     json.RawMessage `json:"evidence"`
}

// add adds the verdict of one line; an error says what is wrong with it.
func (v *Verdicts) add(raw []byte) error {
	kind, err := recordKind(raw)
	if err != nil {
		return err
	}
	if v.Kind == "" {
		v.Kind = kind
	} else if kind != v.Kind {
		return fmt.Errorf("a %s record in a file of %s records", kind, v.Kind)
	}
	var rec verdictLine
	if err := json.Unmarshal(raw, &rec); err != nil {
		return err
	}
	if rec.SampleID == "" {
		return errors.New("missing sample_id")
	}
	model, c, err := rec.decision(kind)
	if err != nil {
		return err
	}
	return v.put(kind, model, c, rec)
}

// recordKind is "verdict" for a record with a contaminated field (a
// Verdict), "patch" for one with a present field (a PatchVerdict).
func recordKind(raw []byte) (string, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	switch {
	case probe["contaminated"] != nil:
		return "verdict", nil
	case probe["present"] != nil:
		return "patch", nil
	}
	return "", errors.New("neither a Verdict (contaminated) nor a PatchVerdict (present) record")
}

// decision is the record's model ("" for a patch record: Stage II is
// model-independent) and whether it says contaminated.
func (rec verdictLine) decision(kind string) (model string, contaminated bool, err error) {
	if kind == "patch" {
		if rec.Present == nil {
			return "", false, fmt.Errorf("sample %s: present is not a boolean", rec.SampleID)
		}
		return "", *rec.Present, nil
	}
	if rec.Contaminated == nil {
		return "", false, fmt.Errorf("sample %s: contaminated is not a boolean", rec.SampleID)
	}
	return rec.Model, *rec.Contaminated, nil
}

// put keeps the sample's verdict c under model; a sample judged twice for
// one model is an error.
func (v *Verdicts) put(kind, model string, c bool, rec verdictLine) error {
	m, ok := v.By[model]
	if !ok {
		m = map[string]bool{}
		v.By[model] = m
		v.Unjudged[model] = map[string]bool{}
		v.Models = append(v.Models, model)
	}
	if _, dup := m[rec.SampleID]; dup {
		return fmt.Errorf("sample %s judged twice for model %q", rec.SampleID, model)
	}
	m[rec.SampleID] = c
	if cannotTell(kind, c, rec.Verdict, rec.Evidence) {
		v.Unjudged[model][rec.SampleID] = true
	}
	return nil
}

// Submission is one leaderboard entry: which benchmark samples it
// resolved.
type Submission struct {
	// Submission is the SWE-bench experiments folder name
	// (20240620_sweagent_claude3.5sonnet).
	Submission string   `json:"submission"`
	Name       string   `json:"name,omitempty"`
	Date       string   `json:"date,omitempty"`
	Models     []string `json:"models,omitempty"`
	Resolved   []string `json:"resolved"`
}

var folderDate = regexp.MustCompile(`^(\d{4})(\d{2})(\d{2})_`)

// Time returns the submission date: the date field (YYYY-MM-DD or RFC
// 3339), else the YYYYMMDD prefix of the folder name; ok=false when
// neither parses.
func (s Submission) Time() (time.Time, bool) {
	if s.Date != "" {
		for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01"} {
			if t, err := time.Parse(layout, s.Date); err == nil {
				return t, true
			}
		}
	}
	if m := folderDate.FindStringSubmatch(s.Submission); m != nil {
		if t, err := time.Parse("20060102", m[1]+m[2]+m[3]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ReadLeaderboard reads submissions from
//   - a JSONL file with one submission per line (submission, date, name,
//     models, resolved: [instance ids]), as in testdata/swebench at the module root;
//   - a JSON array of such objects; or
//   - one SWE-bench experiments results.json ({"resolved": [...], ...}),
//     named after its folder (evaluation/verified/<submission>/results/).
//
// Errors name path:line and wrap errs.ErrInput.
func ReadLeaderboard(path string) ([]Submission, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w: %v", path, errs.ErrNotFound, err)
		}
		return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w", path, err)
	}
	subs, err := parseLeaderboard(path, data)
	if err != nil {
		return nil, err
	}
	for i, s := range subs {
		if s.Submission == "" {
			subs[i].Submission = s.Name
		}
		if s.Resolved == nil {
			return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w: submission %q has no resolved list", path, errs.ErrInput, subs[i].Submission)
		}
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w: no submissions", path, errs.ErrInput)
	}
	return subs, nil
}

// parseLeaderboard decodes a leaderboard file of any of ReadLeaderboard's
// forms.
func parseLeaderboard(path string, data []byte) ([]Submission, error) {
	var subs []Submission
	switch {
	case strings.HasPrefix(strings.TrimSpace(string(data)), "["):
		if err := json.Unmarshal(data, &subs); err != nil {
			return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w: JSON array: %v", path, errs.ErrInput, err)
		}
		return subs, nil
	case isResultsJSON(data):
		var one Submission
		if err := json.Unmarshal(data, &one); err != nil {
			return nil, fmt.Errorf("rescore.ReadLeaderboard(%s): %w: %v", path, errs.ErrInput, err)
		}
		if one.Submission == "" {
			one.Submission = experimentsName(path)
		}
		return []Submission{one}, nil
	}
	err := jsonl.Scan(strings.NewReader(string(data)), func(line int, raw []byte) error {
		var s Submission
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("rescore.ReadLeaderboard: %s:%d: %w: %v", path, line, errs.ErrInput, err)
		}
		if s.Submission == "" && s.Name == "" {
			return fmt.Errorf("rescore.ReadLeaderboard: %s:%d: %w: a submission needs a submission or name field", path, line, errs.ErrInput)
		}
		subs = append(subs, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return subs, nil
}

// isResultsJSON reports a single JSON object that is a whole-file
// results.json (it has a top-level "resolved" array and no "submission").
func isResultsJSON(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, res := probe["resolved"]
	return res
}

// experimentsName names a results.json after its submission folder.
func experimentsName(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "results" {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}

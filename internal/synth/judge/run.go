package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Output file names inside the output directory.
const (
	JudgementsFile = "judgements.jsonl" // append-only log, keyed by pair id
	CoreFile       = "core.jsonl"       // accepted corpus.Pair records
	ExcludedFile   = "excluded.jsonl"   // Excluded records
	SummaryFile    = "validation.json"  // Summary
	TableFile      = "validation.md"    // Table 7 as Markdown
)

// RunOptions configure Run.
type RunOptions struct {
	// Workers judge pairs concurrently; 0 means 1.
	Workers int
	// ISEMaxConfidence is the ise_low_confidence threshold; nil means
	// DefaultISEMaxConfidence (flag every IllegalStateException pair).
	ISEMaxConfidence *float64
	// Progress, when set, is called after each pair judged in this pass.
	Progress func(done, total int)
	// Recheck all judges every pair again (the new record supersedes the
	// old, which stays in the log). A failed call is never recorded, so
	// there is no unknown record to redo by default.
	Recheck runkey.Recheck
}

// Excluded is one line of excluded.jsonl: a pair the pass did not accept,
// with the rejection category and the judge's stated reason (§8.1).
type Excluded struct {
	PairID    string `json:"pair_id"`
	SampleID  string `json:"sample_id,omitempty"`
	ErrorType string `json:"error_type"`
	Category  string `json:"category"`
	Reason    string `json:"reason"`
	Model     string `json:"model"`
	Rubric    string `json:"rubric"`
}

// CategoryCount counts exclusions of one category.
type CategoryCount struct {
	Category string `json:"category"`
	Count    int    `json:"count"`
}

// Summary is the outcome of a validation pass (validation.json).
type Summary struct {
	Model         string          `json:"model"`
	RepairModel   string          `json:"repair_model,omitempty"`
	Rubric        string          `json:"rubric"`
	PromptVersion string          `json:"prompt_version"`
	PromptHash    string          `json:"prompt_hash"`
	Submitted     int             `json:"submitted"`
	JudgedNow     int             `json:"judged_now"`
	Resumed       int             `json:"resumed"`
	Rechecked     int             `json:"rechecked,omitempty"` // judged again (--recheck all)
	Core          int             `json:"core"`
	Excluded      int             `json:"excluded"`
	Categories    []CategoryCount `json:"categories"`
	Flags         struct {
		ISELowConfidence   int     `json:"ise_low_confidence"`
		FixIntroducesLabel int     `json:"fix_introduces_label"`
		ISEMaxConfidence   float64 `json:"ise_max_confidence"`
	} `json:"flags"`
	Table    Table    `json:"table"`
	Warnings []string `json:"warnings,omitempty"`
}

// Run judges every pair not yet in dir/judgements.jsonl, appending one
// record per pair as soon as it is decided, then rewrites core.jsonl,
// excluded.jsonl, validation.json and validation.md from the whole log. A
// killed or cancelled run keeps every finished record; rerunning it judges
// only the rest, so no pair is judged twice within a pass. One directory
// holds one pass: a log written by another judge model or rubric is refused.
func Run(ctx context.Context, j *Judge, pairs []corpus.Pair, dir string, opts RunOptions) (*Summary, error) {
	if err := checkPairIDs(pairs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	logPath := filepath.Join(dir, JudgementsFile)
	all := opts.Recheck == runkey.RecheckAll
	res, err := step.Run(ctx, step.Spec[corpus.Pair, Record]{
		Path: logPath, Key: Key, Items: pairs, ID: func(p corpus.Pair) string { return p.PairID },
		Check:   func(r Record) error { return onePass(j, logPath, r) },
		Retry:   func(Record) bool { return all },
		Workers: opts.Workers, Sync: jsonl.SyncEach, Progress: opts.Progress, Noun: "judgements",
	}, func(ctx context.Context, p corpus.Pair, emit step.Emit[Record]) error {
		rec, err := j.Judge(ctx, p)
		if err != nil {
			return err
		}
		return emit(rec)
	})
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	sum := &Summary{Model: j.Model(), Rubric: j.Rubric(), PromptVersion: PromptVersion, PromptHash: PromptHash(j.Rubric()),
		Submitted: len(pairs), Warnings: res.Warnings, JudgedNow: res.Written, Resumed: res.Resumed, Rechecked: res.Rechecked}
	if j.repair != nil {
		sum.RepairModel = j.repair.ID()
	}
	if err := writeOutputs(dir, pairs, res.Records, opts, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// checkPairIDs refuses a pair without an id or an id given twice: ids key
// the judgement log.
func checkPairIDs(pairs []corpus.Pair) error {
	seen := make(map[string]bool, len(pairs))
	for i, p := range pairs {
		if p.PairID == "" {
			return fmt.Errorf("validate: %w: candidate %d has no pair_id", errs.ErrInput, i+1)
		}
		if seen[p.PairID] {
			return fmt.Errorf("validate: %w: pair_id %s occurs twice in the candidates; ids key the judgement log", errs.ErrInput, p.PairID)
		}
		seen[p.PairID] = true
	}
	return nil
}

// onePass refuses a log holding a judgement by another judge model or
// rubric: one directory holds one pass.
func onePass(j *Judge, logPath string, r Record) error {
	if r.Model != j.Model() || r.Rubric != j.Rubric() {
		return fmt.Errorf("%w: %s holds judgements by %s under the %s rubric (pair %s); one directory holds one pass — use another --out for %s under %s",
			errs.ErrUsage, logPath, r.Model, r.Rubric, r.PairID, j.Model(), j.Rubric())
	}
	return nil
}

// writeOutputs rebuilds the derived files from the log, in input order.
func writeOutputs(dir string, pairs []corpus.Pair, recs []Record, opts RunOptions, sum *Summary) error {
	iseMax := DefaultISEMaxConfidence
	if opts.ISEMaxConfidence != nil {
		iseMax = *opts.ISEMaxConfidence
	}
	sum.Flags.ISEMaxConfidence = iseMax
	v := sortVerdicts(pairs, recs, iseMax)
	if extra := len(recs) - len(v.inPass); extra > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d judgements in %s are for pairs not in the candidates; they are left out of the outputs", extra, JudgementsFile))
	}
	for _, p := range v.core {
		if p.Flags.ISELowConfidence {
			sum.Flags.ISELowConfidence++
		}
		if p.Flags.FixIntroducesLabel {
			sum.Flags.FixIntroducesLabel++
		}
	}
	sum.Core, sum.Excluded = len(v.core), len(v.excluded)
	sum.Categories = categoryCounts(v.excluded)
	sum.Table = BuildTable(v.inPass)
	sum.Table.Model, sum.Table.Rubric = sum.Model, sum.Rubric
	return writeFiles(dir, v, sum)
}

// verdicts are a pass's judgements of the input pairs, in input order.
type verdicts struct {
	core     []corpus.Pair
	excluded []Excluded
	inPass   []Record
}

// sortVerdicts sorts the judgement of each input pair into the core
// (accepted, with its release flags) or the excluded pairs; pairs not
// judged yet are left out.
func sortVerdicts(pairs []corpus.Pair, recs []Record, iseMax float64) verdicts {
	byID := make(map[string]Record, len(recs))
	for _, r := range recs {
		byID[r.PairID] = r
	}
	v := verdicts{core: []corpus.Pair{}, excluded: []Excluded{}}
	for _, p := range pairs {
		r, ok := byID[p.PairID]
		if !ok {
			continue
		}
		v.inPass = append(v.inPass, r)
		if r.Verdict != Accept {
			v.excluded = append(v.excluded, Excluded{PairID: r.PairID, SampleID: r.SampleID, ErrorType: r.ErrorType,
				Category: r.Category, Reason: r.Reason, Model: r.Model, Rubric: r.Rubric})
			continue
		}
		v.core = append(v.core, accepted(p, r, iseMax))
	}
	return v
}

// categoryCounts counts the excluded pairs per category, in Categories
// order, leaving out the empty ones.
func categoryCounts(excluded []Excluded) []CategoryCount {
	cats := map[string]int{}
	for _, e := range excluded {
		cats[e.Category]++
	}
	out := []CategoryCount{}
	for _, c := range Categories {
		if cats[c] > 0 {
			out = append(out, CategoryCount{c, cats[c]})
		}
	}
	return out
}

// writeFiles writes core.jsonl, excluded.jsonl, validation.json and
// validation.md.
func writeFiles(dir string, v verdicts, sum *Summary) error {
	if err := jsonl.Rewrite(filepath.Join(dir, CoreFile), v.core); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := jsonl.Rewrite(filepath.Join(dir, ExcludedFile), v.excluded); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := output.WriteJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := output.WriteFile(filepath.Join(dir, TableFile), []byte(sum.Table.Markdown())); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	return nil
}

// accepted is the core record of an accepted pair: the repaired fixed
// method when the pair was repaired, the accepting judgement, and the
// release flags.
func accepted(p corpus.Pair, r Record, iseMax float64) corpus.Pair {
	s1 := r.Stage1
	if r.Repair != nil && r.Repair.FixedMethod != "" {
		p.FixedMethod = r.Repair.FixedMethod
		s1 = r.Repair.Stage1
	}
	jd := &corpus.Judgement{Model: r.Model, Confidence: r.Confidence, Verdict: Accept, Repaired: r.Repair != nil}
	if s1 != nil {
		jd.Site, jd.SiteLine, jd.Trigger = s1.ThrowingExpression, s1.Line, s1.Trigger
	}
	p.Judge = jd
	p.Flags = corpus.Flags{
		ISELowConfidence:   ISELowConfidence(p.ErrorType, r.Confidence, iseMax),
		FixIntroducesLabel: FixIntroducesLabel(p.ErrorType, p.BuggyMethod, p.FixedMethod),
	}
	return p
}

package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
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
	seen := make(map[string]bool, len(pairs))
	for i, p := range pairs {
		if p.PairID == "" {
			return nil, fmt.Errorf("validate: %w: candidate %d has no pair_id", errs.ErrInput, i+1)
		}
		if seen[p.PairID] {
			return nil, fmt.Errorf("validate: %w: pair_id %s occurs twice in the candidates; ids key the judgement log", errs.ErrInput, p.PairID)
		}
		seen[p.PairID] = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	logPath := filepath.Join(dir, JudgementsFile)
	all := opts.Recheck == runkey.RecheckAll
	log, err := jsonl.OpenRetry(logPath, Key, jsonl.Options{Sync: jsonl.SyncEach}, func(Record) bool { return all })
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	defer log.Close()
	old, err := jsonl.ReadFile[Record](logPath)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	for _, r := range old {
		if r.Model != j.Model() || r.Rubric != j.Rubric() {
			return nil, fmt.Errorf("validate: %w: %s holds judgements by %s under the %s rubric (pair %s); one directory holds one pass — use another --out for %s under %s",
				errs.ErrUsage, logPath, r.Model, r.Rubric, r.PairID, j.Model(), j.Rubric())
		}
	}
	sum := &Summary{Model: j.Model(), Rubric: j.Rubric(), PromptVersion: PromptVersion, PromptHash: PromptHash(j.Rubric()),
		Submitted: len(pairs), Warnings: log.Warnings()}
	if j.repair != nil {
		sum.RepairModel = j.repair.ID()
	}
	var todo []corpus.Pair
	for _, p := range pairs {
		if log.Has(p.PairID) {
			sum.Resumed++
		} else {
			if log.Retried(p.PairID) {
				sum.Rechecked++
			}
			todo = append(todo, p)
		}
	}
	sum.JudgedNow, err = judgeAll(ctx, j, todo, log, opts)
	if err != nil {
		return nil, fmt.Errorf("validate: %w (finished judgements are kept in %s; rerun to resume)", err, logPath)
	}
	if err := log.Close(); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	recs, err := jsonl.ReadFile[Record](logPath)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	recs = jsonl.Latest(recs, Key)
	if err := writeOutputs(dir, pairs, recs, opts, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// judgeAll judges todo with opts.Workers workers, appending each record.
// The first error stops the pass; records already appended stay.
func judgeAll(ctx context.Context, j *Judge, todo []corpus.Pair, log *jsonl.Log[Record], opts RunOptions) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(opts.Workers, 1)
	next := make(chan corpus.Pair)
	var (
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				rec, err := j.Judge(ctx, p)
				if err == nil {
					err = log.Append(rec)
				}
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				done++
				n := done
				mu.Unlock()
				if opts.Progress != nil {
					opts.Progress(n, len(todo))
				}
			}
		}()
	}
feed:
	for _, p := range todo {
		select {
		case next <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = context.Cause(ctx)
	}
	if errors.Is(firstErr, context.Canceled) && done == len(todo) {
		firstErr = nil
	}
	return done, firstErr
}

// writeOutputs rebuilds the derived files from the log, in input order.
func writeOutputs(dir string, pairs []corpus.Pair, recs []Record, opts RunOptions, sum *Summary) error {
	iseMax := DefaultISEMaxConfidence
	if opts.ISEMaxConfidence != nil {
		iseMax = *opts.ISEMaxConfidence
	}
	sum.Flags.ISEMaxConfidence = iseMax
	byID := make(map[string]Record, len(recs))
	for _, r := range recs {
		byID[r.PairID] = r
	}
	var (
		core     = []corpus.Pair{}
		excluded = []Excluded{}
		inPass   []Record
		cats     = map[string]int{}
	)
	for _, p := range pairs {
		r, ok := byID[p.PairID]
		if !ok {
			continue
		}
		inPass = append(inPass, r)
		if r.Verdict != Accept {
			excluded = append(excluded, Excluded{PairID: r.PairID, SampleID: r.SampleID, ErrorType: r.ErrorType,
				Category: r.Category, Reason: r.Reason, Model: r.Model, Rubric: r.Rubric})
			cats[r.Category]++
			continue
		}
		core = append(core, accepted(p, r, iseMax))
		if f := core[len(core)-1].Flags; f.ISELowConfidence {
			sum.Flags.ISELowConfidence++
		}
		if core[len(core)-1].Flags.FixIntroducesLabel {
			sum.Flags.FixIntroducesLabel++
		}
	}
	if extra := len(recs) - len(inPass); extra > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d judgements in %s are for pairs not in the candidates; they are left out of the outputs", extra, JudgementsFile))
	}
	sum.Core, sum.Excluded = len(core), len(excluded)
	sum.Categories = []CategoryCount{}
	for _, c := range Categories {
		if cats[c] > 0 {
			sum.Categories = append(sum.Categories, CategoryCount{c, cats[c]})
		}
	}
	sum.Table = BuildTable(inPass)
	sum.Table.Model, sum.Table.Rubric = sum.Model, sum.Rubric
	if err := jsonl.Rewrite(filepath.Join(dir, CoreFile), core); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := jsonl.Rewrite(filepath.Join(dir, ExcludedFile), excluded); err != nil {
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

package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Output file names inside the output directory.
const (
	PairsFile      = "pairs.jsonl"
	RejectionsFile = "rejections.jsonl"
	SummaryFile    = "gate_summary.json"
)

// WriteOutputs replaces the accepted pairs, the rejection log and the
// summary in dir (they are recomputed from the candidates on every run).
func WriteOutputs(dir string, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gate.WriteOutputs(%s): %w", dir, err)
	}
	if err := jsonl.Rewrite(filepath.Join(dir, PairsFile), res.Accepted); err != nil {
		return fmt.Errorf("gate.WriteOutputs: %w", err)
	}
	if err := jsonl.Rewrite(filepath.Join(dir, RejectionsFile), res.Rejected); err != nil {
		return fmt.Errorf("gate.WriteOutputs: %w", err)
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("gate.WriteOutputs: %w", err)
	}
	p := filepath.Join(dir, SummaryFile)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("gate.WriteOutputs(%s): %w", p, err)
	}
	return nil
}

// ReadCandidates reads a candidates JSONL file.
func ReadCandidates(path string) ([]corpus.Candidate, error) {
	cs, err := jsonl.ReadFile[corpus.Candidate](path)
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	for i, c := range cs {
		if c.ID == "" {
			return nil, fmt.Errorf("read candidates: %s: record %d has no id: %w", path, i+1, errs.ErrInput)
		}
	}
	return cs, nil
}

// ReadSeeds reads a seeds JSONL file and validates every record.
func ReadSeeds(path string) ([]corpus.Seed, error) {
	ss, err := jsonl.ReadFile[corpus.Seed](path)
	if err != nil {
		return nil, fmt.Errorf("read seeds: %w", err)
	}
	for i, s := range ss {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("read seeds: %s: record %d: %w", path, i+1, err)
		}
	}
	return ss, nil
}

package pipeline

import (
	"context"
	"fmt"

	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/bench"
)

// RescoreFiles are the inputs of the leaderboard re-scoring, as `audit
// rescore` takes them.
type RescoreFiles struct {
	// Benchmark, when set, is read with bench.Load in Format (Strict makes
	// an invalid record fatal): it fixes the sample set and gives the
	// difficulty buckets. "" takes the samples of the verdict file.
	Benchmark string
	Format    bench.Format
	Strict    bool
	// Verdicts holds Verdict or Stage II PatchVerdict records
	// (rescore.ReadVerdicts); Leaderboard the submissions
	// (rescore.ReadLeaderboard).
	Verdicts, Leaderboard string
}

// Rescore is the re-scoring of `audit rescore` and of the demo: it reads
// f's files and re-scores the leaderboard on the clean samples. It returns
// the benchmark records it skipped even when reading the verdicts or the
// leaderboard fails, so a caller can report them first. An error reading
// those two names the file by its `audit rescore` flag, as the command
// prints it.
func Rescore(ctx context.Context, f RescoreFiles, o rescore.Options) (*rescore.Result, []bench.Problem, error) {
	var samples []bench.Sample
	var problems []bench.Problem
	if f.Benchmark != "" {
		var err error
		if samples, problems, err = bench.Load(ctx, f.Benchmark, f.Format, bench.LoadOptions{Strict: f.Strict}); err != nil {
			return nil, nil, err
		}
	}
	v, err := rescore.ReadVerdicts(f.Verdicts)
	if err != nil {
		return nil, problems, fmt.Errorf("audit rescore: --verdicts: %w", err)
	}
	subs, err := rescore.ReadLeaderboard(f.Leaderboard)
	if err != nil {
		return nil, problems, fmt.Errorf("audit rescore: --leaderboard: %w", err)
	}
	res, err := rescore.Rescore(samples, v, subs, o)
	return res, problems, err
}

package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jdk"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/mutation"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// Synth holds the synthesis job's results.
type Synth struct {
	Seeds      []corpus.Seed           `json:"seeds"`
	Excluded   []SeedExclusion         `json:"seed_exclusions"`
	Patterns   []mutation.PatternCount `json:"seed_patterns"`
	Generator  string                  `json:"generator"`
	Generate   *generate.Stats         `json:"generate"`
	Gate       *gate.Result            `json:"gate"`
	Accepted   int                     `json:"accepted"`
	Verify     *VerifySummary          `json:"verify,omitempty"`
	Fidelity   *fidelity.Report        `json:"fidelity,omitempty"`
	Evaluation *evaluate.Report        `json:"evaluation,omitempty"`
}

// VerifySummary is the JVM verification outcome.
type VerifySummary struct {
	JDK      string    `json:"jdk"`
	Verified int       `json:"verified"`
	Table    jvm.Table `json:"table"`
}

func (r *runner) synthSeeds() (string, error) {
	ss, excl, err := ExtractSeeds(BugsFS())
	if err != nil {
		return "", err
	}
	if len(ss) == 0 {
		return "", fmt.Errorf("demo: no seed survived F3/F4: %w", errs.ErrInput)
	}
	r.res.Synth.Seeds, r.res.Synth.Excluded = ss, excl
	r.res.Synth.Patterns = mutation.MinePatterns(ss)
	return "", jsonl.Rewrite(r.path("synth", "seeds.jsonl"), ss)
}

func (r *runner) synthGenerate() (string, error) {
	src, err := jdk.SrcZip()
	if err != nil {
		return "", fmt.Errorf("demo: the mutation generator needs the JDK's src.zip: %w", err)
	}
	per := 10
	if r.opts.Quick {
		per = 4
	}
	dir := r.path("synth")
	// The candidate logs are append-only; a fresh demo starts them afresh
	// so the counts match this run.
	if err := removeAll(dir, generate.CandidatesFile, generate.AttemptsFile); err != nil {
		return "", err
	}
	g, err := mutation.New(mutation.Options{Corpus: src, Seed: r.opts.Seed, PublicOnly: true})
	if err != nil {
		return "", err
	}
	defer g.Close()
	quotas := map[string]int{}
	for _, t := range corpus.Types {
		quotas[t] = per
	}
	st, err := generate.Run(r.ctx, g, generate.RunOptions{Dir: dir, PerType: quotas, Seeds: r.res.Synth.Seeds,
		Progress: func(chunk int, have map[string]int) {
			n := 0
			for _, v := range have {
				n += v
			}
			r.progress(n, per*len(corpus.Types), "candidates")
		}})
	if err != nil {
		return "", err
	}
	res, err := r.gateCandidates(dir)
	if err != nil {
		return "", err
	}
	r.res.Synth.Generator, r.res.Synth.Generate, r.res.Synth.Gate = g.ID(), st, res
	r.res.Synth.Accepted = len(res.Accepted)
	return "", nil
}

// removeAll removes the named files of dir; a missing one is fine.
func removeAll(dir string, names ...string) error {
	for _, f := range names {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// gateCandidates runs the gates on the candidates generated in dir, as
// `synth gate` does, and writes their outputs there.
func (r *runner) gateCandidates(dir string) (*gate.Result, error) {
	cands, err := gate.ReadCandidates(filepath.Join(dir, generate.CandidatesFile))
	if err != nil {
		return nil, err
	}
	res, err := gate.Run(r.ctx, cands, r.res.Synth.Seeds, gate.DefaultOptions())
	if err != nil {
		return nil, err
	}
	if err := gate.WriteOutputs(dir, res); err != nil {
		return nil, err
	}
	return res, nil
}

// errNoPairs is the skip note of the steps that need generated pairs.
const errNoPairs = "no pairs: synth/generate did not run"

// pairs reads the accepted pairs the gates wrote in this run; none when
// synth/generate was skipped.
func (r *runner) pairs() ([]corpus.Pair, error) {
	if r.res.Synth.Gate == nil {
		return nil, nil
	}
	return jsonl.ReadFile[corpus.Pair](r.path("synth", "pairs.jsonl"))
}

func (r *runner) synthVerify() (string, error) {
	j, err := jvm.FindJDK(r.ctx)
	if err != nil {
		if errors.Is(err, errs.ErrUnavailable) {
			return "no JDK found (set JAVA_HOME or put javac and java on PATH): JVM verification skipped", nil
		}
		return "", err
	}
	pairs, err := r.pairs()
	if err != nil || len(pairs) == 0 {
		return errNoPairs, err
	}
	if err := os.Remove(r.path("synth", "executions.jsonl")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("demo: %w", err)
	}
	o := jvm.Options{Budget: 50, Timeout: 2 * time.Second, JDK: &j,
		Progress: func(done, total int) { r.progress(done, total, "pairs") }}
	if r.opts.Quick {
		o.Budget = 30
	}
	s, err := jvm.Run(r.ctx, pairs, r.path("synth"), o)
	if err != nil {
		return "", err
	}
	r.res.Synth.Verify = &VerifySummary{JDK: j.Version + " (" + j.Java + ")", Verified: s.Verified, Table: s.Table}
	r.res.Notes = append(r.res.Notes, s.Warnings...)
	return "", nil
}

func (r *runner) synthFidelity() (string, error) {
	if len(r.res.Synth.Seeds) == 0 {
		return "no seeds: synth/seeds did not run", nil
	}
	pairs, err := r.pairs()
	if err != nil || len(pairs) == 0 {
		return errNoPairs, err
	}
	rep, err := fidelity.Run(r.ctx, pairs, r.res.Synth.Seeds, fidelity.Options{})
	if err != nil {
		return "", err
	}
	r.res.Synth.Fidelity = rep
	return "", output.WriteJSON(r.path("synth", "fidelity.json"), rep)
}

func (r *runner) synthEvaluate() (string, error) {
	if len(r.res.Synth.Seeds) == 0 {
		return "no seeds: synth/seeds did not run", nil
	}
	pairs, err := r.pairs()
	if err != nil || len(pairs) == 0 {
		return errNoPairs, err
	}
	o := evaluate.Options{Folds: 2, RunSeeds: []uint64{42, 7}, Trees: 40, Bootstrap: 2000, NoSweep: true,
		Progress: func(done, total int) { r.progress(done, total, "model fits") }}
	if r.opts.Quick {
		o.RunSeeds, o.Models, o.Trees, o.Bootstrap, o.NoLeaky, o.NoRealCV = []uint64{42}, []string{evaluate.ModelLR, evaluate.ModelRF}, 25, 1000, true, true
	}
	res, err := evaluate.Run(r.ctx, pairs, r.res.Synth.Seeds, o)
	if err != nil {
		return "", err
	}
	r.res.Synth.Evaluation = res.Report
	dir := r.path("synth")
	if err := jsonl.Rewrite(filepath.Join(dir, "folds.jsonl"), res.Folds); err != nil {
		return "", err
	}
	if err := jsonl.Rewrite(filepath.Join(dir, "predictions.jsonl"), res.Predictions); err != nil {
		return "", err
	}
	return "", output.WriteJSON(filepath.Join(dir, "evaluation.json"), res.Report)
}

// Package baselines owns the logit-based membership-inference baselines that
// benchchecker §5.1 compares BenchChecker against (Tables 2–4): Loss (Yeom
// et al.), Zlib and Ref (Carlini et al.) and Min-K% (Shi et al.). They need a
// model that returns per-token log-probabilities (llm.Model.Score: an
// OpenAI-compatible completions endpoint with echo+logprobs, vLLM, llama.cpp
// or benchforge's n-gram server); black-box chat APIs cannot run them.
//
// Definitions, for a text scored token by token with natural-log
// probabilities lp₁…lpₙ (the text's first token, which has no conditional
// probability, is left out):
//
//   - Loss = −(1/n)·Σ lpᵢ, the mean negative log-likelihood (nats/token);
//   - Zlib = Loss / Z, with Z the length in bytes of the text compressed by
//     Go's compress/zlib at the default level (the form of the Min-K%
//     reference implementation, Carlini's "ratio of log-perplexity to zlib
//     entropy"; Go's stream is 3–4 bytes longer than Python's
//     zlib.compress, which omits Go's empty final block);
//   - Min-K% = the mean of the ⌊k·n⌋ lowest lpᵢ (at least one), k = 20% by
//     default (Shi et al. 2024);
//   - Ref = Loss(target) − Loss(reference), the target's loss calibrated by
//     a reference model that did not see the text (Carlini et al. 2021).
//     Both losses are per token of each model's own tokenizer.
//
// Loss, Zlib and Ref are low for members; Min-K% is high (close to 0) for
// members. Membership turns each into a score where higher means "more
// likely seen", the orientation ROC curves are drawn in.
//
// What is scored (benchchecker §5.1): per sample, the gold patch's added
// source lines (PatchText); per repository, the mean of each score over
// snippets sampled from the cutoff snapshot (Snippets, Scorer.Mean).
package baselines

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// errNoTokens marks a text that gave no scored token (skipped by Mean).
var errNoTokens = errors.New("no scored token")

// DefaultK is Min-K%'s k: the fraction of lowest-probability tokens averaged.
const DefaultK = 0.2

// Method names, in report order.
const (
	MethodLoss = "loss"
	MethodZlib = "zlib"
	MethodMinK = "min_k"
	MethodRef  = "ref"
)

// Methods lists the baselines in report order.
var Methods = []string{MethodLoss, MethodZlib, MethodMinK, MethodRef}

// Scores are the baseline scores of one text (or, from Mean, the mean over
// several texts). RefLoss and Ref are nil without a reference model.
type Scores struct {
	Texts   int      `json:"texts"`  // texts averaged (1 for a single text)
	Tokens  int      `json:"tokens"` // scored target-model tokens, summed over texts
	Loss    float64  `json:"loss"`
	Zlib    float64  `json:"zlib"`
	MinK    float64  `json:"min_k"`
	K       float64  `json:"k"`
	RefLoss *float64 `json:"ref_loss,omitempty"`
	Ref     *float64 `json:"ref,omitempty"`
}

// Membership returns each available method's score oriented so that higher
// means more likely a training member: −Loss, −Zlib, Min-K%, −Ref.
func (s Scores) Membership() map[string]float64 {
	m := map[string]float64{MethodLoss: -s.Loss, MethodZlib: -s.Zlib, MethodMinK: s.MinK}
	if s.Ref != nil {
		m[MethodRef] = -*s.Ref
	}
	return m
}

// Loss is the mean negative log-likelihood of lps; NaN for no token.
func Loss(lps []float64) float64 {
	if len(lps) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, lp := range lps {
		sum += lp
	}
	return -sum / float64(len(lps))
}

// ZlibLen is the length of text compressed with zlib at the default level.
func ZlibLen(text string) int {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = w.Write([]byte(text)) // writes to a bytes.Buffer cannot fail
	_ = w.Close()
	return b.Len()
}

// MinK is the mean of the ⌊k·n⌋ lowest log-probabilities of lps (at least
// one); NaN for no token. k outside (0, 1] is taken as DefaultK.
func MinK(lps []float64, k float64) float64 {
	if len(lps) == 0 {
		return math.NaN()
	}
	if !(k > 0 && k <= 1) {
		k = DefaultK
	}
	s := append([]float64(nil), lps...)
	sort.Float64s(s)
	n := max(1, int(k*float64(len(s))))
	sum := 0.0
	for _, lp := range s[:n] {
		sum += lp
	}
	return sum / float64(n)
}

// FromLogprobs computes Loss, Zlib and Min-K% of text from its token
// log-probabilities. It fails with errs.ErrInput when there is no token or a
// log-probability is not finite.
func FromLogprobs(text string, lps []float64, k float64) (Scores, error) {
	if len(lps) == 0 {
		return Scores{}, fmt.Errorf("baselines.FromLogprobs(%d bytes): %w: %w", len(text), errNoTokens, errs.ErrInput)
	}
	for i, lp := range lps {
		if math.IsNaN(lp) || math.IsInf(lp, 0) || lp > 0 {
			return Scores{}, fmt.Errorf("baselines.FromLogprobs: token %d has log-probability %v: %w", i, lp, errs.ErrInput)
		}
	}
	if !(k > 0 && k <= 1) {
		k = DefaultK
	}
	loss := Loss(lps)
	return Scores{Texts: 1, Tokens: len(lps), Loss: loss, Zlib: loss / float64(ZlibLen(text)), MinK: MinK(lps, k), K: k}, nil
}

// Logprobs extracts the conditional log-probabilities of a Score answer
// (tokens without one, such as the text's first token, are skipped).
func Logprobs(r *llm.ScoreResponse) []float64 {
	var out []float64
	for _, t := range r.Tokens {
		if t.HasLogprob {
			out = append(out, t.Logprob)
		}
	}
	return out
}

// Scorer scores texts with a target model and, when set, a reference model.
type Scorer struct {
	Target    llm.Model
	Reference llm.Model // nil: no Ref score
	K         float64   // Min-K%'s k; 0 means DefaultK
}

// Score computes the baselines of one text: one Score call to the target and
// one to the reference. A model that cannot score returns an error wrapping
// errs.ErrUnsupported; an empty text an error wrapping errs.ErrInput.
func (s Scorer) Score(ctx context.Context, text string) (Scores, error) {
	if text == "" {
		return Scores{}, fmt.Errorf("baselines.Score: empty text: %w: %w", errNoTokens, errs.ErrInput)
	}
	lps, err := s.logprobs(ctx, s.Target, text)
	if err != nil {
		return Scores{}, err
	}
	sc, err := FromLogprobs(text, lps, s.K)
	if err != nil {
		return Scores{}, fmt.Errorf("baselines.Score(%s): %w", s.Target.ID(), err)
	}
	if s.Reference != nil {
		rl, err := s.logprobs(ctx, s.Reference, text)
		if err != nil {
			return Scores{}, err
		}
		if len(rl) == 0 {
			return Scores{}, fmt.Errorf("baselines.Score(%s): reference: %w: %w", s.Reference.ID(), errNoTokens, errs.ErrInput)
		}
		ref := Loss(rl)
		d := sc.Loss - ref
		sc.RefLoss, sc.Ref = &ref, &d
	}
	return sc, nil
}

func (s Scorer) logprobs(ctx context.Context, m llm.Model, text string) ([]float64, error) {
	r, err := m.Score(ctx, llm.ScoreRequest{Prompt: text})
	if err != nil {
		return nil, fmt.Errorf("baselines.Score(%s): %w", m.ID(), err)
	}
	return Logprobs(r), nil
}

// Mean scores every text and averages each score over the texts that could be
// scored (texts with no scored token are skipped); Tokens is the total.
// It fails with errs.ErrInput when no text could be scored.
func (s Scorer) Mean(ctx context.Context, texts []string) (Scores, error) {
	var all []Scores
	for _, t := range texts {
		sc, err := s.Score(ctx, t)
		if err != nil {
			if errors.Is(err, errNoTokens) {
				continue
			}
			return Scores{}, err
		}
		all = append(all, sc)
	}
	return MeanOf(all)
}

// MeanOf averages scores (Ref only when every element has it).
func MeanOf(all []Scores) (Scores, error) {
	if len(all) == 0 {
		return Scores{}, fmt.Errorf("baselines.Mean: no text could be scored: %w", errs.ErrInput)
	}
	out := Scores{K: all[0].K}
	var refLoss, ref float64
	hasRef := true
	for _, sc := range all {
		out.Texts += max(sc.Texts, 1)
		out.Tokens += sc.Tokens
		out.Loss += sc.Loss
		out.Zlib += sc.Zlib
		out.MinK += sc.MinK
		if sc.Ref == nil {
			hasRef = false
		} else {
			refLoss += *sc.RefLoss
			ref += *sc.Ref
		}
	}
	n := float64(len(all))
	out.Loss /= n
	out.Zlib /= n
	out.MinK /= n
	if hasRef {
		refLoss, ref = refLoss/n, ref/n
		out.RefLoss, out.Ref = &refLoss, &ref
	}
	return out, nil
}

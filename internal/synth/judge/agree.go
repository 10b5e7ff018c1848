package judge

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Source is one judgement log read for agreement analysis: one judge model
// under one rubric.
type Source struct {
	Path   string
	Label  string
	Model  string
	Rubric string
	// Initial maps pair id to the verdict on the pair as submitted (before
	// repair): agreement is about judging, not about the repair.
	Initial map[string]string
	// Type maps pair id to its error type.
	Type map[string]string
	// Order lists the pair ids in log order.
	Order []string
}

// LoadSource reads a judgements.jsonl file. It must hold judgements of one
// model under one rubric (as Run writes it).
func LoadSource(path string) (*Source, error) {
	recs, err := jsonl.ReadFile[Record](path)
	if err != nil {
		return nil, fmt.Errorf("agree: %w", err)
	}
	recs = jsonl.Latest(recs, Key) // a rechecked pair: its newest judgement
	if len(recs) == 0 {
		return nil, fmt.Errorf("agree: %s: %w: no judgements", path, errs.ErrInput)
	}
	s := &Source{Path: path, Model: recs[0].Model, Rubric: recs[0].Rubric, Initial: map[string]string{}, Type: map[string]string{}}
	for i, r := range recs {
		if r.Model != s.Model || r.Rubric != s.Rubric {
			return nil, fmt.Errorf("agree: %s:%d: %w: judgement by %s under %s in a log of %s under %s; give one file per judge run",
				path, i+1, errs.ErrInput, r.Model, r.Rubric, s.Model, s.Rubric)
		}
		if r.Category == CatInvalid {
			continue // never judged
		}
		if _, dup := s.Initial[r.PairID]; !dup {
			s.Order = append(s.Order, r.PairID)
		}
		s.Initial[r.PairID], s.Type[r.PairID] = r.Initial, r.ErrorType
	}
	return s, nil
}

// Acceptance is one source's acceptance rate (Table 5 shape): accepted
// over parseable judgements, with its Wilson 95% interval.
type Acceptance struct {
	Source      string          `json:"source"`
	Path        string          `json:"path"`
	Model       string          `json:"model"`
	Rubric      string          `json:"rubric"`
	Judged      int             `json:"judged"`
	Unparseable int             `json:"unparseable"`
	Accepted    int             `json:"accepted"`
	Rate        float64         `json:"rate"`
	CI          *stats.Interval `json:"ci95,omitempty"` // nil when no judgement parsed
}

// PairAgreement is the agreement of two sources on the pairs both judged
// parseably (Table 6 shape). Repeated marks two runs of the same model
// under the same rubric (self-agreement).
type PairAgreement struct {
	A        string `json:"a"`
	B        string `json:"b"`
	Sample   string `json:"sample"` // "all" or "excl. IllegalStateException"
	Repeated bool   `json:"repeated"`
	SameRub  bool   `json:"same_rubric"`
	// N counts pairs both sources judged parseably; Dropped those judged by
	// both where at least one answer was unparseable (excluded, Table 6
	// note a).
	N       int                `json:"n"`
	Dropped int                `json:"dropped_unparseable"`
	Agree   float64            `json:"agree"`
	Kappa   *stats.KappaResult `json:"kappa,omitempty"`
	// KappaNote says why Kappa is absent.
	KappaNote string `json:"kappa_note,omitempty"`
}

// Agreement is the output of Agree.
type Agreement struct {
	Acceptance []Acceptance    `json:"acceptance"`
	Pairs      []PairAgreement `json:"pairs"`
}

// Agree computes each source's acceptance and, for every two sources, the
// raw agreement and Cohen's κ on accept/reject over the pairs both judged
// parseably — on all of them and without IllegalStateException pairs, the
// type the paper found least reliable (§5.2, Table 6).
func Agree(srcs []*Source) (*Agreement, error) {
	if len(srcs) < 2 {
		return nil, fmt.Errorf("agree: %w: need at least two judgement files, got %d", errs.ErrUsage, len(srcs))
	}
	label(srcs)
	out := &Agreement{}
	for _, s := range srcs {
		out.Acceptance = append(out.Acceptance, acceptance(s))
	}
	sortAcceptance(out.Acceptance)
	for i := range srcs {
		for k := i + 1; k < len(srcs); k++ {
			a, b := srcs[i], srcs[k]
			for _, exclISE := range []bool{false, true} {
				out.Pairs = append(out.Pairs, pairAgreement(a, b, exclISE))
			}
		}
	}
	return out, nil
}

// acceptance is one source's first-pass acceptance rate over the pairs it
// judged parseably, with its Wilson interval.
func acceptance(s *Source) Acceptance {
	a := Acceptance{Source: s.Label, Path: s.Path, Model: s.Model, Rubric: s.Rubric, Judged: len(s.Initial)}
	for _, v := range s.Initial {
		switch v {
		case Accept:
			a.Accepted++
		case Unparseable:
			a.Unparseable++
		}
	}
	if n := a.Judged - a.Unparseable; n > 0 {
		a.Rate = float64(a.Accepted) / float64(n)
		if ci, err := stats.Wilson(a.Accepted, n, 0.95); err == nil {
			a.CI = &ci
		}
	}
	return a
}

// pairAgreement is the agreement of sources a and b on the pairs both
// judged parseably (without IllegalStateException pairs when exclISE).
func pairAgreement(a, b *Source, exclISE bool) PairAgreement {
	p := PairAgreement{A: a.Label, B: b.Label, Sample: "all", SameRub: a.Rubric == b.Rubric,
		Repeated: a.Model == b.Model && a.Rubric == b.Rubric}
	if exclISE {
		p.Sample = "excl. " + corpus.IllegalState
	}
	va, vb := p.verdicts(a, b, exclISE)
	p.N = len(va)
	if p.N == 0 {
		p.KappaNote = "no pairs judged parseably by both"
		return p
	}
	p.Agree = float64(sameCount(va, vb)) / float64(p.N)
	k, err := stats.CohensKappa(va, vb, 0.95)
	if err != nil {
		p.KappaNote = "undefined: both judges gave one and the same verdict to every pair"
		return p
	}
	p.Kappa = &k
	return p
}

// verdicts returns a's and b's accept verdicts on the pairs both judged,
// in a's order, counting in p.Dropped the pairs either found unparseable.
func (p *PairAgreement) verdicts(a, b *Source, exclISE bool) (va, vb []bool) {
	for _, id := range a.Order {
		x := a.Initial[id]
		y, ok := b.Initial[id]
		if !ok || exclISE && a.Type[id] == corpus.IllegalState {
			continue
		}
		if x == Unparseable || y == Unparseable {
			p.Dropped++
			continue
		}
		va, vb = append(va, x == Accept), append(vb, y == Accept)
	}
	return va, vb
}

// sameCount returns how many verdicts of va and vb are the same.
func sameCount(va, vb []bool) int {
	same := 0
	for i := range va {
		if va[i] == vb[i] {
			same++
		}
	}
	return same
}

// label names each source by its model, adding the rubric when the sources
// mix rubrics and "run k" (with the file) when a model and rubric repeat.
func label(srcs []*Source) {
	rubrics := map[string]bool{}
	count := map[[2]string]int{}
	for _, s := range srcs {
		rubrics[s.Rubric] = true
		count[[2]string{s.Model, s.Rubric}]++
	}
	seen := map[[2]string]int{}
	for _, s := range srcs {
		s.Label = s.Model
		if len(rubrics) > 1 {
			s.Label += " [" + s.Rubric + "]"
		}
		key := [2]string{s.Model, s.Rubric}
		if count[key] > 1 {
			seen[key]++
			s.Label += fmt.Sprintf(" run %d (%s)", seen[key], shortPath(s.Path))
		}
	}
}

// shortPath is the file's parent directory and name.
func shortPath(p string) string {
	dir, file := filepath.Split(filepath.Clean(p))
	if d := filepath.Base(dir); d != "." && d != string(filepath.Separator) && dir != "" {
		return filepath.Join(d, file)
	}
	return file
}

// Rubrics lists the rubrics in a fixed order.
var Rubrics = []string{RubricPatch, RubricWhole}

// sortAcceptance orders acceptance rows by rubric then rate, as Table 5.
func sortAcceptance(a []Acceptance) {
	slices.SortStableFunc(a, func(x, y Acceptance) int {
		if c := slices.Index(Rubrics, y.Rubric) - slices.Index(Rubrics, x.Rubric); c != 0 {
			return c // whole-method first, as Table 5
		}
		switch {
		case x.Rate < y.Rate:
			return -1
		case x.Rate > y.Rate:
			return 1
		}
		return 0
	})
}

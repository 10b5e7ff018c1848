package patchcheck

import (
	"fmt"
	"sort"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// EvalOptions select what EvaluateSet scores.
type EvalOptions struct {
	// Confidence keeps only labels of these confidences (high, medium,
	// low); empty keeps all.
	Confidence []string
	// Cutoff scores the verdicts at this cutoff; "" means each label's own
	// cutoff, else the sample's only verdict.
	Cutoff string
}

// SetEvaluation is an evaluation overall and per language, with the
// labels it used counted per language and confidence.
type SetEvaluation struct {
	Overall    *Evaluation            `json:"overall"`
	ByLanguage map[string]*Evaluation `json:"by_language"`
	// LanguageErrors says why a language has no figures (e.g. no absent
	// label).
	LanguageErrors map[string]string         `json:"language_errors,omitempty"`
	Labels         map[string]map[string]int `json:"labels"` // language → confidence → n
	// Dropped counts labels left out by the confidence filter.
	Dropped int `json:"dropped_by_confidence"`
}

// EvaluateSet joins verdicts (one or several cutoffs per sample) with
// labels and scores them overall and per language. Unknown and
// not_applicable verdicts are skipped and counted, as Evaluate does.
func EvaluateSet(verdicts []Verdict, labels []Label, o EvalOptions) (*SetEvaluation, error) {
	keep := map[string]bool{}
	for _, c := range o.Confidence {
		keep[c] = true
	}
	bySample := groupBySample(verdicts)
	se := &SetEvaluation{ByLanguage: map[string]*Evaluation{}, LanguageErrors: map[string]string{}, Labels: map[string]map[string]int{}}
	var all []scored
	perLang := map[string][]scored{}
	skipped := map[string]int{}
	var missing []string
	for _, l := range labels {
		if len(keep) > 0 && !keep[l.Confidence] {
			se.Dropped++
			continue
		}
		v, ok, err := verdictFor(bySample[l.ID], l, o.Cutoff)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, l.ID)
			continue
		}
		lang := labelLanguage(l, v)
		se.countLabel(lang, l.Confidence)
		if v.Verdict == Unknown || v.Verdict == NotApplicable {
			skipped[v.Verdict]++
			continue
		}
		all = append(all, scored{v, l.Present})
		perLang[lang] = append(perLang[lang], scored{v, l.Present})
	}
	ev, err := evaluate(all)
	for k, n := range skipped {
		ev.Skipped[k] += n
	}
	sort.Strings(missing)
	ev.Missing = missing
	se.Overall = ev
	se.evaluateLanguages(perLang)
	return se, err
}

// groupBySample groups verdicts by sample, in their order.
func groupBySample(verdicts []Verdict) map[string][]Verdict {
	bySample := map[string][]Verdict{}
	for _, v := range verdicts {
		bySample[v.SampleID] = append(bySample[v.SampleID], v)
	}
	return bySample
}

// labelLanguage is the label's language, else the verdict's.
func labelLanguage(l Label, v Verdict) string {
	if l.Language != "" {
		return l.Language
	}
	return verdictLanguage(v)
}

// countLabel counts one label of language lang with confidence conf.
func (se *SetEvaluation) countLabel(lang, conf string) {
	if se.Labels[lang] == nil {
		se.Labels[lang] = map[string]int{}
	}
	se.Labels[lang][conf]++
}

// evaluateLanguages scores each language's verdicts; a language whose
// evaluation fails records the error in LanguageErrors.
func (se *SetEvaluation) evaluateLanguages(perLang map[string][]scored) {
	for lang, ps := range perLang {
		e, lerr := evaluate(ps)
		se.ByLanguage[lang] = e
		if lerr != nil {
			se.LanguageErrors[lang] = lerr.Error()
		}
	}
}

// verdictFor picks sample l's verdict at the cutoff asked for (or the
// label's), or its only verdict when no cutoff is named.
func verdictFor(vs []Verdict, l Label, cutoff string) (Verdict, bool, error) {
	if cutoff == "" {
		cutoff = l.Cutoff
	}
	if cutoff == "" {
		switch len(vs) {
		case 0:
			return Verdict{}, false, nil
		case 1:
			return vs[0], true, nil
		}
		return Verdict{}, false, fmt.Errorf("sample %s has verdicts at %d cutoffs and its label names none: pass --cutoff: %w", l.ID, len(vs), errs.ErrUsage)
	}
	want, err := gitrepo.ParseTime(cutoff)
	if err != nil {
		return Verdict{}, false, fmt.Errorf("label of %s: cutoff %q: %w", l.ID, cutoff, err)
	}
	for _, v := range vs {
		if got, err := time.Parse(time.RFC3339, v.Cutoff); err == nil && got.Equal(want) {
			return v, true, nil
		}
	}
	return Verdict{}, false, nil
}

// verdictLanguage is the front-end language of the verdict's first block
// ("other" when none).
func verdictLanguage(v Verdict) string {
	for _, b := range v.Blocks {
		if l := langOf(b.File); l != "" {
			return string(l)
		}
	}
	return "other"
}

// Package zeroshot owns the unconditioned generator of rxsynth §4.1, used
// for the contrast corpus: the model sees no real bug/fix example. Each
// prompt names the target exception type, a failure mechanism, a concrete
// trigger pattern and a realistic programming context, and constrains the
// output to two methods — the mechanism × trigger × context scaffolding
// that was meant to give semantic variety without real exemplars.
//
// Scaffolds are prompts/scaffolds.json (embedded): per exception type a list
// of mechanisms, each with its triggers, and one list of contexts shared by
// all types. A type's combinations (every mechanism's triggers × every
// context) are shuffled and exhausted before they are reshuffled and reused,
// so prompt n of a type is a pure function of (Options.Seed, type, n).
// Candidates record the scaffold as "mechanism/trigger#/context" in their
// operator field, have no example_bug_ids and no size target (§4.1: zero-shot
// prompts carried none, which is why their methods came out short).
//
// The template (prompts/zeroshot.tmpl) is the revised §4.1 follow-up form
// for every type: the buggy method must itself throw and a "fix" that merely
// introduces a throw is prohibited. Version names template and scaffolds;
// TemplateHash hashes both. Calls, records and resumption are llmgen's.
package zeroshot

import (
	"crypto/sha256"
	_ "embed" // the prompt template and scaffolds
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"text/template"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
)

// Version names the generator, its template and scaffolds; change it with
// any edit to prompts/.
const Version = "zero-shot/v1"

var (
	//go:embed prompts/zeroshot.tmpl
	templateText string
	//go:embed prompts/scaffolds.json
	scaffoldText []byte
)

var tmpl = template.Must(template.New("zeroshot").Option("missingkey=error").Parse(templateText))

var templateHash = func() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", Version, templateText)
	h.Write(scaffoldText)
	return hex.EncodeToString(h.Sum(nil))
}()

// TemplateHash is the sha256 of Version, the template and the scaffolds.
func TemplateHash() string { return templateHash }

// Mechanism is a failure mechanism with its trigger patterns.
type Mechanism struct {
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Triggers []string `json:"triggers"`
}

// Context is a programming context.
type Context struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Scaffolds are the mechanisms per type and the shared contexts.
type Scaffolds struct {
	Contexts []Context              `json:"contexts"`
	Types    map[string][]Mechanism `json:"types"`
}

// Scaffold is one mechanism × trigger × context combination.
type Scaffold struct {
	Mechanism Mechanism
	Trigger   int
	Context   Context
}

// Label is "mechanism/trigger#/context".
func (s Scaffold) Label() string {
	return fmt.Sprintf("%s/t%d/%s", s.Mechanism.ID, s.Trigger+1, s.Context.ID)
}

// Default returns the embedded scaffolds, checked.
func Default() (Scaffolds, error) {
	var s Scaffolds
	if err := json.Unmarshal(scaffoldText, &s); err != nil {
		return s, fmt.Errorf("zeroshot: prompts/scaffolds.json: %w", err)
	}
	return s, s.Check()
}

// Check validates a scaffold set: known types, non-empty lists, unique ids.
func (s Scaffolds) Check() error {
	if len(s.Contexts) == 0 {
		return fmt.Errorf("zeroshot: scaffolds: no contexts: %w", errs.ErrInput)
	}
	for t, ms := range s.Types {
		if !corpus.ValidType(t) {
			return fmt.Errorf("zeroshot: scaffolds: unknown type %q (want one of %s): %w", t, strings.Join(corpus.Types, ", "), errs.ErrInput)
		}
		seen := map[string]bool{}
		for _, m := range ms {
			if m.ID == "" || seen[m.ID] || len(m.Triggers) == 0 {
				return fmt.Errorf("zeroshot: scaffolds: %s mechanism %q: empty or repeated id, or no trigger: %w", t, m.ID, errs.ErrInput)
			}
			seen[m.ID] = true
		}
	}
	return nil
}

// Options configure the zero-shot prompter.
type Options struct {
	Seed uint64
	// Scaffolds replaces the embedded set when it has any type.
	Scaffolds Scaffolds
}

// New returns the zero-shot generator over model.
func New(model llm.Model, opts Options, gopts llmgen.Options) (*llmgen.Generator, error) {
	p, err := NewPrompter(opts)
	if err != nil {
		return nil, err
	}
	return llmgen.New(p, model, gopts)
}

// Prompter renders zero-shot prompts; it implements llmgen.Prompter.
type Prompter struct {
	seed   uint64
	combos map[string][]Scaffold

	mu    sync.Mutex
	perms map[string]cycle
}

type cycle struct {
	n    int
	perm []int
}

// NewPrompter checks the scaffolds and enumerates each type's combinations.
func NewPrompter(opts Options) (*Prompter, error) {
	sc := opts.Scaffolds
	if len(sc.Types) == 0 {
		var err error
		if sc, err = Default(); err != nil {
			return nil, err
		}
	} else if err := sc.Check(); err != nil {
		return nil, err
	}
	p := &Prompter{seed: opts.Seed, combos: map[string][]Scaffold{}, perms: map[string]cycle{}}
	for t, ms := range sc.Types {
		for _, m := range ms {
			for ti := range m.Triggers {
				for _, c := range sc.Contexts {
					p.combos[t] = append(p.combos[t], Scaffold{Mechanism: m, Trigger: ti, Context: c})
				}
			}
		}
	}
	return p, nil
}

// Name is Version.
func (p *Prompter) Name() string { return Version }

// TemplateHash is the package TemplateHash.
func (p *Prompter) TemplateHash() string { return templateHash }

// Prepare ignores the seeds: zero-shot prompts carry no exemplar.
func (p *Prompter) Prepare([]corpus.Seed) error { return nil }

// Serves reports whether t has scaffolds.
func (p *Prompter) Serves(t string) bool { return len(p.combos[t]) > 0 }

// Combinations is the number of distinct scaffolds of type t.
func (p *Prompter) Combinations(t string) int { return len(p.combos[t]) }

// Scaffold returns the scaffold of prompt n of type t: the n-th draw from
// the type's shuffled combinations, reshuffled on each pass.
func (p *Prompter) Scaffold(t string, n int) (Scaffold, error) {
	all := p.combos[t]
	if len(all) == 0 {
		return Scaffold{}, fmt.Errorf("zeroshot: no scaffolds for type %q: %w", t, errs.ErrInput)
	}
	if n < 0 {
		return Scaffold{}, fmt.Errorf("zeroshot: prompt index %d < 0: %w", n, errs.ErrUsage)
	}
	c, pos := n/len(all), n%len(all)
	p.mu.Lock()
	defer p.mu.Unlock()
	cy, ok := p.perms[t]
	if !ok || cy.n != c {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", t, c)))
		var k uint64
		for _, b := range h[:8] {
			k = k<<8 | uint64(b)
		}
		cy = cycle{n: c, perm: rand.New(rand.NewPCG(p.seed, k)).Perm(len(all))}
		p.perms[t] = cy
	}
	return all[cy.perm[pos]], nil
}

// Prompt renders prompt n of type t.
func (p *Prompter) Prompt(t string, n int) (llmgen.Prompt, error) {
	s, err := p.Scaffold(t, n)
	if err != nil {
		return llmgen.Prompt{}, err
	}
	d := struct{ Type, Mechanism, Trigger, Context string }{t, s.Mechanism.Text, s.Mechanism.Triggers[s.Trigger], s.Context.Text}
	var sys, user strings.Builder
	if err := tmpl.ExecuteTemplate(&sys, "system", d); err != nil {
		return llmgen.Prompt{}, fmt.Errorf("zeroshot: render prompt: %w", err)
	}
	if err := tmpl.ExecuteTemplate(&user, "user", d); err != nil {
		return llmgen.Prompt{}, fmt.Errorf("zeroshot: render prompt: %w", err)
	}
	return llmgen.Prompt{System: sys.String(), User: user.String(), Operator: s.Label()}, nil
}

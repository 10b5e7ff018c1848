package evaluate

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// ProbeVersion names the probe prompts in prompts/*.tmpl. Change it with
// any edit to them; every answer records it with the texts' hash, and a
// log holding answers to other prompts is refused rather than mixed in.
const ProbeVersion = "probe-v1"

// ProbeLogFile is the append-only answer log inside the output directory.
const ProbeLogFile = "probes.jsonl"

//go:embed prompts/*.tmpl
var probeFS embed.FS

var probePrompts = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, task := range []string{Isolated, PairTask} {
		m[task] = template.Must(template.New(task).Option("missingkey=error").ParseFS(probeFS, "prompts/"+task+".tmpl"))
	}
	return m
}()

// ProbePromptHash is the sha256 (hex) of ProbeVersion and both templates,
// so an answer names the exact prompt behind it.
var ProbePromptHash = func() string {
	h := sha256.New()
	h.Write([]byte(ProbeVersion))
	for _, task := range []string{Isolated, PairTask} {
		b, _ := probeFS.ReadFile("prompts/" + task + ".tmpl") // embedded and parsed above
		fmt.Fprintf(h, "\x00%s\x00%d\x00", task, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}()

type probePromptData struct {
	Type, Method, A, B string
}

func renderProbe(task string, d probePromptData) (system, user string, err error) {
	t := probePrompts[task]
	var s, u strings.Builder
	if err := t.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", fmt.Errorf("render %s probe prompt: %w", task, err)
	}
	if err := t.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", fmt.Errorf("render %s probe prompt: %w", task, err)
	}
	return s.String(), u.String(), nil
}

// ProbeRecord is one zero-shot probe answer, one line of probes.jsonl,
// keyed by (model, task, bug_id, side or order). Exactly one of Defective
// (isolated), Choice (pair) or Unparseable is set; Raw is always kept.
type ProbeRecord struct {
	Model       string `json:"model"`
	Fingerprint string `json:"fingerprint,omitempty"` // content hash of an in-process model
	Task        string `json:"task"`
	BugID       string `json:"bug_id"`
	Side        string `json:"side,omitempty"`  // isolated: buggy | fixed
	Order       string `json:"order,omitempty"` // pair: buggy-first | fixed-first
	Exception   string `json:"exception"`
	Prompt      string `json:"prompt"` // ProbeVersion
	PromptHash  string `json:"prompt_hash"`
	Raw         string `json:"raw"`
	// Read says how the verdict was read (json, fenced, embedded, lines,
	// word); empty when unparseable.
	Read        string   `json:"read,omitempty"`
	Defective   *bool    `json:"defective,omitempty"` // isolated: the shown method judged defective
	Choice      string   `json:"choice,omitempty"`    // pair: A (shown first) or B
	Confidence  *float64 `json:"confidence,omitempty"`
	Unparseable string   `json:"unparseable,omitempty"` // why the verdict could not be read
	RequestID   string   `json:"request_id,omitempty"`
}

// Parsed reports whether the answer's verdict was read (and, for a
// record read back from a file, is well formed for its task).
func (r ProbeRecord) Parsed() bool {
	if r.Unparseable != "" {
		return false
	}
	if r.Task == PairTask {
		return (r.Choice == ChoiceA || r.Choice == ChoiceB) && (r.Order == BuggyFirst || r.Order == FixedFirst)
	}
	return r.Defective != nil && (r.Side == "buggy" || r.Side == "fixed")
}

// Label is 1 when the item's truth is "defective": the buggy method
// (isolated), or the defective method shown first (pair).
func (r ProbeRecord) Label() int { return b2i(r.Side == "buggy" || r.Order == BuggyFirst) }

// Correct reports whether a parsed answer is right.
func (r ProbeRecord) Correct() bool {
	if r.Task == PairTask {
		return (r.Choice == ChoiceA) == (r.Order == BuggyFirst)
	}
	return r.Defective != nil && *r.Defective == (r.Side == "buggy")
}

// ProbeKey is a record's id in the log.
func ProbeKey(r ProbeRecord) string {
	return strings.Join([]string{r.Model, r.Task, r.BugID, r.Side + r.Order}, "\t")
}

// ProbeOptions configures RunProbes. Zero values mean the defaults in
// brackets.
type ProbeOptions struct {
	Tasks     []string // Isolated and/or PairTask [both]
	Workers   int      // concurrent model calls [4]
	MaxTokens int      // longest answer, in tokens [256]
	// Log is the path of the append-only answer log (required): answers
	// already in it are not asked again, so a killed run resumes.
	Log string
	// Progress, when set, is called after each answer of this pass.
	Progress func(done, total int)
}

// ProbeRun is what RunProbes did.
type ProbeRun struct {
	// Records are the log's answers for the requested models, tasks and
	// seeds: model order, then seed order, then task and item.
	Records  []ProbeRecord
	Asked    int // answers obtained in this pass
	Resumed  int // answers found in the log
	Warnings []string
}

// probeItem is one question to one model.
type probeItem struct {
	model      llm.Model
	task       string
	seed       corpus.Seed
	prompt     probePromptData
	recordBase ProbeRecord // the record without the answer
}

// RunProbes asks every model, zero-shot, about every real seed pair
// (rxsynth §7.3 and §7.4.6): the isolated-method probe shows one method
// and the labelled exception type and asks whether the method is
// defective (both methods of every pair); the pair probe shows both
// versions as A and B and asks which is defective, in both orderings.
// No training is involved: the seeds are the test set. Every answer is
// appended to opt.Log as soon as it arrives; a model call that fails stops
// the pass with the answers so far kept. Models should come from an
// llm.Session, which caches and records every call.
func RunProbes(ctx context.Context, models []llm.Model, seeds []corpus.Seed, opt ProbeOptions) (*ProbeRun, error) {
	if err := opt.check(models, seeds); err != nil {
		return nil, err
	}
	if err := checkProbeSeeds(seeds); err != nil {
		return nil, err
	}
	fps, ids, err := modelFingerprints(models)
	if err != nil {
		return nil, err
	}

	var todo []probeItem
	for _, m := range models {
		for _, s := range seeds {
			todo = append(todo, itemsOf(m, fps[m.ID()], s, opt.Tasks)...)
		}
	}
	res, err := step.Run(ctx, step.Spec[probeItem, ProbeRecord]{
		Path: opt.Log, Key: ProbeKey, Items: todo, ID: func(it probeItem) string { return ProbeKey(it.recordBase) },
		Check:   func(r ProbeRecord) error { return samePrompts(fps, opt.Log, r) },
		Workers: opt.Workers, Sync: jsonl.SyncEach, Progress: opt.Progress, Noun: "answers",
	}, func(ctx context.Context, it probeItem, emit step.Emit[ProbeRecord]) error {
		rec, err := ask(ctx, it, opt.MaxTokens)
		if err != nil {
			return err
		}
		return emit(rec)
	})
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	return &ProbeRun{Warnings: res.Warnings, Asked: res.Written, Resumed: res.Resumed,
		Records: selectRecords(res.Records, ids, seeds, opt.Tasks)}, nil
}

// check checks the probe run's settings, models and seeds, and fills in
// the default tasks, workers and answer length.
func (opt *ProbeOptions) check(models []llm.Model, seeds []corpus.Seed) error {
	if opt.Log == "" {
		return fmt.Errorf("probe: %w: no answer log path", errs.ErrUsage)
	}
	if len(models) == 0 || len(seeds) == 0 {
		return fmt.Errorf("probe: %w: need models and seeds (got %d models, %d seeds)", errs.ErrInput, len(models), len(seeds))
	}
	if opt.Tasks == nil {
		opt.Tasks = []string{Isolated, PairTask}
	}
	for _, t := range opt.Tasks {
		if t != Isolated && t != PairTask {
			return fmt.Errorf("probe: %w: unknown task %q (want %s or %s)", errs.ErrUsage, t, Isolated, PairTask)
		}
	}
	if opt.Workers <= 0 {
		opt.Workers = 4
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = 256
	}
	return nil
}

// checkProbeSeeds checks that every seed is valid and its bug_id, which
// keys the answer log, unique.
func checkProbeSeeds(seeds []corpus.Seed) error {
	seen := map[string]bool{}
	for i, s := range seeds {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("probe: seed record %d: %w", i+1, err)
		}
		if seen[s.BugID] {
			return fmt.Errorf("probe: %w: seed bug_id %q appears twice; ids key the answer log", errs.ErrInput, s.BugID)
		}
		seen[s.BugID] = true
	}
	return nil
}

// modelFingerprints are the models' fingerprints by id, and their ids in
// order; a model may be named once.
func modelFingerprints(models []llm.Model) (map[string]string, []string, error) {
	fps := map[string]string{}
	var ids []string
	for _, m := range models {
		if _, dup := fps[m.ID()]; dup {
			return nil, nil, fmt.Errorf("probe: %w: model %s is named twice", errs.ErrUsage, m.ID())
		}
		fps[m.ID()] = fingerprintOf(m)
		ids = append(ids, m.ID())
	}
	return fps, ids, nil
}

// samePrompts refuses a log holding answers of one of this run's models
// to other prompts or by another version of it: they cannot be mixed with
// new ones. Other models' answers are kept and not ours to judge.
func samePrompts(fps map[string]string, path string, r ProbeRecord) error {
	fp, ours := fps[r.Model]
	if ours && (r.PromptHash != ProbePromptHash || r.Fingerprint != fp) {
		return fmt.Errorf("%w: %s holds answers of %s to other prompts or another version of the model (prompt %s, fingerprint %q); its answers cannot be mixed with new ones — use another --out",
			errs.ErrUsage, path, r.Model, r.Prompt, r.Fingerprint)
	}
	return nil
}

// fingerprintOf finds the content fingerprint of an in-process model
// behind any wrappers (a session's cached model unwraps to the provider).
func fingerprintOf(m llm.Model) string {
	for m != nil {
		if f, ok := m.(llm.Fingerprinter); ok {
			return f.Fingerprint()
		}
		u, ok := m.(interface{ Unwrap() llm.Model })
		if !ok {
			return ""
		}
		m = u.Unwrap()
	}
	return ""
}

// itemsOf lists a seed's questions for one model: the buggy and the fixed
// method alone, and the pair with the defective method first and second.
func itemsOf(m llm.Model, fp string, s corpus.Seed, tasks []string) []probeItem {
	base := ProbeRecord{Model: m.ID(), Fingerprint: fp, BugID: s.BugID, Exception: s.Exception, Prompt: ProbeVersion, PromptHash: ProbePromptHash}
	var out []probeItem
	add := func(task, side, ord string, d probePromptData) {
		r := base
		r.Task, r.Side, r.Order = task, side, ord
		out = append(out, probeItem{model: m, task: task, seed: s, prompt: d, recordBase: r})
	}
	if slices.Contains(tasks, Isolated) {
		add(Isolated, "buggy", "", probePromptData{Type: s.Exception, Method: s.BuggyMethod})
		add(Isolated, "fixed", "", probePromptData{Type: s.Exception, Method: s.FixedMethod})
	}
	if slices.Contains(tasks, PairTask) {
		add(PairTask, "", BuggyFirst, probePromptData{Type: s.Exception, A: s.BuggyMethod, B: s.FixedMethod})
		add(PairTask, "", FixedFirst, probePromptData{Type: s.Exception, A: s.FixedMethod, B: s.BuggyMethod})
	}
	return out
}

// ask puts one question and reads the answer; only a failed call is an
// error, an unreadable answer is a record.
func ask(ctx context.Context, it probeItem, maxTokens int) (ProbeRecord, error) {
	sys, user, err := renderProbe(it.task, it.prompt)
	if err != nil {
		return ProbeRecord{}, err
	}
	// Temperature 0: one deterministic answer per question, as the
	// paper's single trial per item.
	resp, err := it.model.Chat(ctx, llm.ChatRequest{System: sys, Messages: []llm.Message{{Role: "user", Content: user}},
		MaxTokens: maxTokens, Temperature: 0, JSON: true})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return ProbeRecord{}, fmt.Errorf("%s %s %s: %w", it.model.ID(), it.task, it.seed.BugID, err)
	}
	if len(resp.Choices) == 0 {
		return ProbeRecord{}, fmt.Errorf("%s %s %s: %w: answer has no choices", it.model.ID(), it.task, it.seed.BugID, errs.ErrUnavailable)
	}
	r := it.recordBase
	r.Raw, r.RequestID = resp.Choices[0].Text, resp.RequestID
	if it.task == Isolated {
		a, err := ParseIsolated(r.Raw)
		if err != nil {
			r.Unparseable = err.Error()
			return r, nil
		}
		r.Read, r.Defective, r.Confidence = a.Read, &a.Defective, a.Confidence
		return r, nil
	}
	a, err := ParsePair(r.Raw)
	if err != nil {
		r.Unparseable = err.Error()
		return r, nil
	}
	r.Read, r.Choice, r.Confidence = a.Read, a.Choice, a.Confidence
	return r, nil
}

// selectRecords keeps the answers of the requested models, seeds and
// tasks, in a stable order.
func selectRecords(all []ProbeRecord, models []string, seeds []corpus.Seed, tasks []string) []ProbeRecord {
	seedAt := map[string]int{}
	for i, s := range seeds {
		seedAt[s.BugID] = i
	}
	var out []ProbeRecord
	for _, r := range all {
		_, ok := seedAt[r.BugID]
		if ok && slices.Contains(models, r.Model) && slices.Contains(tasks, r.Task) {
			out = append(out, r)
		}
	}
	item := func(r ProbeRecord) int {
		return slices.Index([]string{"buggy", "fixed", BuggyFirst, FixedFirst}, r.Side+r.Order)
	}
	slices.SortStableFunc(out, func(a, b ProbeRecord) int {
		if c := slices.Index(models, a.Model) - slices.Index(models, b.Model); c != 0 {
			return c
		}
		if c := seedAt[a.BugID] - seedAt[b.BugID]; c != 0 {
			return c
		}
		return item(a) - item(b)
	})
	return out
}

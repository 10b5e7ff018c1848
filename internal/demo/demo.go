package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// Options configure Run.
type Options struct {
	// Out is the output folder; it is created when missing.
	Out string
	// Quick shrinks every step (fewer repositories, queries, pairs, run
	// seeds) to about a minute of wall time.
	Quick bool
	// Seed makes every random choice reproducible [1].
	Seed uint64
	// Skip names steps of Plan not to run (not "report"); their pages say
	// so. Unknown names are a usage error.
	Skip []string
	// Progress, when set, receives every progress event.
	Progress func(Event)
}

// Event reports progress. A step starts with Done == 0 and Msg set, may
// report Done/Total while it runs (Total 0: unknown), and ends with
// Finished set.
type Event struct {
	Step     int    // 1-based index into Plan
	Steps    int    // number of steps
	Name     string // step name, e.g. "audit/testbed"
	Msg      string
	Done     int
	Total    int
	Finished bool
	Skipped  bool // the step was skipped; Msg says why
	Elapsed  time.Duration
}

// Step is one step of the demo with its usual wall time.
type Step struct {
	Name  string `json:"name"`
	What  string `json:"what"`
	Usual string `json:"usual"` // as measured on two idle cores (2026-11-30); a busy machine takes several times longer
}

// Plan lists the steps in order (the same for quick and full runs).
func Plan(quick bool) []Step {
	u := func(full, q string) string {
		if quick {
			return q
		}
		return full
	}
	return []Step{
		{"audit/index", "reference index of the JDK src.zip and the Python stdlib (word → repositories)", "4 s"},
		{"audit/testbed", "Stage I: train an n-gram model on half of the repositories, serve it on loopback, probe all", u("5 s", "3 s")},
		{"audit/stage2", "Stage II: git histories of real JDK methods (fix persists, reverted, refactored)", u("3 s", "1 s")},
		{"audit/rescore", "re-scoring (§6): bugs injected in the testbed's Java repositories, two n-gram models, all vs clean samples", u("2 s", "1 s")},
		{"synth/seeds", "seeds: F3/F4 over 14 hand-written bug/fix pairs (two per exception type)", "1 s"},
		{"synth/generate", "offline mutation generator over src.zip, then the §4.4 gates", u("1 s", "1 s")},
		{"synth/verify", "JVM verification of the accepted pairs (javac + sandboxed worker JVM)", u("16 s", "6 s")},
		{"synth/fidelity", "fidelity of the corpus to the seeds (Tables 10/11, ECDFs)", "1 s"},
		{"synth/evaluate", "leakage-controlled detector evaluation (folds by source bug)", "1 s"},
		{"report", "render report.html and the job pages", "1 s"},
	}
}

// StepTime records how long a step took.
type StepTime struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Skipped string  `json:"skipped,omitempty"`
}

// Result is what Run returns and writes to Out/summary.json.
type Result struct {
	Out     string     `json:"out"`
	Quick   bool       `json:"quick"`
	Started time.Time  `json:"started"`
	Seconds float64    `json:"seconds"`
	Steps   []StepTime `json:"steps"`
	Audit   *Audit     `json:"audit"`
	Synth   *Synth     `json:"synth"`
	// Report is the path of report.html; Pages every HTML page written.
	Report string   `json:"report"`
	Pages  []string `json:"pages"`
	Notes  []string `json:"notes,omitempty"`
}

// runner carries one run's state.
type runner struct {
	ctx   context.Context
	opts  Options
	plan  []Step
	res   *Result
	step  int
	start time.Time
	skip  map[string]bool
}

// stepNames lists the step names of plan.
func stepNames(plan []Step) string {
	var b strings.Builder
	for i, s := range plan {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Name)
	}
	return b.String()
}

// Run runs the demo. A failing step stops the run with an error naming the
// step; a step that cannot run on this machine (no JDK for the JVM) is
// skipped with a note.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Out == "" {
		return nil, fmt.Errorf("demo: no output folder given: %w", errs.ErrUsage)
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	out, err := makeOut(opts.Out)
	if err != nil {
		return nil, err
	}
	opts.Out = out
	r := &runner{ctx: ctx, opts: opts, plan: Plan(opts.Quick), start: time.Now()}
	if r.skip, err = skipSet(r.plan, opts.Skip); err != nil {
		return nil, err
	}
	r.res = &Result{Out: out, Quick: opts.Quick, Started: r.start.UTC().Truncate(time.Second), Audit: &Audit{}, Synth: &Synth{}}
	steps := []func() (string, error){
		r.auditIndex, r.auditTestbed, r.auditStage2, r.auditRescore,
		r.synthSeeds, r.synthGenerate, r.synthVerify, r.synthFidelity, r.synthEvaluate,
		r.report,
	}
	for i, fn := range steps {
		if err := r.run(i, fn); err != nil {
			return r.res, err
		}
	}
	return r.res, nil
}

// makeOut makes the output folder out absolute and creates it with its
// audit and synth folders.
func makeOut(out string) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", fmt.Errorf("demo: output folder %s: %w", out, err)
	}
	for _, d := range []string{"audit", "synth"} {
		if err := os.MkdirAll(filepath.Join(abs, d), 0o755); err != nil {
			return "", fmt.Errorf("demo: create %s: %w", filepath.Join(abs, d), err)
		}
	}
	return abs, nil
}

// skipSet is the set of steps to skip: each must be a step of plan other
// than report.
func skipSet(plan []Step, names []string) (map[string]bool, error) {
	skip := map[string]bool{}
	for _, name := range names {
		ok := false
		for _, s := range plan {
			ok = ok || (s.Name == name && name != "report")
		}
		if !ok {
			return nil, fmt.Errorf("demo: cannot skip %q: not a step of %s (report cannot be skipped): %w", name, stepNames(plan), errs.ErrUsage)
		}
		skip[name] = true
	}
	return skip, nil
}

// run runs step i, timing it and reporting its start and end.
func (r *runner) run(i int, fn func() (string, error)) error {
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("demo: %s: %w", r.plan[i].Name, err)
	}
	r.step = i
	t0 := time.Now()
	r.emit(Event{Msg: r.plan[i].What})
	if r.skip[r.plan[i].Name] {
		fn = func() (string, error) { return "skipped on request", nil }
	}
	skipped, err := fn()
	el := time.Since(t0)
	r.res.Steps = append(r.res.Steps, StepTime{Name: r.plan[i].Name, Seconds: round1(el.Seconds()), Skipped: skipped})
	r.res.Seconds = round1(time.Since(r.start).Seconds())
	if err != nil {
		return fmt.Errorf("demo: step %s: %w", r.plan[i].Name, err)
	}
	r.emit(Event{Finished: true, Skipped: skipped != "", Msg: skipped, Elapsed: el})
	if r.plan[i].Name != "report" {
		// Keep summary.json current so a failed later step leaves the
		// earlier steps' figures behind.
		return output.WriteJSON(filepath.Join(r.opts.Out, "summary.json"), r.res)
	}
	return nil
}

// emit sends e for the current step.
func (r *runner) emit(e Event) {
	if r.opts.Progress == nil {
		return
	}
	e.Step, e.Steps, e.Name = r.step+1, len(r.plan), r.plan[r.step].Name
	r.opts.Progress(e)
}

// progress reports Done/Total within the current step.
func (r *runner) progress(done, total int, msg string) {
	r.emit(Event{Done: done, Total: total, Msg: msg})
}

// path returns a path under the output folder.
func (r *runner) path(parts ...string) string {
	return filepath.Join(append([]string{r.opts.Out}, parts...)...)
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

package seeds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
)

// Status is the bug-level outcome of the §3.1 scope and filters F1/F2.
type Status string

const (
	StatusRuntime     Status = "runtime"      // fails with an in-scope runtime exception
	StatusJUnitOnly   Status = "junit_only"   // F1: only JUnit artefacts
	StatusCheckedOnly Status = "checked_only" // F2: only checked exceptions (besides JUnit artefacts)
	StatusUnchecked   Status = "unchecked"    // unchecked, but none of the seven types
	StatusUnknown     Status = "unknown"      // no in-scope type and some class unclassified
	StatusTestOrigin  Status = "test_origin"  // in-scope types thrown only outside production code
)

// Rule names a scope rule that removes bugs the wider readings count.
type Rule string

const (
	RuleSubclass   Rule = "subclass"    // only a project subclass of the seven was thrown
	RuleTestOrigin Rule = "test_origin" // the in-scope root cause was thrown outside production code
)

// Bug is the classification of one benchmark bug.
type Bug struct {
	ID       string       `json:"id"`
	Project  string       `json:"project"`
	Status   Status       `json:"status"`
	Types    []Type       `json:"types,omitempty"` // in-scope types, Table 3 order
	Failures []Failure    `json:"failures"`
	Classes  []Resolution `json:"classes"` // every distinct class met, in order of appearance
	// RemovedBy names the rule that drops a bug the widest reading
	// (subclasses, any origin) counts as a runtime bug.
	RemovedBy Rule `json:"removed_by,omitempty"`
}

// Row is one line of the prevalence table (Table 2 shape, with the
// per-type split and the reasons bugs fall out of scope).
type Row struct {
	Project     string       `json:"project"`
	Total       int          `json:"total_bugs"`
	Runtime     int          `json:"runtime_bugs"`
	Percent     float64      `json:"percent"`
	ByType      map[Type]int `json:"by_type"` // bugs having the type; a bug with two types counts in both
	MultiType   int          `json:"multi_type"`
	JUnitOnly   int          `json:"junit_only"`
	CheckedOnly int          `json:"checked_only"`
	Unchecked   int          `json:"unchecked_other"`
	Unknown     int          `json:"unknown"`
	TestOrigin  int          `json:"test_origin"`
	// Bugs the widest reading (subclasses, any origin) counts that each
	// rule removes: the subclass rule first, then the origin rule.
	RemovedSubclass   int `json:"removed_subclass"`
	RemovedTestOrigin int `json:"removed_test_origin"`
}

// UnknownClass is a class the hierarchy could not classify, with the bugs
// it was met in.
type UnknownClass struct {
	Class string   `json:"class"`
	Guess string   `json:"guess"`
	Bugs  []string `json:"bugs"`
}

// Prevalence is the result of Scan.
type Prevalence struct {
	Rows     []Row           `json:"rows"` // one per project, by name
	Pooled   Row             `json:"pooled"`
	Bugs     []Bug           `json:"bugs"`
	Unknown  []UnknownClass  `json:"unknown_classes"`
	Problems []bench.Problem `json:"problems,omitempty"` // active-bugs.csv rows that were skipped
}

// ScanOptions tune Scan. The zero value is rxsynth §3.1: the seven exact
// java.lang types, thrown from production code.
type ScanOptions struct {
	// Subclasses also counts project subclasses of the seven (Joda-Time's
	// IllegalFieldValueException as IAE, ...); without it they are other
	// unchecked exceptions.
	Subclasses bool
	// AnyOrigin counts an in-scope root cause wherever it was thrown;
	// without it only production-code origin counts (origin.go).
	AnyOrigin bool
}

// exact reports whether only the seven java.lang classes count.
func (o ScanOptions) exact() bool { return !o.Subclasses }

// ScanDefects4J classifies every active bug of the Defects4J layout at dir
// (the projects root or one project directory) from its trigger_tests
// file, and tabulates prevalence per project and pooled (rxsynth §3.2,
// Table 2).
func ScanDefects4J(ctx context.Context, dir string, opts ScanOptions) (*Prevalence, error) {
	projects, err := bench.Defects4JProjectDirs(dir)
	if err != nil {
		return nil, fmt.Errorf("seeds.ScanDefects4J: %w", err)
	}
	p := &Prevalence{}
	unknown := map[string]*UnknownClass{}
	for _, pdir := range projects {
		if err := scanProject(ctx, pdir, opts, p, unknown); err != nil {
			return nil, err
		}
	}
	p.Pooled = Row{Project: "Pooled", ByType: map[Type]int{}}
	for _, b := range p.Bugs {
		p.Pooled.add(b)
	}
	p.Pooled.finish()
	for _, u := range unknown {
		p.Unknown = append(p.Unknown, *u)
	}
	sort.Slice(p.Unknown, func(i, j int) bool { return p.Unknown[i].Class < p.Unknown[j].Class })
	return p, nil
}

// scanProject classifies the active bugs of one project directory,
// adding them, its row and its unknown classes to p and unknown.
func scanProject(ctx context.Context, pdir string, opts ScanOptions, p *Prevalence, unknown map[string]*UnknownClass) error {
	bugs, problems, err := bench.ReadActiveBugs(pdir, false)
	if err != nil {
		return fmt.Errorf("seeds.ScanDefects4J: %w", err)
	}
	p.Problems = append(p.Problems, problems...)
	row := Row{Project: filepath.Base(filepath.Clean(pdir)), ByType: map[Type]int{}}
	for _, b := range bugs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("seeds.ScanDefects4J(%s): %w", b.ID(), err)
		}
		bug, err := scanBug(pdir, b, opts)
		if err != nil {
			return err
		}
		noteUnknown(unknown, bug)
		row.add(bug)
		p.Bugs = append(p.Bugs, bug)
	}
	row.finish()
	p.Rows = append(p.Rows, row)
	return nil
}

// scanBug classifies one bug from its trigger_tests file.
func scanBug(pdir string, b bench.Defects4JBug, opts ScanOptions) (Bug, error) {
	file := filepath.Join(pdir, "trigger_tests", strconv.Itoa(b.Number))
	data, err := os.ReadFile(file)
	if err != nil {
		return Bug{}, fmt.Errorf("seeds.ScanDefects4J(%s): %w: %v (every active bug needs its trigger_tests file)", b.ID(), errs.ErrInput, err)
	}
	failures, err := ParseTriggerTests(file, data)
	if err != nil {
		return Bug{}, fmt.Errorf("seeds.ScanDefects4J(%s): %w", b.ID(), err)
	}
	bug := Classify(b.ID(), b.Project, failures, opts)
	bug.RemovedBy = removedBy(b.ID(), b.Project, failures, opts)
	return bug, nil
}

// noteUnknown adds the bug to the list of each unknown class it failed
// with.
func noteUnknown(unknown map[string]*UnknownClass, bug Bug) {
	for _, r := range bug.Classes {
		if r.Kind != KindUnknown {
			continue
		}
		u := unknown[r.Class]
		if u == nil {
			u = &UnknownClass{Class: r.Class, Guess: r.Via}
			unknown[r.Class] = u
		}
		u.Bugs = append(u.Bugs, bug.ID)
	}
}

// statusCounters are the counter of each status in a Row.
var statusCounters = map[Status]func(*Row) *int{
	StatusRuntime:     func(r *Row) *int { return &r.Runtime },
	StatusJUnitOnly:   func(r *Row) *int { return &r.JUnitOnly },
	StatusCheckedOnly: func(r *Row) *int { return &r.CheckedOnly },
	StatusUnchecked:   func(r *Row) *int { return &r.Unchecked },
	StatusUnknown:     func(r *Row) *int { return &r.Unknown },
	StatusTestOrigin:  func(r *Row) *int { return &r.TestOrigin },
}

func (r *Row) add(b Bug) {
	r.Total++
	if c := statusCounters[b.Status]; c != nil {
		*c(r)++
	}
	if b.Status == StatusRuntime {
		for _, t := range b.Types {
			r.ByType[t]++
		}
		if len(b.Types) > 1 {
			r.MultiType++
		}
	}
	switch b.RemovedBy {
	case RuleSubclass:
		r.RemovedSubclass++
	case RuleTestOrigin:
		r.RemovedTestOrigin++
	}
}

func (r *Row) finish() {
	if r.Total > 0 {
		r.Percent = float64(r.Runtime) * 100 / float64(r.Total)
	}
	for _, t := range Types {
		if _, ok := r.ByType[t]; !ok {
			r.ByType[t] = 0
		}
	}
}

// Classify decides a bug's status and in-scope types from its trigger
// failures (see the package doc for the rules).
func Classify(id, project string, failures []Failure, opts ScanOptions) Bug {
	b := Bug{ID: id, Project: project, Failures: failures}
	seen := map[string]bool{}
	types := map[Type]bool{}
	outside := false // an in-scope root cause thrown outside production code
	note := func(r Resolution) {
		if !seen[r.Class] {
			seen[r.Class] = true
			b.Classes = append(b.Classes, r)
		}
	}
	for _, f := range failures {
		root, rootAt := rootCause(f, opts.exact(), note)
		switch {
		case root == "":
		case opts.AnyOrigin || inProduction(f.OriginOf(rootAt)):
			types[root] = true
		default:
			outside = true
		}
	}
	for _, t := range Types {
		if types[t] {
			b.Types = append(b.Types, t)
		}
	}
	b.Status = bugStatus(b, outside)
	return b
}

// rootCause resolves a failure's exception and causes (each passed to
// note) and returns the deepest in-scope type with its place in the
// chain (0 the exception, i the i-th cause), or "".
func rootCause(f Failure, exact bool, note func(Resolution)) (Type, int) {
	var root Type
	rootAt := 0
	top := Resolve(f.Exception, f.TopFrame, exact)
	note(top)
	if top.Kind == KindTarget {
		root = top.Type
	}
	for i, c := range f.CausedBy {
		r := Resolve(c, "", exact)
		note(r)
		if r.Kind == KindTarget {
			root, rootAt = r.Type, i+1 // deeper causes win: the root cause
		}
	}
	return root, rootAt
}

// bugStatus decides a bug's status from its in-scope types, whether a root
// cause was outside production code, and the kinds of its classes.
func bugStatus(b Bug, outside bool) Status {
	kinds := map[Kind]bool{}
	for _, r := range b.Classes {
		kinds[r.Kind] = true
	}
	switch {
	case len(b.Types) > 0:
		return StatusRuntime
	case outside:
		return StatusTestOrigin
	case kinds[KindUnknown]:
		return StatusUnknown
	case kinds[KindUnchecked] || kinds[KindTarget]:
		return StatusUnchecked
	case kinds[KindChecked]:
		return StatusCheckedOnly
	}
	return StatusJUnitOnly
}

// removedBy names the rule of opts that drops a bug the widest reading
// counts: the subclass rule is applied first, then the origin rule.
func removedBy(id, project string, failures []Failure, opts ScanOptions) Rule {
	wide := Classify(id, project, failures, ScanOptions{Subclasses: true, AnyOrigin: true})
	if wide.Status != StatusRuntime {
		return ""
	}
	if Classify(id, project, failures, ScanOptions{Subclasses: opts.Subclasses, AnyOrigin: true}).Status != StatusRuntime {
		return RuleSubclass
	}
	if Classify(id, project, failures, opts).Status != StatusRuntime {
		return RuleTestOrigin
	}
	return ""
}

// inProduction reports whether an origin is in scope: production code, or
// unknown (a failure record without frames cannot show a test origin).
func inProduction(o Origin) bool { return o == OriginProduction || o == OriginUnknown }

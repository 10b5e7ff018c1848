// Package mutation owns benchforge's offline generator (issue 6, item 2,
// "mutation"): it applies the inverse of real fix patterns to correct Java
// methods from a source corpus (default: the JDK's src.zip), giving bug/fix
// pairs whose FIXED member is the original method and whose BUGGY member is
// the mutated one. It also classifies seed fixes into the same pattern
// taxonomy (ClassifyFix, MinePatterns).
//
// Operators (Operators; each works on the tree-sitter tree of internal/code,
// never on raw text, and carries must-apply / must-not-apply examples in its
// tests), by the exception type of rxsynth §3.1 the buggy member risks:
//
//	remove_null_guard          NPE            inverse of an added null guard
//	remove_bounds_check        AIOOBE/SIOOBE  inverse of an added bounds check
//	loosen_comparison          AIOOBE/SIOOBE  inverse of a changed comparison (< vs <=)
//	index_off_by_one           AIOOBE/SIOOBE  inverse of a corrected index or length (length-1)
//	remove_index_guard         AIOOBE/SIOOBE  inverse of an added negative-index guard (indexOf's -1)
//	remove_nfe_catch           NFE            inverse of a caught NumberFormatException
//	remove_parse_guard         NFE            inverse of text validated before a number parser
//	remove_match_check         ISE            inverse of a Matcher state check before group/start/end
//	remove_instanceof_guard    CCE            inverse of an added instanceof check
//	throw_on_lenient_argument  IAE            inverse of a removed unintended throw
//	throw_on_lenient_state     ISE            inverse of a removed unintended throw
//
// Arrays (`a.length`, `a[i]`) give ArrayIndexOutOfBoundsException, strings
// (`s.length()`, `s.charAt(i)`, `substring`) StringIndexOutOfBoundsException.
// Every guard-removing operator requires the guarded use to follow (the
// null-tested x dereferenced, the bounds-tested array indexed, the
// instanceof-tested object cast; for a removed bounds check, an access no
// loop around it bounds by the same length), so the buggy method can
// actually throw;
// a removed early-exit null guard needs the dereference in the statement
// it protects, so that the exception surfaces at the patched site.
//
// Pairs keep their host method's comments, as the seeds keep theirs
// (rxsynth §6.1 counts comment lines in PLOC on both sides), except the
// comments at the mutated site, which may describe the guard the operator
// removes (comments.go); the gate leaves a mutation pair's comments.
//
// IAE and ISE follow rxsynth §3.2 F4: a real IAE/ISE fix must remove or
// restructure an unintended throw, never add a missing one (that would teach
// that defensive code is buggy). The mutation therefore INTRODUCES an
// unintended throw where the original is lenient: an `if` on a parameter
// that clamps it or returns early becomes `throw new
// IllegalArgumentException(…)` (the method rejects an argument it should
// accept); an `if` reading only fields in an instance method that returns
// early (an idempotent `if (closed) return;`) becomes `throw new
// IllegalStateException(…)` (the method throws too eagerly for a state it
// should tolerate). The fix — the original — removes the throw.
//
// Generation is deterministic: the corpus's files are shuffled by the seed
// and cut into chunks of Options.ChunkFiles; within a chunk, files and
// methods are visited in order and each method gives at most one pair, of
// the wanted type with the most candidates still missing (ties: NFE, CCE,
// SIOOBE, AIOOBE, NPE, ISE, IAE), at a site picked by a hash of the seed and the
// method. Methods must have a body, span MinLines..MaxLines lines, parse
// without errors, be callable (no constructor, no anonymous class) and
// (with PublicOnly) be public. A method whose text equals
// an earlier one's is skipped (the JDK repeats code across primitive
// specialisations).
//
// Grounded selection (Options.Ground, ground.go) replaces corpus order:
// every pair the operators can make anywhere in the corpora is measured,
// and each seed of the reference set draws its nearest pairs of its type
// on the seven structural metrics, so the corpus follows the seeds' size,
// complexity and nesting per type; example_bug_ids then names that one
// seed.
//
// Provenance: generator id, operator, repository and commit (per corpus),
// source file, method signature and line. example_bug_ids are the ids of the given seeds whose fix
// ClassifyFix assigns to the operator's pattern, for the candidate's type;
// with no seeds, or none of that pattern and type, it is empty: a mutation
// pair is then grounded in the operator's pattern, not in a seed.
package mutation

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// ID is the generator id recorded in candidates.
const ID = "mutation/v2"

// Options configure New.
type Options struct {
	Corpus     string // src.zip or directory; "" means DefaultCorpus
	Seed       uint64 // shuffles files and picks sites
	ChunkFiles int    // files per chunk; 0 means 64
	MinLines   int    // 0 means 5
	MaxLines   int    // 0 means 60
	PublicOnly bool
	Workers    int // parsing goroutines; 0 means GOMAXPROCS
	// Repo and Commit name the repository revision the corpus directory
	// was exported from; every candidate's source records them, and test
	// trees are not mutated (a host method is production code).
	Repo, Commit string
	// Corpora, when set, replaces Corpus/Repo/Commit with several source
	// trees (e.g. one revision of each Defects4J project): their files are
	// shuffled together, and each candidate records its own tree's
	// repository and commit.
	Corpora []CorpusSpec
	// Ground, when set, chooses host methods that follow a seed reference
	// set's structural metrics (see Grounding and ground.go) instead of
	// taking methods in corpus order.
	Ground *Grounding
}

// CorpusSpec is one source tree of Options.Corpora.
type CorpusSpec struct {
	Path         string // src.zip or directory
	Repo, Commit string // the revision Path was exported from, or ""
}

// fileRef names one file: its corpus (index into Generator.corpora) and its
// slash-separated path inside it.
type fileRef struct {
	c    int
	name string
}

// Generator is the mutation generator. It is not safe for concurrent
// Generate calls.
type Generator struct {
	opts    Options
	specs   []CorpusSpec
	corpora []*Corpus
	order   []fileRef
	seen    map[uint64]bool // hashes of fixed methods already used
	plan    *plan           // grounded selection, built on the first Generate

	once sync.Once
	ex   map[[2]string][]string
}

// New opens the corpus and fixes the file order.
func New(opts Options) (*Generator, error) {
	specs, err := opts.corpusSpecs()
	if err != nil {
		return nil, err
	}
	opts.setDefaults()
	g := &Generator{opts: opts, specs: specs, seen: map[uint64]bool{}}
	if err := g.openCorpora(); err != nil {
		g.Close()
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6d757461))
	rng.Shuffle(len(g.order), func(i, j int) { g.order[i], g.order[j] = g.order[j], g.order[i] })
	return g, nil
}

// corpusSpecs returns the corpora to read: Corpora, else Corpus (the
// JDK's src.zip when empty, recorded in o.Corpus) with Repo and Commit.
func (o *Options) corpusSpecs() ([]CorpusSpec, error) {
	if len(o.Corpora) > 0 {
		return slices.Clone(o.Corpora), nil
	}
	if o.Corpus == "" {
		p, err := DefaultCorpus()
		if err != nil {
			return nil, err
		}
		o.Corpus = p
	}
	return []CorpusSpec{{Path: o.Corpus, Repo: o.Repo, Commit: o.Commit}}, nil
}

// setDefaults fills the options left at zero.
func (o *Options) setDefaults() {
	if o.ChunkFiles <= 0 {
		o.ChunkFiles = 64
	}
	// Grounded selection picks sizes by matching seeds, so its line window
	// only bounds the pool: wide enough for the largest reference seeds.
	if o.MinLines <= 0 {
		o.MinLines = ifGrounded(o, 3, 5)
	}
	if o.MaxLines <= 0 {
		o.MaxLines = ifGrounded(o, 300, 60)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// ifGrounded returns grounded for grounded selection, else plain.
func ifGrounded(o *Options, grounded, plain int) int {
	if o.Ground != nil {
		return grounded
	}
	return plain
}

// openCorpora opens the corpora and lists their files (a repository's
// test trees left out) in g.order.
func (g *Generator) openCorpora() error {
	for i, sp := range g.specs {
		c, err := OpenCorpus(sp.Path)
		if err != nil {
			return err
		}
		g.corpora = append(g.corpora, c)
		for _, name := range c.Files() {
			if sp.Repo != "" && testTree(name) {
				continue
			}
			g.order = append(g.order, fileRef{c: i, name: name})
		}
	}
	return nil
}

// Close releases the corpora.
func (g *Generator) Close() error {
	var first error
	for _, c := range g.corpora {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ID implements generate.Generator.
func (g *Generator) ID() string {
	if g.opts.Ground != nil {
		return GroundedID
	}
	return ID
}

// Chunks is the number of chunks the corpus holds (grounded: the number
// of selection rounds, known after the first Generate).
func (g *Generator) Chunks() int {
	if g.opts.Ground != nil {
		if g.plan == nil {
			return 0
		}
		return len(g.plan.rounds)
	}
	return (len(g.order) + g.opts.ChunkFiles - 1) / g.opts.ChunkFiles
}

// triggers are substrings a file must contain to be worth parsing for a type.
var triggers = map[string][]string{
	corpus.NullPointer:    {"null"},
	corpus.ArrayIndexOOB:  {".length"},
	corpus.StringIndexOOB: {".length()", "indexOf(", "isEmpty("},
	corpus.NumberFormat: {"NumberFormatException", "parseInt(", "parseLong(", "parseDouble(", "parseFloat(", "parseShort(", "parseByte(",
		"Integer.valueOf(", "Long.valueOf(", "Double.valueOf(", "Float.valueOf(", "Short.valueOf(", "Byte.valueOf(",
		"Integer.decode(", "Long.decode(", "new BigDecimal(", "new BigInteger("},
	corpus.ClassCast:       {"instanceof"},
	corpus.IllegalArgument: {"if"},
	corpus.IllegalState:    {"if"},
}

// fileSites is what a worker finds in one file.
type fileSites struct {
	ref     fileRef
	name    string
	src     []byte
	err     error
	methods []methodSites
}

type methodSites struct {
	fn    code.Function
	start int // byte offset of the method's first line
	sites []Site
	// comments are the method's comment spans (file offsets): the host's
	// real comments, which its pairs keep but for the site's (comments.go).
	comments [][2]int
}

// Generate implements generate.Generator.
func (g *Generator) Generate(ctx context.Context, req generate.Request) ([]generate.Candidate, error) {
	if g.opts.Ground != nil {
		return g.generateGrounded(ctx, req)
	}
	g.once.Do(func() { g.ex = exemplars(MinePatterns(req.Seeds)) })
	lo := req.Chunk * g.opts.ChunkFiles
	if req.Chunk < 0 || lo >= len(g.order) {
		return nil, fmt.Errorf("mutation chunk %d of %d: %w", req.Chunk, g.Chunks(), generate.ErrExhausted)
	}
	names := g.order[lo:min(lo+g.opts.ChunkFiles, len(g.order))]
	want := positive(req.Want)
	results := g.scan(ctx, names, want)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []generate.Candidate
	for _, fs := range results {
		if fs.err != nil {
			req.Report(sourceError(ID, fs))
			continue
		}
		for _, ms := range fs.methods {
			typ := pickType(ms.sites, want)
			if typ == "" {
				continue
			}
			if c, ok := g.mutate(fs, ms, typ, "", req.Report); ok {
				out = append(out, c)
				want[typ]--
			}
		}
	}
	return out, nil
}

// positive returns the types of want still wanted, with their counts.
func positive(want map[string]int) map[string]int {
	out := map[string]int{}
	for t, n := range want {
		if n > 0 {
			out[t] = n
		}
	}
	return out
}

// sourceError is the attempt of generator gen recording that fs could
// not be read or parsed.
func sourceError(gen string, fs fileSites) generate.Attempt {
	return generate.Attempt{ID: generate.HashID("att-", gen, fs.name, "source"), Generator: gen,
		Source: &generate.Source{File: fs.name}, Outcome: generate.OutcomeSourceError, Detail: fs.err.Error()}
}

// pickOrder breaks ties between types: types with scarce, specific sites
// first, the broad lenient-branch operators (IAE, ISE) last, since nearly
// every null or bounds guard is also a lenient branch.
var pickOrder = []string{corpus.NumberFormat, corpus.ClassCast, corpus.StringIndexOOB, corpus.ArrayIndexOOB,
	corpus.NullPointer, corpus.IllegalState, corpus.IllegalArgument}

// pickType returns the wanted type with sites in the method that has the
// most candidates missing (ties in pickOrder), or "".
func pickType(sites []Site, want map[string]int) string {
	best := ""
	for _, t := range pickOrder {
		if want[t] <= 0 || (best != "" && want[t] <= want[best]) {
			continue
		}
		if slices.ContainsFunc(sites, func(s Site) bool { return s.Type == t }) {
			best = t
		}
	}
	return best
}

// mutate tries the method's sites of type typ (and operator op, when not
// "") in a seeded order until one gives a valid buggy method.
func (g *Generator) mutate(fs fileSites, ms methodSites, typ, op string, attempt func(generate.Attempt)) (generate.Candidate, bool) {
	sites := g.shuffled(fs, ms, typ, op)
	fixed := dedent(string(fs.src[ms.start:ms.fn.EndByte]))
	fh := fnv.New64a()
	fh.Write([]byte(fixed))
	// A grounded pool build (op set) dedups host methods itself, across
	// types and operators.
	if op == "" && g.seen[fh.Sum64()] {
		return generate.Candidate{}, false
	}
	for _, s := range sites {
		c, a, ok := g.try(fs, ms, s, typ, fixed)
		attempt(a)
		if ok {
			if op == "" {
				g.seen[fh.Sum64()] = true
			}
			return c, true
		}
	}
	return generate.Candidate{}, false
}

// shuffled returns the method's sites of type typ (and operator op, when
// not "") in an order seeded by the method.
func (g *Generator) shuffled(fs fileSites, ms methodSites, typ, op string) []Site {
	var sites []Site
	for _, s := range ms.sites {
		if s.Type == typ && (op == "" || s.Operator == op) {
			sites = append(sites, s)
		}
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", g.opts.Seed, fs.name, ms.fn.Signature, ms.fn.StartLine)
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	rng.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
	return sites
}

// try applies site s to the method (whose text, dedented, is fixed) and
// checks the buggy method it gives: the candidate, or the attempt saying
// why there is none.
func (g *Generator) try(fs fileSites, ms methodSites, s Site, typ, fixed string) (generate.Candidate, generate.Attempt, bool) {
	method := qualified(ms.fn)
	sp := g.specs[fs.ref.c]
	loc := &generate.Source{Repo: sp.Repo, Commit: sp.Commit, File: fs.name, Method: method,
		StartLine: ms.fn.StartLine, EndLine: ms.fn.EndLine, SiteLine: s.Line}
	a := generate.Attempt{Generator: ID, Operator: s.Operator, ErrorType: typ, Source: loc}
	a.ID = generate.HashID("att-", ID, fs.name, method, s.Operator, strconv.Itoa(s.Line), strconv.Itoa(s.Edits[0].Start-ms.start))
	cut := siteComments(fs.src, ms.comments, s.Edits)
	buggyB, ok := withoutSiteComments(fs.src, ms.start, ms.fn.EndByte, cut, s.Edits)
	if len(cut) > 0 && ok {
		var fixedB []byte
		fixedB, ok = withoutSiteComments(fs.src, ms.start, ms.fn.EndByte, cut, nil)
		fixed = dedent(string(fixedB))
	}
	buggy := dedent(string(buggyB))
	switch detail := checkBuggy(fixed, buggy); {
	case !ok:
		a.Outcome, a.Detail = generate.OutcomeUnparsable, "overlapping edits"
	case detail == generate.OutcomeUnchanged:
		a.Outcome = detail
	case detail != "":
		a.Outcome, a.Detail = generate.OutcomeUnparsable, detail
	default:
		c := generate.Candidate{
			ID:        generate.HashID("mut-", ID, s.Operator, fs.name, method, buggy),
			ErrorType: typ, Generator: ID, Operator: s.Operator,
			BuggyMethod: buggy, FixedMethod: fixed, Source: loc,
			ExampleBugIDs: append([]string{}, g.ex[[2]string{typ, s.Operator}]...),
		}
		a.Outcome, a.CandidateID = generate.OutcomeCandidate, c.ID
		return c, a, true
	}
	return generate.Candidate{}, a, false
}

// qualified names fn in candidates and attempts: "Class: signature".
func qualified(fn code.Function) string {
	if fn.Class != "" {
		return fn.Class + ": " + fn.Signature
	}
	return fn.Signature
}

// checkBuggy returns "" when buggy parses cleanly as exactly one method and
// differs from fixed in its tokens, OutcomeUnchanged when the tokens are
// equal, else what is wrong.
func checkBuggy(fixed, buggy string) string {
	f, err := code.ParseJavaMethod([]byte(buggy))
	if err != nil {
		return err.Error()
	}
	if se := f.SyntaxErrors(); len(se) > 0 {
		return "syntax error: " + se[0].Error()
	}
	if n := topLevel(f.Functions()); n != 1 {
		return fmt.Sprintf("%d methods", n)
	}
	ft, _ := methodTokens(fixed)
	var bt []string
	for _, t := range f.Tokens() {
		if t.Kind != code.Comment {
			bt = append(bt, t.Text)
		}
	}
	if slices.Equal(ft, bt) {
		return generate.OutcomeUnchanged
	}
	return ""
}

func topLevel(fns []code.Function) int {
	n := 0
	for _, fn := range fns {
		if fn.Class == "" {
			n++
		}
	}
	return n
}

// dedent removes the first line's indentation from every line that starts
// with it.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	ind := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], " \t"))]
	if ind == "" {
		return s
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, ind)
	}
	return strings.Join(lines, "\n")
}

// scan parses the files concurrently and finds the sites of the wanted
// types; results come back in input order.
func (g *Generator) scan(ctx context.Context, names []fileRef, want map[string]int) []fileSites {
	out := make([]fileSites, len(names))
	var ops []*Operator
	for _, op := range Operators {
		if slices.ContainsFunc(op.Types, func(t string) bool { return want[t] > 0 }) {
			ops = append(ops, op)
		}
	}
	// scanFile reports errors in out, never to the pool; a cancelled ctx
	// leaves the rest unscanned, which the callers check.
	_ = step.EachIndex(ctx, g.opts.Workers, len(names), func(_ context.Context, i int) error {
		out[i] = g.scanFile(names[i], want, ops)
		return nil
	})
	return out
}

func (g *Generator) scanFile(ref fileRef, want map[string]int, ops []*Operator) fileSites {
	name := ref.name
	fs := fileSites{ref: ref, name: name}
	src, err := g.corpora[ref.c].ReadFile(name)
	if err != nil {
		fs.err = err
		return fs
	}
	if len(ops) == 0 || !worthParsing(string(src), want) {
		return fs
	}
	f, err := code.Parse(code.LangJava, name, src)
	if err != nil {
		fs.err = err
		return fs
	}
	defer f.Close()
	fs.src = src
	errLines := map[int]bool{}
	for _, e := range f.SyntaxErrors() {
		errLines[e.Line] = true
	}
	for _, fn := range f.Functions() {
		if !g.eligible(fn, errLines) {
			continue
		}
		if sites := findSites(newMethod(f, fn), ops, want); len(sites) > 0 {
			start := lineStart(src, fn.StartByte)
			fs.methods = append(fs.methods, methodSites{fn: fn, start: start, sites: sites, comments: commentSpans(f, start, fn.EndByte)})
		}
	}
	return fs
}

// worthParsing reports whether text holds a trigger of a wanted type.
func worthParsing(text string, want map[string]int) bool {
	for t, n := range want {
		if n > 0 && slices.ContainsFunc(triggers[t], func(tr string) bool { return strings.Contains(text, tr) }) {
			return true
		}
	}
	return false
}

// eligible reports whether fn may host a mutation: it has a body, spans
// MinLines..MaxLines lines, is public when PublicOnly, and has no syntax
// error on its lines. It must also be a method a harness can call: not a
// constructor, and not in an anonymous class or an enum constant's body
// (a Class such as "Foo.<anonymous>"), which no caller names. Such hosts
// made pairs that no input could ever trigger, since rxsynth §5.4's
// harness calls the buggy and the fixed method: on the 1,036 grounded
// Defects4J pairs, 28 constructors and 10 anonymous-class methods, all
// "cannot compile" (issue 16).
func (g *Generator) eligible(fn code.Function, errLines map[int]bool) bool {
	lines := fn.EndLine - fn.StartLine + 1
	if !fn.HasBody() || lines < g.opts.MinLines || lines > g.opts.MaxLines {
		return false
	}
	if fn.Kind == "constructor" || strings.Contains(fn.Class, "<") {
		return false
	}
	if g.opts.PublicOnly && !publicSignature(fn.Signature) {
		return false
	}
	for l := fn.StartLine; l <= fn.EndLine; l++ {
		if errLines[l] {
			return false
		}
	}
	return true
}

// findSites returns the sites of the operators ops in m, of wanted types.
func findSites(m *method, ops []*Operator, want map[string]int) []Site {
	var sites []Site
	for _, op := range ops {
		for _, s := range op.find(m) {
			if want[s.Type] > 0 {
				sites = append(sites, s)
			}
		}
	}
	return sites
}

// CorpusPath returns the corpora in use (after defaulting), comma-separated.
func (g *Generator) CorpusPath() string {
	ps := make([]string, len(g.specs))
	for i, sp := range g.specs {
		ps[i] = sp.Path
	}
	return strings.Join(ps, ",")
}

// testTree reports whether a repository path is in a test tree.
func testTree(name string) bool {
	for _, part := range strings.Split(name, "/") {
		switch strings.ToLower(part) {
		case "test", "tests", "src-test", "testing", "it":
			return true
		}
	}
	return false
}

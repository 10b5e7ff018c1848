package cli

// The shared flag groups: model, repositories, benchmark and output. A
// flag a command shares with others is declared here once, so one name
// has one type, one usage text and one meaning everywhere
// (TestFlagsOneNameOneMeaning walks every command to keep it so).

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/audit/repos"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // openai, anthropic, ngram
)

// --- model ---

// modelSpecHelp is appended to the long help of commands that take model
// specs.
const modelSpecHelp = `
Model specs: openai:MODEL[@BASE_URL] (any OpenAI-compatible server: vLLM,
llama.cpp, Ollama, benchforge lm serve), anthropic:MODEL, ngram:FILE.bfng
(the built-in model, in-process). Keys come only from OPENAI_API_KEY /
ANTHROPIC_API_KEY or --key-file; loopback URLs need none. Every call is
cached (--cache-dir), so a rerun makes no paid call twice.`

// modelFlags are the flags every command that calls models shares: the
// answer cache, the spending cap and the key file.
type modelFlags struct {
	cacheDir string
	noCache  bool
	maxCost  float64
	keyFile  string
	retryFlags
}

func (m *modelFlags) add(f *pflag.FlagSet) {
	m.retryFlags.add(f)
	f.StringVar(&m.cacheDir, "cache-dir", "", "model answer cache directory (default: the user cache directory)")
	f.BoolVar(&m.noCache, "no-cache", false, "do not cache model answers (every call is made again)")
	f.Float64Var(&m.maxCost, "max-cost", 0, "stop cleanly before spending more than this many US dollars; rerun to resume (0: no limit)")
	f.StringVar(&m.keyFile, "key-file", "", "file holding the API key (default: the provider's environment variable)")
}

// session opens the run's model layer.
func (m *modelFlags) session() (*llm.Session, error) {
	if m.maxCost < 0 {
		return nil, fmt.Errorf("--max-cost %g must not be negative: %w", m.maxCost, errs.ErrUsage)
	}
	so, err := m.retryFlags.apply(llm.SessionOptions{CacheDir: m.cacheDir, NoCache: m.noCache, MaxCost: m.maxCost,
		Provider: llm.Options{KeyFile: m.keyFile}})
	if err != nil {
		return nil, err
	}
	s, err := llm.NewSession(so)
	if err != nil {
		return nil, fmt.Errorf("open model session: %w", err)
	}
	return s, nil
}

// retryFlags bound what a failing or hung provider can cost: every
// model-using command has them.
type retryFlags struct {
	requestTimeout time.Duration
	maxAttempts    int
}

// Allowed ranges of the retry flags.
const (
	minRequestTimeout = time.Second
	maxRequestTimeout = time.Hour
	maxMaxAttempts    = 100
)

func (r *retryFlags) add(f *pflag.FlagSet) {
	f.DurationVar(&r.requestTimeout, "request-timeout", 2*time.Minute,
		"give up one attempt of a model call after this long; it is then retried (1s to 1h)")
	f.IntVar(&r.maxAttempts, "max-attempts", 5,
		"attempts per model call, the first included, before the run stops cleanly; rerun to resume (1 to 100)")
}

// apply checks the flags and sets them on o.
func (r retryFlags) apply(o llm.SessionOptions) (llm.SessionOptions, error) {
	if r.requestTimeout < minRequestTimeout || r.requestTimeout > maxRequestTimeout {
		return o, fmt.Errorf("--request-timeout %v: must be between %v and %v: %w", r.requestTimeout, minRequestTimeout, maxRequestTimeout, errs.ErrUsage)
	}
	if r.maxAttempts < 1 || r.maxAttempts > maxMaxAttempts {
		return o, fmt.Errorf("--max-attempts %d: must be between 1 and %d: %w", r.maxAttempts, maxMaxAttempts, errs.ErrUsage)
	}
	o.Provider.Timeout = r.requestTimeout
	o.Retry.MaxAttempts = r.maxAttempts
	return o, nil
}

// --- repositories ---

// repoFlags are the repository flags of every command that takes
// repositories: one name and one meaning each (internal/audit/repos).
type repoFlags struct {
	dir, mapping, cloneDir string
	clone                  bool
}

const (
	reposUsage   = "directory of local clones, bare or not: owner__name, owner/name, owner+name/repo, the Defects4J project or the repository name, any case"
	mappingUsage = `JSON file mapping repository or project names to clone paths, e.g. {"apache/commons-lang": "/srv/git/commons-lang.git"}`
)

// add registers --repos and --mapping, and with clone --clone and
// --clone-dir (the clone cache).
func (r *repoFlags) add(f *pflag.FlagSet, clone bool) {
	f.StringVar(&r.dir, "repos", "", reposUsage)
	f.StringVar(&r.mapping, "mapping", "", mappingUsage)
	if clone {
		f.BoolVar(&r.clone, "clone", false, "clone missing repositories from GitHub into --clone-dir")
		f.StringVar(&r.cloneDir, "clone-dir", "", "clone cache directory for --clone (default: benchforge/repos in the user cache directory)")
	}
}

// resolver builds the repository resolver.
func (r repoFlags) resolver() (*repos.Resolver, error) {
	dir := r.cloneDir
	if dir == "" {
		dir = defaultRepoCache()
	}
	return repos.New(repos.Options{Dir: r.dir, Mapping: r.mapping, Clone: r.clone, CacheDir: dir})
}

// --- benchmark ---

// benchmarkFlags are --benchmark, --format and (with strict) --strict:
// the benchmark a command reads with bench.Load.
type benchmarkFlags struct {
	file, format string
	strict       bool
}

const (
	benchmarkUsage = "benchmark file (JSONL, JSON) or Defects4J directory"
	formatUsage    = "benchmark format: auto, swebench, multi-swebench, defects4j, jsonl"
)

func (b *benchmarkFlags) add(f *pflag.FlagSet, strict bool) {
	f.StringVar(&b.file, "benchmark", "", benchmarkUsage)
	f.StringVar(&b.format, "format", "auto", formatUsage)
	if strict {
		f.BoolVar(&b.strict, "strict", false, "fail on the first invalid benchmark record instead of skipping it")
	}
}

// parseFormat is --format, checked.
func (b benchmarkFlags) parseFormat() (bench.Format, error) {
	format, err := bench.ParseFormat(b.format)
	if err != nil {
		return "", fmt.Errorf("--format: %w", err)
	}
	return format, nil
}

// --- output ---

// jsonUsage is the --json help of the commands that report through the
// output stream (see stream).
const jsonUsage = "print JSON Lines: progress, warnings and records as they happen, the summary last"

// addJSON declares --json for a command that reports through the output
// stream.
func addJSON(f *pflag.FlagSet, asJSON *bool) { f.BoolVar(asJSON, "json", false, jsonUsage) }

package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // openai, anthropic, ngram
)

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
}

func (m *modelFlags) add(f *pflag.FlagSet) {
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
	s, err := llm.NewSession(llm.SessionOptions{CacheDir: m.cacheDir, NoCache: m.noCache, MaxCost: m.maxCost,
		Provider: llm.Options{KeyFile: m.keyFile}})
	if err != nil {
		return nil, fmt.Errorf("open model session: %w", err)
	}
	return s, nil
}

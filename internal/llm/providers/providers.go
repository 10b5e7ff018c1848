// Package providers registers every built-in llm provider by importing it.
// Commands import it once (blank import) so llm.Open and llm.Session.Open
// understand "openai:", "anthropic:" and any provider added here.
package providers

import (
	_ "github.com/benchforge/benchforge/internal/llm/anthropic" // "anthropic"
	_ "github.com/benchforge/benchforge/internal/llm/ngramllm"  // "ngram"
	_ "github.com/benchforge/benchforge/internal/llm/openai"    // "openai"
)

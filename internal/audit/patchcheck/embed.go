package patchcheck

import (
	"context"
	"fmt"

	"github.com/benchforge/benchforge/internal/llm"
)

// ModelEmbedder adapts an internal/llm Model (any provider with
// embeddings, e.g. "openai:text-embedding-3-small" or an OpenAI-compatible
// local server hosting jina-code-embeddings) to Embedder.
type ModelEmbedder struct {
	Model llm.Model
	// Batch is the most inputs per request; 0 means 64.
	Batch int
}

// Embed embeds texts in batches.
func (e ModelEmbedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	n := e.Batch
	if n <= 0 {
		n = 64
	}
	out := make([][]float64, 0, len(texts))
	for i := 0; i < len(texts); i += n {
		j := min(i+n, len(texts))
		resp, err := e.Model.Embed(ctx, llm.EmbedRequest{Inputs: texts[i:j]})
		if err != nil {
			return nil, fmt.Errorf("patchcheck: embed %d lines with %s: %w", j-i, e.Model.ID(), err)
		}
		if len(resp.Vectors) != j-i {
			return nil, errEmbedCount(j-i, len(resp.Vectors))
		}
		out = append(out, resp.Vectors...)
	}
	return out, nil
}

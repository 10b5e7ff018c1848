package llm

import (
	"fmt"
	"strings"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// Cost returns the dollar cost of u at p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.PromptTokens)*p.InputPerMTok + float64(u.CompletionTokens)*p.OutputPerMTok) / 1e6
}

// DefaultPrices is the built-in price table, keyed "provider:model-prefix"
// (longest prefix wins, so dated snapshots such as gpt-4o-mini-2024-07-18
// match). Public list prices for standard (non-batch) usage as published by
// the providers in 2025; override or extend with SessionOptions.Prices.
// Loopback endpoints and in-process providers cost nothing.
var DefaultPrices = map[string]Price{
	"openai:gpt-4o-mini":            {0.15, 0.60},
	"openai:gpt-4o":                 {2.50, 10.00},
	"openai:gpt-4.1":                {2.00, 8.00},
	"openai:gpt-4.1-mini":           {0.40, 1.60},
	"openai:gpt-4.1-nano":           {0.10, 0.40},
	"openai:gpt-3.5-turbo-instruct": {1.50, 2.00},
	"openai:gpt-3.5-turbo":          {0.50, 1.50},
	"openai:davinci-002":            {2.00, 2.00},
	"openai:babbage-002":            {0.40, 0.40},
	"openai:text-embedding-3-small": {0.02, 0},
	"openai:text-embedding-3-large": {0.13, 0},
	"anthropic:claude-sonnet-4-5":   {3.00, 15.00},
	"anthropic:claude-sonnet-4":     {3.00, 15.00},
	"anthropic:claude-opus-4-1":     {15.00, 75.00},
	"anthropic:claude-opus-4":       {15.00, 75.00},
	"anthropic:claude-haiku-4-5":    {1.00, 5.00},
	"anthropic:claude-3-5-haiku":    {0.80, 4.00},
	"anthropic:claude-3-7-sonnet":   {3.00, 15.00},
	"anthropic:claude-3-5-sonnet":   {3.00, 15.00},
	"anthropic:claude-3-haiku":      {0.25, 1.25},
	"anthropic:claude-3-opus":       {15.00, 75.00},
	"openai:text-embedding-ada-002": {0.10, 0},
	"openai:gpt-4-turbo":            {10.00, 30.00},
	"openai:o4-mini":                {1.10, 4.40},
	"openai:o3-mini":                {1.10, 4.40},
	"openai:o3":                     {2.00, 8.00},
}

// lookupPrice finds the price of spec in table. ok is false for an unknown
// paid model (its cost is then counted as 0 and the manifest says so).
func lookupPrice(sp Spec, table map[string]Price) (p Price, ok bool, note string) {
	if p, ok := table[sp.String()]; ok && sp.BaseURL != "" {
		return p, true, "" // an override for this exact endpoint
	}
	if sp.Loopback() || (sp.Provider != "openai" && sp.Provider != "anthropic") {
		return Price{}, true, ""
	}
	key := sp.Provider + ":" + sp.Model
	best := ""
	for k := range table {
		if strings.HasPrefix(key, k) && len(k) > len(best) {
			best = k
		}
	}
	if best != "" {
		return table[best], true, ""
	}
	return Price{}, false, fmt.Sprintf("no price known for %s: its cost is counted as $0; add it with a price override", sp)
}

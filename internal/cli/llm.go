package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/output"
)

func newLLMCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "llm",
		Short: "Quick looks at any model through benchforge's model layer: complete, chat, score",
		Long: `Send one request to any model through the same layer the audit and the
synthesis pipeline use (cache, retries, rate limits, budget, manifest).` + modelSpecHelp,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newLLMCompleteCmd(a), newLLMChatCmd(a), newLLMScoreCmd(a))
	return cmd
}

type llmCommon struct {
	modelFlags
	spec     string
	manifest string
	asJSON   bool
}

func (c *llmCommon) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.spec, "model", "", "model spec (required), e.g. openai:qwen@http://127.0.0.1:8081/v1")
	f.StringVar(&c.manifest, "write-manifest", "", "write the run manifest (calls, cache hits, tokens, cost) to this file")
	// --manifest elsewhere is a manifest to read (audit testbed): the old
	// name is kept working, hidden.
	f.StringVar(&c.manifest, "manifest", "", "old name of --write-manifest")
	_ = f.MarkDeprecated("manifest", "use --write-manifest")
	f.BoolVar(&c.asJSON, "json", false, "print the response as JSON")
	c.modelFlags.add(f)
}

// with opens the session and model, runs fn, and writes the manifest.
func (c *llmCommon) with(op string, fn func(m llm.Model) error) error {
	if c.spec == "" {
		return fmt.Errorf("llm %s: --model is required: %w", op, errs.ErrUsage)
	}
	s, err := c.session()
	if err != nil {
		return fmt.Errorf("llm %s: %w", op, err)
	}
	defer s.Close()
	m, err := s.Open(c.spec)
	if err != nil {
		return fmt.Errorf("llm %s: %w", op, err)
	}
	if err := fn(m); err != nil {
		return fmt.Errorf("llm %s: %w", op, err)
	}
	if c.manifest != "" {
		return s.WriteManifest(c.manifest)
	}
	return nil
}

// textArg returns the prompt: the flag's value, or stdin when it is "-".
func textArg(v string) (string, error) {
	if v != "-" {
		return v, nil
	}
	b, err := io.ReadAll(os.Stdin)
	return string(b), err
}

func newLLMCompleteCmd(a *app) *cobra.Command {
	var c llmCommon
	var req llm.GenerateRequest
	var seed uint64
	cmd := &cobra.Command{
		Use:   "complete --model SPEC --prompt TEXT",
		Short: "Continue a raw text prompt (n samples)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := textArg(req.Prompt)
			if err != nil {
				return err
			}
			req.Prompt = p
			if cmd.Flags().Changed("seed") {
				s := int64(seed)
				req.Seed = &s
			}
			return c.with("complete", func(m llm.Model) error {
				resp, err := m.Generate(a.ctx, req)
				if err != nil {
					return err
				}
				if c.asJSON {
					return writeJSON(a.stdout, resp)
				}
				for i, s := range resp.Samples {
					fmt.Fprintf(a.stdout, "--- sample %d (%s)\n%s\n", i+1, s.FinishReason, s.Text)
					if len(s.Tokens) > 0 {
						fmt.Fprintf(a.stdout, "    mean logprob %.3f over %d tokens\n", meanLogprob(s.Tokens), len(s.Tokens))
					}
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Prompt, "prompt", "", "prompt text, or - for standard input")
	f.IntVar(&req.N, "n", 1, "number of samples")
	f.IntVar(&req.MaxTokens, "max-tokens", 32, "tokens per sample")
	f.Float64Var(&req.Temperature, "temperature", 0, "sampling temperature (0: greedy)")
	f.Float64Var(&req.TopP, "top-p", 0, "nucleus sampling mass (0: provider default)")
	f.Uint64Var(&seed, "seed", 0, "sampling seed")
	f.StringSliceVar(&req.Stop, "stop", nil, "stop strings")
	f.BoolVar(&req.Logprobs, "logprobs", false, "ask for per-token log-probabilities")
	c.add(cmd)
	return cmd
}

func newLLMChatCmd(a *app) *cobra.Command {
	var c llmCommon
	var req llm.ChatRequest
	var user string
	cmd := &cobra.Command{
		Use:   "chat --model SPEC --user TEXT [--system TEXT] [--json-answer]",
		Short: "Ask one chat question",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := textArg(user)
			if err != nil {
				return err
			}
			req.Messages = []llm.Message{{Role: "user", Content: u}}
			return c.with("chat", func(m llm.Model) error {
				resp, err := m.Chat(a.ctx, req)
				if err != nil {
					return err
				}
				if c.asJSON {
					return writeJSON(a.stdout, resp)
				}
				for _, ch := range resp.Choices {
					fmt.Fprintln(a.stdout, ch.Text)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.System, "system", "", "system prompt")
	f.StringVar(&user, "user", "", "user message, or - for standard input")
	f.IntVar(&req.MaxTokens, "max-tokens", 512, "largest answer, in tokens")
	f.Float64Var(&req.Temperature, "temperature", 0, "sampling temperature")
	f.BoolVar(&req.JSON, "json-answer", false, "ask for a JSON object as the answer")
	c.add(cmd)
	return cmd
}

func newLLMScoreCmd(a *app) *cobra.Command {
	var c llmCommon
	var req llm.ScoreRequest
	cmd := &cobra.Command{
		Use:   "score --model SPEC --prompt TEXT --continuation TEXT",
		Short: "Per-token log-probabilities of prompt+continuation",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.with("score", func(m llm.Model) error {
				resp, err := m.Score(a.ctx, req)
				if err != nil {
					return err
				}
				if c.asJSON {
					return writeJSON(a.stdout, resp)
				}
				t := &output.Table{Header: []string{"#", "TOKEN", "LOGPROB", "PART"}}
				for i, tok := range resp.Tokens {
					lp, part := "-", "prompt"
					if tok.HasLogprob {
						lp = fmt.Sprintf("%.3f", tok.Logprob)
					}
					if i >= resp.ContinuationStart {
						part = "continuation"
					}
					t.Add(i, fmt.Sprintf("%q", tok.Token), lp, part)
				}
				if err := t.Write(a.stdout); err != nil {
					return err
				}
				cont := resp.Tokens[resp.ContinuationStart:]
				_, err = fmt.Fprintf(a.stdout, "continuation: %d tokens, total logprob %.3f, mean %.3f\n",
					len(cont), resp.ContinuationLogprob(), meanLogprob(cont))
				return err
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Prompt, "prompt", "", "context text")
	f.StringVar(&req.Continuation, "continuation", "", "text whose log-probability is wanted")
	c.add(cmd)
	return cmd
}

func meanLogprob(toks []llm.TokenLogprob) float64 {
	sum, n := 0.0, 0
	for _, t := range toks {
		if t.HasLogprob {
			sum += t.Logprob
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

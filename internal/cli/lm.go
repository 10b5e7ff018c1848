package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/output"
)

func newLMCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lm",
		Short: "Built-in n-gram code language model: train, serve (OpenAI API), score, sample",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newLMTrainCmd(a), newLMServeCmd(a), newLMScoreCmd(a), newLMSampleCmd(a))
	return cmd
}

func requireFlag(cmd *cobra.Command, name, value string) error {
	if value == "" {
		return fmt.Errorf("%w: --%s is required (see '%s --help')", errs.ErrUsage, name, cmd.CommandPath())
	}
	return nil
}

// lmTrainSummary is what `lm train --json` prints.
type lmTrainSummary struct {
	Out       string  `json:"out"`
	Order     int     `json:"order"`
	Files     int     `json:"files"`
	Bytes     int64   `json:"bytes"`
	Tokens    int64   `json:"tokens"`
	Vocab     int     `json:"vocab"`
	NGrams    []int64 `json:"ngrams"`
	SizeBytes int64   `json:"size_bytes"`
	Seconds   float64 `json:"seconds"`
}

// repoSnapshots opens each --repo at its --rev as a training snapshot.
func repoSnapshots(ctx context.Context, dirs, revs []string) ([]ngram.Snapshot, func(), error) {
	var opened []*gitrepo.Repo
	closeAll := func() {
		for _, r := range opened {
			r.Close()
		}
	}
	if len(revs) > 1 && len(revs) != len(dirs) {
		return nil, closeAll, fmt.Errorf("%w: %d --repo and %d --rev: give one --rev per --repo, in order, or one for all", errs.ErrUsage, len(dirs), len(revs))
	}
	if len(revs) > 0 && len(dirs) == 0 {
		return nil, closeAll, fmt.Errorf("%w: --rev needs --repo DIR", errs.ErrUsage)
	}
	var out []ngram.Snapshot
	for i, d := range dirs {
		rev := "HEAD"
		switch {
		case len(revs) == 1:
			rev = revs[0]
		case len(revs) > 1:
			rev = revs[i]
		}
		r, err := gitrepo.Open(ctx, d)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--repo %s: %w", d, err)
		}
		opened = append(opened, r)
		c, err := r.Resolve(ctx, rev)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--repo %s --rev %s: %w", d, rev, err)
		}
		paths, err := r.ListFiles(ctx, c.Hash)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("--repo %s --rev %s: %w", d, rev, err)
		}
		hash := c.Hash
		out = append(out, ngram.Snapshot{Name: d + "@" + rev, Paths: paths, Read: func(ctx context.Context, ps []string) (map[string][]byte, error) {
			return r.ReadFiles(ctx, hash, ps)
		}})
	}
	return out, closeAll, nil
}

// lmTrainOptions are the flags of `lm train`.
type lmTrainOptions struct {
	corpus            ngram.Corpus
	order, minCount   int
	maxNGrams         int
	subword           bool
	discScale         float64
	out               string
	asJSON            bool
	maxBytes, maxFile int64
	repoDirs, revs    []string
}

func newLMTrainCmd(a *app) *cobra.Command {
	var o lmTrainOptions
	cmd := &cobra.Command{
		Use:   "train (--corpus DIR|ZIP... | --repo DIR --rev REV...) --out FILE",
		Short: "Train an n-gram model on directories, ZIP archives or repository snapshots of source code",
		Long: `train builds an n-gram model from source code: directories, ZIP archives
or files (--corpus), and repositories at a commit (--repo DIR --rev REV,
several allowed, paired in order; one --rev applies to every --repo): a
testbed model trained on a cutoff snapshot needs no 'git archive'. --rev
is anything git resolves (a commit, tag or branch); the clone may be bare.`,
		Example: `  benchforge lm train --corpus /usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip \
      --include 'java.base/**' --max-bytes 50000000 --out jdk.bfng
  benchforge lm train --repo repos/apache__commons-lang.git --rev 'master@{2019-01-01}' \
      --include '**/*.java' --out lang-2019.bfng`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runLMTrain(a, cmd, &o) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.corpus.Paths, "corpus", nil, "directory, ZIP archive or file to train on (repeatable)")
	f.StringArrayVar(&o.repoDirs, "repo", nil, "git clone (bare or not) to train on at --rev (repeatable)")
	f.StringArrayVar(&o.revs, "rev", nil, "commit, tag or branch of each --repo, in order (one --rev for all; default HEAD)")
	f.StringSliceVar(&o.corpus.Include, "include", nil, "glob of files to use, relative to each corpus root (repeatable; default: common source extensions)")
	f.StringSliceVar(&o.corpus.Exclude, "exclude", nil, "glob of files to skip (repeatable)")
	f.IntVar(&o.order, "order", ngram.DefaultOrder, "n-gram order")
	f.IntVar(&o.minCount, "min-count", 0, "count cutoff: drop n-grams (order >= 2) seen fewer times (capacity; 0 keeps all)")
	f.IntVar(&o.maxNGrams, "max-ngrams", 0, "capacity budget: keep at most this many distinct n-grams per order >= 2, the most frequent (0 = no budget)")
	f.BoolVar(&o.subword, "subword", false, "train on sub-word pieces of identifiers (getFooBar → get Foo Bar), so unseen names can be spelled")
	f.Float64Var(&o.discScale, "discount-scale", 0, "multiply the Kneser-Ney discounts (> 1 smooths more, memorises less; 0 = 1)")
	f.Int64Var(&o.maxBytes, "max-bytes", 0, "stop adding files after this many bytes (0 = all)")
	f.Int64Var(&o.maxFile, "max-file-bytes", 0, "skip files larger than this (0 = 4 MiB)")
	f.StringVar(&o.out, "out", "", "model file to write (.bfng)")
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// runLMTrain trains the model, saves it and prints the summary.
func runLMTrain(a *app, cmd *cobra.Command, o *lmTrainOptions) error {
	corpus := o.corpus
	if len(corpus.Paths) == 0 && len(o.repoDirs) == 0 {
		return fmt.Errorf("%w: --corpus or --repo is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	snaps, closeRepos, err := repoSnapshots(a.ctx, o.repoDirs, o.revs)
	if err != nil {
		return err
	}
	defer closeRepos()
	corpus.Snapshots = snaps
	if err := requireFlag(cmd, "out", o.out); err != nil {
		return err
	}
	corpus.MaxBytes, corpus.MaxFileBytes = o.maxBytes, o.maxFile
	opts := ngram.Options{Order: o.order, MinCount: o.minCount, DiscountScale: o.discScale, MaxNGrams: o.maxNGrams, SplitIdentifiers: o.subword}
	var bar *progressbar.ProgressBar
	if isTerminal(a.stderr) {
		opts.Progress = func(done, total int64) {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(a.stderr),
					progressbar.OptionShowBytes(true), progressbar.OptionSetDescription("reading corpus"),
					progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set64(done)
		}
	}
	start := time.Now()
	m, err := ngram.Train(a.ctx, corpus, opts)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	if err := m.Save(o.out); err != nil {
		return err
	}
	st := m.Stats()
	sum := lmTrainSummary{Out: o.out, Order: m.Order(), Files: st.Files, Bytes: st.Bytes, Tokens: st.Tokens,
		Vocab: st.Vocab, NGrams: st.NGrams, Seconds: time.Since(start).Seconds()}
	if fi, err := os.Stat(o.out); err == nil {
		sum.SizeBytes = fi.Size()
	}
	if o.asJSON {
		return writeJSON(a.stdout, sum)
	}
	return printLMTrain(a, sum)
}

// printLMTrain prints the training summary with the n-grams per order.
func printLMTrain(a *app, sum lmTrainSummary) error {
	var total int64
	grams := make([]string, len(sum.NGrams))
	for i, n := range sum.NGrams {
		total += n
		grams[i] = strconv.FormatInt(n, 10)
	}
	_, err := fmt.Fprintf(a.stdout, "trained %s: order %d, %d files, %d bytes, %d tokens, vocab %d\nn-grams %d (%s by order), model %d bytes, %.1fs\n",
		sum.Out, sum.Order, sum.Files, sum.Bytes, sum.Tokens, sum.Vocab, total, strings.Join(grams, "/"), sum.SizeBytes, sum.Seconds)
	return err
}

func newLMServeCmd(a *app) *cobra.Command {
	var model, addr, id string
	var cache ngram.Cache
	cmd := &cobra.Command{
		Use:   "serve --model FILE [--addr HOST:PORT]",
		Short: "Serve a model over the OpenAI completions API until interrupted",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "model", model); err != nil {
				return err
			}
			m, err := ngram.Load(model)
			if err != nil {
				return err
			}
			if m, err = m.WithCache(cache); err != nil {
				return fmt.Errorf("lm serve: --cache-weight %v: %w", cache.Weight, err)
			}
			if id == "" {
				id = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model))
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("lm serve: listen on %s: %w (pick another --addr): %w", addr, err, errs.ErrUnavailable)
			}
			srv := &http.Server{Handler: ngram.NewServer(m, id), ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(a.stdout, "serving model %q at http://%s/v1 (Ctrl-C to stop)\n", id, ln.Addr())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return fmt.Errorf("lm serve %s: %w: %w", ln.Addr(), err, errs.ErrUnavailable)
			case <-a.ctx.Done():
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				return fmt.Errorf("lm serve: shutdown: %w", err)
			}
			if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("lm serve: %w", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "", "model file (.bfng)")
	f.StringVar(&addr, "addr", "127.0.0.1:8081", "listen address; port 0 picks a free port")
	f.Float64Var(&cache.Weight, "cache-weight", 0, "weight of the cache component that copies from the request text (0 = off; see the ngram package docs)")
	f.IntVar(&cache.Order, "cache-order", 3, "longest context of the cache component, in tokens")
	f.StringVar(&id, "id", "", "model name clients must send (default: the file's base name)")
	return cmd
}

// lmScoreOutput is what `lm score --json` prints.
type lmScoreOutput struct {
	Summary ngram.Summary        `json:"summary"`
	Tokens  []ngram.TokenLogProb `json:"tokens"`
}

func newLMScoreCmd(a *app) *cobra.Command {
	var model, promptFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "score --model FILE [--prompt-file F] FILE|-",
		Short: "Per-token log-probabilities, mean log-probability and perplexity of a file",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "model", model); err != nil {
				return err
			}
			text, err := readInput(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			prompt := ""
			if promptFile != "" {
				if prompt, err = readInput(promptFile, cmd.InOrStdin()); err != nil {
					return err
				}
			}
			m, err := ngram.Load(model)
			if err != nil {
				return err
			}
			var scores []ngram.TokenLogProb
			if promptFile != "" {
				scores = m.Score(prompt, text)
			} else {
				scores = m.ScoreText(text)
			}
			out := lmScoreOutput{Summary: ngram.Summarize(scores), Tokens: scores}
			if asJSON {
				return writeJSON(a.stdout, out)
			}
			t := output.Table{Header: []string{"OFFSET", "TOKEN", "LOGPROB"}}
			for _, s := range scores {
				tok := strconv.Quote(s.Token)
				if s.Unknown {
					tok += " (unk)"
				}
				t.Add(s.Offset, tok, strconv.FormatFloat(s.LogProb, 'f', 4, 64))
			}
			if err := t.Write(a.stdout); err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "tokens %d (unknown %d), mean logprob %.4f, perplexity %.3f\n",
				out.Summary.Tokens, out.Summary.Unknown, out.Summary.MeanLogProb, out.Summary.Perplexity)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "", "model file (.bfng)")
	f.StringVar(&promptFile, "prompt-file", "", "text that precedes FILE (context, not scored)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// readInput reads a file, or stdin for "-".
func readInput(name string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("read %s: %w: %w", name, err, errs.ErrNotFound)
		}
		return "", fmt.Errorf("read %s: %w: %w", name, err, errs.ErrInput)
	}
	return string(b), nil
}

func newLMSampleCmd(a *app) *cobra.Command {
	var model, prompt string
	var opts ngram.SampleOptions
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sample --model FILE --prompt TEXT",
		Short: "Draw completions of a prompt from a model",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "model", model); err != nil {
				return err
			}
			m, err := ngram.Load(model)
			if err != nil {
				return err
			}
			opts.Seed = seed
			comps, err := m.Sample(a.ctx, prompt, opts)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, comps)
			}
			for i, c := range comps {
				sum := 0.0
				for _, lp := range c.LogProbs {
					sum += lp
				}
				fmt.Fprintf(a.stdout, "--- completion %d (%s, %d tokens, logprob %.3f)\n%s%s\n", i+1, c.FinishReason, len(c.Tokens), sum, prompt, c.Text)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "", "model file (.bfng)")
	f.StringVar(&prompt, "prompt", "", "text to continue")
	f.IntVar(&opts.N, "n", 3, "completions to draw")
	f.IntVar(&opts.MaxTokens, "max-tokens", 32, "tokens per completion")
	f.Float64Var(&opts.Temperature, "temperature", 0.8, "sampling temperature; 0 = greedy")
	f.IntVar(&opts.TopK, "top-k", 0, "keep the K most likely tokens (0 = all)")
	f.Float64Var(&opts.TopP, "top-p", 1, "nucleus sampling mass")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.StringSliceVar(&opts.Stop, "stop", nil, "stop string (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

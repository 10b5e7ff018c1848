package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

func newIndexCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build, merge, import and query the Stage I reference index (word → repository frequency)",
		Long: `index manages the reference index of Stage I's distinctiveness filter
(benchchecker §4.1): for every word, how many repositories of a reference
corpus contain it. Build it over directories (one repository per top-level
folder), ZIP archives (one per top-level folder, e.g. the JDK's src.zip
modules) or Parquet files (The Stack's repository column), shard by shard if
the corpus is large, then merge; or import word counts computed elsewhere.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newIndexBuildCmd(a), newIndexMergeCmd(a), newIndexImportCmd(a), newIndexLookupCmd(a))
	return cmd
}

// indexSummary is what build, merge and import report.
type indexSummary struct {
	Out       string   `json:"out"`
	Sources   []string `json:"sources,omitempty"`
	Repos     int      `json:"repos"`
	Anonymous int      `json:"anonymous_repos,omitempty"`
	Words     int      `json:"words"`
	SizeBytes int64    `json:"size_bytes"`
	Seconds   float64  `json:"seconds"`
}

func (a *app) writeIndexSummary(ix *refindex.Index, out string, sources []string, start time.Time, asJSON bool) error {
	s := indexSummary{Out: out, Sources: sources, Repos: ix.Repos(), Anonymous: ix.Anonymous(), Words: ix.Words(),
		Seconds: time.Since(start).Seconds()}
	if fi, err := os.Stat(out); err == nil {
		s.SizeBytes = fi.Size()
	}
	if asJSON {
		return writeJSON(a.stdout, s)
	}
	_, err := fmt.Fprintf(a.stdout, "%s: %d words over %d repositories (%d anonymous), %d bytes, %.1fs\n",
		s.Out, s.Words, s.Repos, s.Anonymous, s.SizeBytes, s.Seconds)
	return err
}

// indexBuildOptions are the flags of `index build`.
type indexBuildOptions struct {
	corpus           []string
	out              string
	exts             []string
	repoCol, textCol string
	maxFile          int64
	asJSON           bool
}

func newIndexBuildCmd(a *app) *cobra.Command {
	o := &indexBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build [--corpus DIR|ZIP|PARQUET...] --out FILE",
		Short: "Count, for every word, the repositories of a corpus that contain it",
		Long: `build counts, for every word ([A-Za-z_$][A-Za-z0-9_$]*, Unicode letters
allowed, not starting with a digit), the repositories of the corpus that
contain it. A repository is a top-level folder of a DIR (a top-level file is
one of its own), the first path element of a ZIP entry, or the repository
column of a Parquet row. Without --corpus the index is built from the code on
this machine: the JDK's src.zip modules and the Python standard library.`,
		Example: `  benchforge index build --out ref.idx
  benchforge index build --corpus /srv/clones --out shard1.idx
  benchforge index build --corpus the-stack/java/train-00000.parquet --out s0.idx`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runIndexBuild(a, cmd, o) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.corpus, "corpus", nil, "corpus directory, .zip/.jar or .parquet (repeatable); default: JDK src.zip + Python stdlib")
	f.StringVar(&o.out, "out", "", "index file to write")
	f.StringSliceVar(&o.exts, "ext", nil, "file extensions to read from DIR/ZIP corpora (default: common source extensions; '*' for all text files)")
	f.StringVar(&o.repoCol, "repo-column", "", "Parquet repository column (default: repo_name, max_stars_repo_name, repo, ...)")
	f.StringVar(&o.textCol, "content-column", "", "Parquet content column (default: content, text, code, ...)")
	f.Int64Var(&o.maxFile, "max-file-bytes", 0, "skip larger files (default 4 MiB)")
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// runIndexBuild builds the index over the sources, saves it and prints
// its summary.
func runIndexBuild(a *app, cmd *cobra.Command, o *indexBuildOptions) error {
	if err := requireFlag(cmd, "out", o.out); err != nil {
		return err
	}
	sources, err := o.sources(a)
	if err != nil {
		return err
	}
	opts := refindex.Options{MaxFileBytes: o.maxFile, Exts: normExts(o.exts)}
	start := time.Now()
	ix, err := buildIndexWithBar(a, sources, opts)
	if err != nil {
		return err
	}
	if err := ix.Save(o.out); err != nil {
		return err
	}
	paths := make([]string, len(sources))
	for i, s := range sources {
		paths[i] = s.Path
	}
	return a.writeIndexSummary(ix, o.out, paths, start, o.asJSON)
}

// sources are the --corpus sources, or without any the code on this
// machine (refindex.DefaultSources).
func (o *indexBuildOptions) sources(a *app) ([]refindex.Source, error) {
	var sources []refindex.Source
	if len(o.corpus) == 0 {
		def, err := refindex.DefaultSources(a.ctx)
		if err != nil {
			return nil, err
		}
		sources = def
	}
	for _, c := range o.corpus {
		sources = append(sources, refindex.Source{Path: c, RepoColumn: o.repoCol, ContentColumn: o.textCol})
	}
	return sources, nil
}

// normExts are the --ext values as lower-case extensions with their dot
// ("*" stays).
func normExts(exts []string) []string {
	var out []string
	for _, e := range exts {
		if e != "*" && !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, strings.ToLower(e))
	}
	return out
}

// buildIndexWithBar builds the index, with a progress bar of the bytes
// read when stderr is a terminal.
func buildIndexWithBar(a *app, sources []refindex.Source, opts refindex.Options) (*refindex.Index, error) {
	var bar *progressbar.ProgressBar
	if isTerminal(a.stderr) {
		opts.Progress = func(p refindex.Progress) {
			if bar == nil {
				total := p.Total
				if total == 0 {
					total = -1
				}
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(a.stderr),
					progressbar.OptionShowBytes(true), progressbar.OptionSetDescription("indexing"),
					progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			}
			bar.Describe(fmt.Sprintf("indexing (%d repositories)", p.Repos))
			_ = bar.Set64(p.Bytes)
		}
	}
	ix, err := refindex.Build(a.ctx, sources, opts)
	if bar != nil {
		_ = bar.Finish()
	}
	return ix, err
}

func newIndexMergeCmd(a *app) *cobra.Command {
	var (
		out    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "merge --out FILE SHARD...",
		Short: "Join index shards built over disjoint repositories",
		Long: `merge adds the repository counts of shards built over disjoint sets of
repositories. Shards that share a repository name are refused (the counts
would count it twice). Imported shards have anonymous repositories: keeping
them disjoint from the others is up to you.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "out", out); err != nil {
				return err
			}
			start := time.Now()
			shards := make([]*refindex.Index, len(args))
			for i, p := range args {
				ix, err := refindex.Load(p)
				if err != nil {
					return err
				}
				shards[i] = ix
			}
			m, err := refindex.Merge(shards...)
			if err != nil {
				return err
			}
			if err := m.Save(out); err != nil {
				return err
			}
			return a.writeIndexSummary(m, out, args, start, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "index file to write")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

func newIndexImportCmd(a *app) *cobra.Command {
	var (
		csvPath, out string
		repos        int
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "import --csv FILE [--repo-count N] --out FILE",
		Short: "Import word,count[,repos] rows computed by DuckDB, Spark or BigQuery",
		Long: `import reads a CSV of word,count rows (count = repositories containing the
word; an optional third column repeats the corpus's repository total) and
writes an index. --repo-count gives the total number of repositories of the
corpus; without it (and without a third column) the largest count is used,
a lower bound. See 'go doc internal/audit/refindex' for the DuckDB query.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "csv", csvPath); err != nil {
				return err
			}
			if err := requireFlag(cmd, "out", out); err != nil {
				return err
			}
			if repos < 0 {
				return fmt.Errorf("%w: --repo-count %d: want a positive count", errs.ErrUsage, repos)
			}
			start := time.Now()
			f, err := os.Open(csvPath)
			if err != nil {
				if os.IsNotExist(err) {
					return fmt.Errorf("index import: %w: %v", errs.ErrNotFound, err)
				}
				return fmt.Errorf("index import: %w", err)
			}
			defer f.Close()
			ix, err := refindex.ImportCSV(f, csvPath, repos)
			if err != nil {
				return err
			}
			if err := ix.Save(out); err != nil {
				return err
			}
			return a.writeIndexSummary(ix, out, []string{csvPath}, start, asJSON)
		},
	}
	cmd.Flags().StringVar(&csvPath, "csv", "", "word,count[,repos] CSV file")
	cmd.Flags().IntVar(&repos, "repo-count", 0, "repositories in the corpus (default: the third column, else the largest count)")
	cmd.Flags().StringVar(&out, "out", "", "index file to write")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// lookupRow is one looked-up word.
type lookupRow struct {
	Word     string  `json:"word"`
	RepoFreq int     `json:"repo_freq"`
	Fraction float64 `json:"fraction"`
}

func newIndexLookupCmd(a *app) *cobra.Command {
	var (
		index  string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "lookup --index FILE WORD...",
		Short: "Print how many reference repositories contain each word",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "index", index); err != nil {
				return err
			}
			ix, err := refindex.Load(index)
			if err != nil {
				return err
			}
			rows := make([]lookupRow, len(args))
			for i, w := range args {
				rows[i] = lookupRow{Word: w, RepoFreq: ix.RepoFreq(w)}
				if ix.Repos() > 0 {
					rows[i].Fraction = float64(rows[i].RepoFreq) / float64(ix.Repos())
				}
			}
			if asJSON {
				return writeJSON(a.stdout, struct {
					Index string      `json:"index"`
					Repos int         `json:"repos"`
					Words []lookupRow `json:"words"`
				}{index, ix.Repos(), rows})
			}
			t := &output.Table{Header: []string{"word", "repos", "fraction"}}
			for _, r := range rows {
				t.Add(r.Word, r.RepoFreq, fmt.Sprintf("%.4f", r.Fraction))
			}
			if err := t.Write(a.stdout); err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "(%d repositories in %s)\n", ix.Repos(), index)
			return err
		},
	}
	cmd.Flags().StringVar(&index, "index", "", "reference index file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

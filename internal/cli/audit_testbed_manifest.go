package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// Files `audit testbed --manifest M --out DIR` writes.
const (
	fileEcosystemJSON = "testbed-ecosystem.json"
	fileEcosystemHTML = "testbed.html"
	fileEcosystemMD   = "testbed.md"
)

// ecosystemOptions are the flags of a manifest testbed run.
type ecosystemOptions struct {
	manifest   string
	repoDir    string
	jdkSrc     string
	seeds      []uint
	capacities []string
	maxFiles   int
}

func (o *ecosystemOptions) flags(f *pflag.FlagSet) {
	f.StringVar(&o.manifest, "manifest", "", "testbed manifest (JSON: repositories at fixed commits with roles, e.g. testdata/testbed/apache-java.json); runs the ecosystem testbed instead of the quick one")
	f.StringVar(&o.repoDir, "repos", "", "directory of local clones of the manifest's repositories, owner__name.git or owner+name/repo (with --manifest)")
	f.StringVar(&o.jdkSrc, "jdk-src", "", "JDK src.zip for the manifest's jdk_modules (default: the installed JDK's)")
	f.UintSliceVar(&o.seeds, "train-seeds", []uint{1, 2, 3}, "training seeds of the manifest testbed (file samples, background, controls, sampling)")
	f.StringArrayVar(&o.capacities, "capacity", nil, "target capacity order=N,cutoff=N,cache=W,subword=0|1,budget=N[,discount=S] (repeatable; default: order=6,cutoff=2,subword=1 with cache=0.4,budget=120000 (the headline), cache=0.2,budget=120000 and cache=0.4 with no budget)")
	f.IntVar(&o.maxFiles, "manifest-max-files", 40, "source files sampled per repository of the manifest testbed")
}

// parseCapacity reads "order=6,cutoff=2,cache=0.2[,discount=1.5]".
func parseCapacity(s string) (testbed.Capacity, error) {
	c := testbed.Capacity{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || x < 0 {
			return c, fmt.Errorf("audit testbed: --capacity %q: %q is not KEY=NUMBER (keys order, cutoff, cache, discount, subword, budget, pieces; e.g. order=6,cutoff=2,cache=0.2,subword=1): %w", s, kv, errs.ErrUsage)
		}
		switch k {
		case "order":
			c.Order = int(x)
		case "cutoff":
			c.MinCount = int(x)
		case "cache":
			c.Cache = x
		case "discount":
			c.DiscountScale = x
		case "subword":
			c.Subword = x != 0
		case "budget":
			c.Budget = int(x)
		case "pieces":
			c.Pieces = x != 0
		default:
			return c, fmt.Errorf("audit testbed: --capacity %q: unknown key %q (keys order, cutoff, cache, discount, subword, budget, pieces): %w", s, k, errs.ErrUsage)
		}
	}
	if c.Order < 1 || c.Cache >= 1 {
		return c, fmt.Errorf("audit testbed: --capacity %q: want order >= 1 and cache < 1: %w", s, errs.ErrUsage)
	}
	return c, nil
}

func runEcosystemTestbed(a *app, o auditTestbedOptions) error {
	m, err := testbed.LoadManifest(o.eco.manifest)
	if err != nil {
		return fmt.Errorf("audit testbed --manifest: %w", err)
	}
	if o.eco.repoDir == "" {
		return fmt.Errorf("audit testbed --manifest %s: pass --repos DIR, the folder holding the clones (owner__name.git): %w", o.eco.manifest, errs.ErrUsage)
	}
	opts := testbed.Options{Manifest: m, RepoDirs: []string{o.eco.repoDir}, JDKZip: o.eco.jdkSrc,
		MaxQueries: o.tb.MaxQueries, Samples: o.tb.Samples, Alpha: o.tb.Alpha}
	opts.Read.MaxFiles = o.eco.maxFiles
	for _, s := range o.eco.seeds {
		opts.Seeds = append(opts.Seeds, uint64(s))
	}
	for _, s := range o.eco.capacities {
		c, err := parseCapacity(s)
		if err != nil {
			return err
		}
		opts.Capacities = append(opts.Capacities, c)
	}
	if isTerminal(a.stderr) {
		opts.Progress = func(msg string) { fmt.Fprintln(a.stderr, "testbed:", msg) }
	}
	res, err := testbed.Run(a.ctx, opts)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeEcosystemFiles(o.out, res); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, res)
	}
	_, err = fmt.Fprint(a.stdout, res.Markdown())
	return err
}

func writeEcosystemFiles(dir string, res *testbed.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("audit testbed: --out %s: %w", dir, err)
	}
	if err := output.WriteJSON(filepath.Join(dir, fileEcosystemJSON), res); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, fileEcosystemMD), []byte(res.Markdown()), 0o644); err != nil {
		return fmt.Errorf("audit testbed: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, fileEcosystemHTML))
	if err != nil {
		return fmt.Errorf("audit testbed: %w", err)
	}
	if err := res.WritePage(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/ngram"
)

// ReferenceFiles are the offline default reference model and index.
type ReferenceFiles struct {
	Model   string   `json:"model"`   // .bfng, for the "ngram:" provider
	Index   string   `json:"index"`   // refindex file
	Sources []string `json:"sources"` // the corpora both were built from
	Built   bool     `json:"built"`   // false when both came from dir
}

// referenceBytes bounds the n-gram reference's training text: enough for
// stable code statistics, small enough to build in seconds.
const referenceBytes = 40 << 20

// BuildReference returns the offline default reference model and index of
// benchchecker §4.1, built once from sources (ZIPs such as the JDK's
// src.zip, or folders such as the Python standard library) and kept in dir
// under a name derived from the sources' paths, sizes and times, so later
// runs reuse them. The reference model must not have seen the repository
// under test: a benchmark's repositories (astropy, django, commons-lang, …)
// are not part of the machine's JDK or Python library, so this holds by
// construction; audit a JDK module or stdlib package with an explicit
// --reference-model instead.
func BuildReference(ctx context.Context, dir string, sources []refindex.Source, progress func(string)) (*ReferenceFiles, error) {
	if len(sources) == 0 {
		return nil, fmt.Errorf("build reference: %w: no reference corpus on this machine (no JDK src.zip, no Python standard library); pass --reference-model and --reference-index", errs.ErrNotFound)
	}
	rf, err := referenceFiles(dir, sources)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("build reference: %w", err)
	}
	say := func(format string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, a...))
		}
	}
	if _, err := os.Stat(rf.Index); err != nil {
		say("building the reference index from %s (once)", strings.Join(rf.Sources, ", "))
		if err := buildReferenceIndex(ctx, sources, rf.Index); err != nil {
			return nil, err
		}
		rf.Built = true
	}
	if _, err := os.Stat(rf.Model); err != nil {
		say("training the reference n-gram model on %s (once)", strings.Join(rf.Sources, ", "))
		if err := trainReferenceModel(ctx, rf.Sources, rf.Model); err != nil {
			return nil, err
		}
		rf.Built = true
	}
	return rf, nil
}

// referenceFiles names the reference files in dir after a hash of the
// sources' paths, prefixes, sizes and times.
func referenceFiles(dir string, sources []refindex.Source) (*ReferenceFiles, error) {
	h := sha256.New()
	var paths []string
	for _, s := range sources {
		st, err := os.Stat(s.Path)
		if err != nil {
			return nil, fmt.Errorf("build reference: %w", err)
		}
		fmt.Fprintf(h, "%s|%s|%d|%d\n", s.Path, s.Prefix, st.Size(), st.ModTime().UnixNano())
		paths = append(paths, s.Path)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	return &ReferenceFiles{
		Model:   filepath.Join(dir, "reference-"+key+".bfng"),
		Index:   filepath.Join(dir, "reference-"+key+".idx"),
		Sources: paths,
	}, nil
}

// buildReferenceIndex builds the reference index of sources into path.
func buildReferenceIndex(ctx context.Context, sources []refindex.Source, path string) error {
	idx, err := refindex.Build(ctx, sources, refindex.Options{})
	if err != nil {
		return fmt.Errorf("build reference index: %w", err)
	}
	if err := idx.Save(path); err != nil {
		return fmt.Errorf("build reference index: %w", err)
	}
	return nil
}

// trainReferenceModel trains the reference n-gram model on the source
// paths into path.
func trainReferenceModel(ctx context.Context, paths []string, path string) error {
	m, err := ngram.Train(ctx, ngram.Corpus{Paths: paths, MaxBytes: referenceBytes}, ngram.Options{})
	if err != nil {
		return fmt.Errorf("build reference model: %w", err)
	}
	if err := m.Save(path); err != nil {
		return fmt.Errorf("build reference model: %w", err)
	}
	return nil
}

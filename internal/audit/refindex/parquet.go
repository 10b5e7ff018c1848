package refindex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/benchforge/benchforge/internal/errs"
)

// DefaultRepoColumns and DefaultContentColumns are the Parquet column
// names tried, in order, when Source.RepoColumn or Source.ContentColumn is
// empty: The Stack v1 (max_stars_repo_name, content), The Stack v2 and
// smol variants (repo_name, content), and generic names.
var (
	DefaultRepoColumns    = []string{"repo_name", "max_stars_repo_name", "repo", "repository", "repos"}
	DefaultContentColumns = []string{"content", "text", "code", "new_contents"}
)

// planParquet opens a Parquet file whose rows are files: one column holds
// the repository name, another the file's text. Both must be top-level,
// non-repeated string columns. Rows may come in any repository order.
func planParquet(s Source) (plan, error) {
	f, pf, err := openParquet(s.Path)
	if err != nil {
		return plan{}, err
	}
	pc := &parquetCorpus{s: s, pf: pf}
	if pc.repoCol, err = parquetColumn(pf, s.Path, s.RepoColumn, DefaultRepoColumns, "repository"); err != nil {
		f.Close()
		return plan{}, err
	}
	if pc.textCol, err = parquetColumn(pf, s.Path, s.ContentColumn, DefaultContentColumns, "content"); err != nil {
		f.Close()
		return plan{}, err
	}
	return plan{close: func() { f.Close() }, run: pc.run}, nil
}

// openParquet opens the Parquet file at path; the caller closes f.
func openParquet(path string) (f *os.File, pf *parquet.File, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("refindex.Build: corpus %s: %w: %w", path, err, errs.ErrInput)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("refindex.Build: corpus %s: %w", path, err)
	}
	pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("refindex.Build: corpus %s: not a Parquet file: %w: %w", path, err, errs.ErrInput)
	}
	return f, pf, nil
}

// parquetCorpus is an open Parquet corpus with the leaf indexes of its
// repository and content columns.
type parquetCorpus struct {
	s                Source
	pf               *parquet.File
	repoCol, textCol int
}

// run indexes every row group.
func (pc *parquetCorpus) run(ctx context.Context, b *builder) error {
	for gi, rg := range pc.pf.RowGroups() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := pc.rowGroup(ctx, b, gi, rg); err != nil {
			return err
		}
		b.progress(pc.s.Path)
	}
	return nil
}

// rowGroup indexes row group gi: its repository names first, then each
// row's file under its repository.
func (pc *parquetCorpus) rowGroup(ctx context.Context, b *builder, gi int, rg parquet.RowGroup) error {
	chunks := rg.ColumnChunks()
	var repos []string
	err := columnValues(ctx, chunks[pc.repoCol], func(v parquet.Value) error {
		if v.IsNull() {
			repos = append(repos, "")
		} else {
			repos = append(repos, string(v.ByteArray()))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("row group %d: column %d: %w: %w", gi, pc.repoCol, err, errs.ErrInput)
	}
	row := 0
	err = columnValues(ctx, chunks[pc.textCol], func(v parquet.Value) error {
		if row >= len(repos) {
			return fmt.Errorf("content column has more values than the repository column")
		}
		pc.addFile(b, repos[row], v)
		row++
		return nil
	})
	if err == nil && row != len(repos) {
		err = fmt.Errorf("content column has %d values, repository column %d", row, len(repos))
	}
	if err != nil {
		return fmt.Errorf("row group %d: %w: %w", gi, err, errs.ErrInput)
	}
	return nil
}

// addFile indexes one file's text v under repository name; a null file
// or a row without a valid repository name is skipped, binary content is
// counted but not indexed.
func (pc *parquetCorpus) addFile(b *builder, name string, v parquet.Value) {
	if v.IsNull() || name == "" || !validName(name) {
		return
	}
	data := v.ByteArray()
	r := b.repo(pc.s.Prefix + name)
	if !isBinary(data) {
		b.add(r, data)
	}
	b.prog.Files++
	b.prog.Bytes += int64(len(data))
}

// parquetColumn finds the leaf column index of the named (or first
// default) top-level string column.
func parquetColumn(pf *parquet.File, file, name string, defaults []string, what string) (int, error) {
	cands := defaults
	if name != "" {
		cands = []string{name}
	}
	for _, c := range cands {
		leaf, ok := pf.Schema().Lookup(c)
		if !ok {
			continue
		}
		if leaf.MaxRepetitionLevel != 0 {
			return 0, fmt.Errorf("refindex.Build: corpus %s: column %q is repeated: %w: want one %s string per row", file, c, errs.ErrInput, what)
		}
		return leaf.ColumnIndex, nil
	}
	return 0, fmt.Errorf("refindex.Build: corpus %s: %w: no %s column (tried %v); name it with --repo-column/--content-column", file, errs.ErrInput, what, cands)
}

// columnValues calls fn with every value of a column chunk, in row order.
func columnValues(ctx context.Context, cc parquet.ColumnChunk, fn func(parquet.Value) error) error {
	pages := cc.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 256)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = pageValues(p, buf, fn)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

func pageValues(p parquet.Page, buf []parquet.Value, fn func(parquet.Value) error) error {
	vr := p.Values()
	for {
		n, err := vr.ReadValues(buf)
		for _, v := range buf[:n] {
			if e := fn(v); e != nil {
				return e
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

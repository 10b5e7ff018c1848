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
	f, err := os.Open(s.Path)
	if err != nil {
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w: %w", s.Path, err, errs.ErrInput)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w", s.Path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		f.Close()
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: not a Parquet file: %w: %w", s.Path, err, errs.ErrInput)
	}
	repoCol, err := parquetColumn(pf, s.Path, s.RepoColumn, DefaultRepoColumns, "repository")
	if err != nil {
		f.Close()
		return plan{}, err
	}
	textCol, err := parquetColumn(pf, s.Path, s.ContentColumn, DefaultContentColumns, "content")
	if err != nil {
		f.Close()
		return plan{}, err
	}
	return plan{close: func() { f.Close() }, run: func(ctx context.Context, b *builder) error {
		for gi, rg := range pf.RowGroups() {
			if err := ctx.Err(); err != nil {
				return err
			}
			chunks := rg.ColumnChunks()
			var repos []string
			err := columnValues(ctx, chunks[repoCol], func(v parquet.Value) error {
				if v.IsNull() {
					repos = append(repos, "")
				} else {
					repos = append(repos, string(v.ByteArray()))
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("row group %d: column %d: %w: %w", gi, repoCol, err, errs.ErrInput)
			}
			row := 0
			err = columnValues(ctx, chunks[textCol], func(v parquet.Value) error {
				if row >= len(repos) {
					return fmt.Errorf("content column has more values than the repository column")
				}
				name := repos[row]
				row++
				if v.IsNull() || name == "" || !validName(name) {
					return nil
				}
				data := v.ByteArray()
				r := b.repo(s.Prefix + name)
				if !isBinary(data) {
					b.add(r, data)
				}
				b.prog.Files++
				b.prog.Bytes += int64(len(data))
				return nil
			})
			if err == nil && row != len(repos) {
				err = fmt.Errorf("content column has %d values, repository column %d", row, len(repos))
			}
			if err != nil {
				return fmt.Errorf("row group %d: %w: %w", gi, err, errs.ErrInput)
			}
			b.progress(s.Path)
		}
		return nil
	}}, nil
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

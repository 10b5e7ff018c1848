package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// readSource reads a source file named on the command line. A file larger
// than maxSize is skipped with a warning (ok=false); a missing file or a
// directory is an error naming it.
func readSource(h output.Handler, op, path string, maxSize int64) (src []byte, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, fmt.Errorf("%s: %s: no such file: %w", op, path, errs.ErrNotFound)
		}
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	if st.IsDir() {
		return nil, false, fmt.Errorf("%s: %s is a directory; pass source files: %w", op, path, errs.ErrUsage)
	}
	if st.Size() > maxSize {
		return nil, false, warnAll(h, fmt.Sprintf("%s: %d bytes is over --max-size %d; skipped", path, st.Size(), maxSize))
	}
	src, err = os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	return src, true, nil
}

// warnings is the handler of a command not on the output stream: warnings
// as "benchforge: warning: ..." lines on stderr, nothing else.
func (a *app) warnings() output.Handler { return stderrWarnings{a} }

type stderrWarnings struct{ a *app }

func (s stderrWarnings) Progress(output.Progress) error { return nil }
func (s stderrWarnings) Record(output.Record) error     { return nil }
func (s stderrWarnings) Summary(output.Summary) error   { return nil }
func (s stderrWarnings) Warning(w output.Warning) error {
	warn(s.a, "%s", w.Message)
	return nil
}

// warn prints a warning line on stderr.
func warn(a *app, format string, args ...any) {
	fmt.Fprintf(a.stderr, "benchforge: warning: "+format+"\n", args...)
}

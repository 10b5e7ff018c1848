package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/errs"
)

// flagRange is the allowed range of a numeric flag, the same in every
// command that has it. A flag whose help documents 0 as a default ("(0:
// ..." or "(0 = ...") also accepts 0.
type flagRange struct{ min, max float64 }

var flagRanges = map[string]flagRange{
	"threshold":        {0, 1},
	"low":              {0, 1},
	"top-p":            {0, 1},
	"alpha":            {0, 1},
	"pair-share":       {-1, 1},
	"temperature":      {0, 2},
	"samples":          {1, 1000},
	"n":                {1, 128},
	"folds":            {2, 100},
	"workers":          {1, 256},
	"probe-workers":    {1, 256},
	"batch":            {1, 100000},
	"max-tokens":       {1, 1 << 20},
	"probe-max-tokens": {1, 1 << 20},
	"per-type":         {1, 1 << 20},
	"per-quartile":     {1, 1 << 20},
	"min-lines":        {1, 100000},
	"max-lines":        {1, 100000},
	"budget":           {1, 1 << 20},
	"trees":            {1, 100000},
	"bootstrap":        {0, 10000000},
	"size-tolerance":   {0, 100},
}

// durationRanges are the allowed ranges of duration flags.
var durationRanges = map[string][2]time.Duration{
	"timeout":      {time.Millisecond, 24 * time.Hour},
	"test-timeout": {time.Second, 24 * time.Hour},
}

// checkRanges refuses a flag the user set outside its allowed range, and
// a --min-lines above --max-lines, before the command touches any file.
func checkRanges(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err == nil {
			err = checkRange(f)
		}
	})
	if err != nil {
		return err
	}
	return checkLineBounds(cmd)
}

// checkRange checks one set flag against its range, if it has one.
func checkRange(f *pflag.Flag) error {
	if r, ok := durationRanges[f.Name]; ok && f.Value.Type() == "duration" {
		d, err := time.ParseDuration(f.Value.String())
		if err == nil && (d < r[0] || d > r[1]) {
			return fmt.Errorf("--%s %v: must be between %v and %v: %w", f.Name, d, r[0], r[1], errs.ErrUsage)
		}
		return nil
	}
	r, ok := flagRanges[f.Name]
	if !ok || !numericFlag(f) {
		return nil
	}
	v, err := strconv.ParseFloat(f.Value.String(), 64)
	if err != nil {
		return nil
	}
	zeroOK := strings.Contains(f.Usage, "(0:") || strings.Contains(f.Usage, "(0 =") || strings.Contains(f.Usage, "(default 0")
	if v == 0 && zeroOK || v >= r.min && v <= r.max {
		return nil
	}
	allowed := fmt.Sprintf("between %s and %s", num(r.min), num(r.max))
	if zeroOK {
		allowed += ", or 0 for the default"
	}
	return fmt.Errorf("--%s %s: must be %s: %w", f.Name, f.Value.String(), allowed, errs.ErrUsage)
}

// numericFlag reports whether f holds a number flagRanges can bound.
func numericFlag(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "int", "int64", "float64", "uint", "uint64":
		return true
	}
	return false
}

// checkLineBounds refuses a --min-lines above --max-lines when either was
// set.
func checkLineBounds(cmd *cobra.Command) error {
	lo, hi := cmd.Flags().Lookup("min-lines"), cmd.Flags().Lookup("max-lines")
	if lo == nil || hi == nil || !lo.Changed && !hi.Changed {
		return nil
	}
	a, _ := strconv.Atoi(lo.Value.String())
	b, _ := strconv.Atoi(hi.Value.String())
	if b > 0 && a > b { // 0 is the (mode-dependent) default
		return fmt.Errorf("--min-lines %d is above --max-lines %d: %w", a, b, errs.ErrUsage)
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// fileFlags are input flags that name a file, never a directory (unless
// the flag's help says a directory is welcome, as synth generate's
// --corpus does).
var fileFlags = []string{"corpus", "candidates", "seeds", "bugs", "core", "executions", "judgements", "key-file",
	"labels", "leaderboard", "mapping", "predictions", "id-map", "csv", "index", "model", "old", "new", "prompt-file"}

// recordFlags are input files that must hold records: an empty one is
// almost always the wrong file, and a run over it would report nothing.
var recordFlags = []string{"corpus", "candidates"}

// checkInputs refuses a directory given as an input file and an empty
// corpus or candidate file (a warning and exit 3), before the command
// creates any output.
func checkInputs(cmd *cobra.Command) error {
	for _, name := range fileFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed || f.Value.Type() != "string" || f.Value.String() == "" {
			continue
		}
		p := f.Value.String()
		fi, err := os.Stat(p)
		if err != nil {
			continue // the command says what is missing, in its own words
		}
		if fi.IsDir() && !strings.Contains(f.Usage, "director") {
			return fmt.Errorf("--%s %s is a directory; give a file: %w", name, p, errs.ErrUsage)
		}
		if fi.Mode().IsRegular() && slices.Contains(recordFlags, name) && onlySpace(p) {
			return fmt.Errorf("warning: --%s %s is empty: no records to read; nothing done: %w", name, p, errs.ErrInput)
		}
	}
	return nil
}

// onlySpace reports whether the file at p holds nothing but white space
// (and a byte-order mark); it reads at most the first 64 KiB.
func onlySpace(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	if len(b) == 64<<10 {
		return false
	}
	return len(bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))) == 0
}

// outputFlags name the files and directories a command writes.
var outputFlags = []string{"out", "write-manifest", "manifest", "log", "reference-set"}

// freshOutputs lists the output paths of cmd that do not exist yet.
func freshOutputs(cmd *cobra.Command) []string {
	var out []string
	for _, name := range outputFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || f.Value.Type() != "string" || f.Value.String() == "" {
			continue
		}
		if _, err := os.Lstat(f.Value.String()); os.IsNotExist(err) {
			out = append(out, f.Value.String())
		}
	}
	return out
}

// removeEmpty removes the paths that are now an empty file or an empty
// directory: a failed run leaves no empty output behind (one that wrote
// something keeps it, for the rerun to resume from).
func removeEmpty(paths []string) {
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode().IsRegular() && fi.Size() == 0 {
			os.Remove(p)
		} else if fi.IsDir() {
			os.Remove(p) // fails unless empty
		}
	}
}

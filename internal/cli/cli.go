// Package cli owns benchforge's command line: cobra commands, flag parsing
// into option structs, rendering of results (text or --json), progress on
// stderr, and the mapping of sentinel errors to exit codes. It holds no
// domain logic; every command calls into an internal/ package and renders
// what comes back.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/benchforge/benchforge/internal/redact"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
)

// Exit codes. They are documented in `benchforge --help` (see exitHelp) and
// decided only by exitCode.
const (
	exitOK          = 0
	exitError       = 1 // anything not listed below
	exitUsage       = 2
	exitInput       = 3
	exitNotFound    = 4
	exitBudget      = 5
	exitUnavailable = 6
	exitUnsupported = 7
	exitFindings    = 8
	exitCanceled    = 130
)

var exitTable = []struct {
	code int
	err  error
	what string
}{
	{exitUsage, errs.ErrUsage, "bad command line (unknown flag, missing argument)"},
	{exitInput, errs.ErrInput, "malformed input: file, record, diff, date or commit"},
	{exitNotFound, errs.ErrNotFound, "repository, commit, file or model not found"},
	{exitBudget, errs.ErrBudget, "--max-cost budget reached; the run can be resumed"},
	{exitUnavailable, errs.ErrUnavailable, "external service failed or absent (model API, JDK, git)"},
	{exitUnsupported, errs.ErrUnsupported, "operation not supported by that provider or language"},
	{exitFindings, errs.ErrFindings, "audit run --fail-on-contaminated: the contaminated share exceeds the gate (outputs are complete)"},
	{exitCanceled, context.Canceled, "interrupted (Ctrl-C); finished records are kept"},
}

func exitHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	fmt.Fprintf(&b, "  %3d  success\n  %3d  other error\n", exitOK, exitError)
	for _, e := range exitTable {
		fmt.Fprintf(&b, "  %3d  %s\n", e.code, e.what)
	}
	return b.String()
}

// exitCode is the one place where errors become exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	for _, e := range exitTable {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return exitError
}

// app carries what every command needs: where to write and the context.
type app struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	// fresh are the output paths that did not exist when the command
	// started; a failed run removes those it left empty.
	fresh []string
}

// Run executes the benchforge command line args (args[0] is the program
// name) over the command tree cmds and returns the process exit code. With
// no cmds it runs Commands(), so a test need not repeat main's list.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, cmds ...Command) int {
	if len(cmds) == 0 {
		cmds = Commands()
	}
	// Nothing reaches the terminal or a log unfiltered: provider error
	// bodies can echo the key, exception messages can carry anything.
	stderr = redact.Writer(stderr)
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr}
	root := newRoot(a, cmds)
	if len(args) > 0 {
		args = args[1:]
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
			err = fmt.Errorf("%w: %w", context.Canceled, err)
		}
		msg := hintsInFlags(err, err.Error())
		if debug, _ := root.PersistentFlags().GetBool("debug"); !debug {
			msg = userMessage(msg)
		}
		fmt.Fprintf(stderr, "benchforge: %s\n", msg)
		removeEmpty(a.fresh)
	}
	return exitCode(err)
}

// optionFlags spell the options library hints name (errs.Option) as this
// command line's flags: the libraries name a setting by role, the CLI says
// which flag sets it.
var optionFlags = map[errs.Option]string{
	errs.OptRepos: "--repos", errs.OptMapping: "--mapping", errs.OptClone: "--clone", errs.OptCloneDir: "--clone-dir",
	errs.OptStrict: "--strict", errs.OptFormat: "--format",
}

func flagOf(o errs.Option) string {
	if f, ok := optionFlags[o]; ok {
		return f
	}
	return errs.Flag(o)
}

// hintsInFlags is msg, err's message, with the hints of err's chain
// rendered with this CLI's flag names.
func hintsInFlags(err error, msg string) string {
	for e := err; e != nil; {
		if h, ok := e.(*errs.HintError); ok {
			msg = strings.Replace(msg, h.Error(), h.Render(flagOf), 1)
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				msg = hintsInFlags(x, msg)
			}
			e = nil
		default:
			e = nil
		}
	}
	return msg
}

// internalName matches a Go function name at the start of a wrapped
// message segment ("gitrepo.ParseTime: ", "bench.Detect(FILE): "), with
// its argument list when it has one.
var internalName = regexp.MustCompile(`(^|: )[a-z][a-z0-9]*\.(?:\(\*?[A-Z]\w*\)\.)?[A-Z]\w*(?:\(([^()]*)\))?: `)

// userMessage is an error message in the user's words: internal function
// names are dropped from the wrapped chain, their arguments (a file, a
// sample id) kept. --debug prints the chain as it is.
func userMessage(msg string) string {
	for {
		out := internalName.ReplaceAllStringFunc(msg, func(m string) string {
			sub := internalName.FindStringSubmatch(m)
			if sub[2] != "" {
				return sub[1] + sub[2] + ": "
			}
			return sub[1]
		})
		if out == msg {
			return out
		}
		msg = out
	}
}

func newRoot(a *app, cmds []Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "benchforge",
		Short: "Audit LLM bug-fixing benchmarks for contamination; grow synthetic bug/fix corpora",
		Long: `benchforge audits LLM bug-fixing benchmarks for training-data contamination
(repository presence by black-box probing, patch presence at the training
cutoff) and grows provenance-tracked synthetic runtime-exception bug/fix
corpora from real seed pairs.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every command's numeric flags are checked against their allowed
		// ranges before it runs (no command has its own PersistentPreRunE).
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.fresh = freshOutputs(cmd)
			if err := checkRanges(cmd); err != nil {
				return err
			}
			return checkInputs(cmd)
		},
		// With Args set, cobra reports an unknown subcommand through it, so
		// `benchforge bogus` exits with exitUsage like any bad flag.
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	v := buildVersion()
	root.Version = v.Version
	if v.Revision != "" {
		root.Version += " (" + v.Revision + ")"
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w: %v (see '%s --help')", errs.ErrUsage, err, c.CommandPath())
	})
	for _, c := range cmds {
		root.AddCommand(c.build(a))
	}
	root.PersistentFlags().Bool("debug", false, "print errors with the full internal wrapping chain (function names included)")
	root.SetUsageTemplate(root.UsageTemplate() + "\n" + exitHelp())
	return root
}

// usageArgs wraps cobra's positional-argument validators so that a wrong
// argument count maps to exitUsage.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return fmt.Errorf("%w: %v (see '%s --help')", errs.ErrUsage, err, cmd.CommandPath())
		}
		return nil
	}
}

// isTerminal reports whether w is a terminal, for progress bars.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

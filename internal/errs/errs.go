// Package errs owns the sentinel errors that cross package boundaries and
// decide benchforge's exit code. Domain packages wrap one of these with %w
// ("op(args): cause"); only internal/cli inspects them, with errors.Is, in
// one place (cli.exitCode).
package errs

import "errors"

var (
	// ErrUsage: the command line itself is wrong (unknown flag, missing
	// argument, conflicting options).
	ErrUsage = errors.New("usage error")
	// ErrInput: an input file, record, diff, date or commit is malformed or
	// missing. The wrapping message names the file:line, id or commit.
	ErrInput = errors.New("invalid input")
	// ErrNotFound: a repository, commit, file or model that was asked for
	// does not exist.
	ErrNotFound = errors.New("not found")
	// ErrBudget: a --max-cost budget was reached; the run stopped cleanly and
	// can be resumed.
	ErrBudget = errors.New("budget exhausted")
	// ErrUnavailable: an external service (model provider, JDK, git) failed
	// or is absent after retries.
	ErrUnavailable = errors.New("service unavailable")
	// ErrUnsupported: the provider or language cannot do what was asked
	// (e.g. log-probabilities from a chat-only API).
	ErrUnsupported = errors.New("unsupported operation")
	// ErrFindings: the run succeeded and found what a gate asked to fail
	// on (audit run --fail-on-contaminated): a CI signal, not a fault.
	ErrFindings = errors.New("findings above the gate")
)

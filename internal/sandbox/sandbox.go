package sandbox

import (
	"io"
	"time"
)

// helperArg0 and helperEnv mark a re-exec of this binary as the limit
// helper (see helper_linux.go).
const (
	helperArg0 = "benchforge-sandbox-helper"
	helperEnv  = "BENCHFORGE_SANDBOX_HELPER"
)

// DefaultMaxOutput is the per-stream output cap when Spec.MaxOutput is 0.
const DefaultMaxOutput = 1 << 20

// MemoryLimit selects the rlimit that enforces Spec.MemoryBytes.
type MemoryLimit int

const (
	// LimitData caps RLIMIT_DATA (private writable memory): the default,
	// and the one that works for the JVM and the Go runtime.
	LimitData MemoryLimit = iota
	// LimitAS caps RLIMIT_AS (total virtual address space).
	LimitAS
)

func (m MemoryLimit) String() string {
	if m == LimitAS {
		return "RLIMIT_AS"
	}
	return "RLIMIT_DATA"
}

// Spec describes one untrusted command.
type Spec struct {
	// Argv is the program and its arguments; Argv[0] is looked up in the
	// child's PATH unless it contains a slash (then it is relative to Dir).
	Argv []string
	// Dir is the working directory; empty means the private temp dir.
	Dir string
	// Env holds KEY=VALUE entries passed on top of the scrubbed parent
	// environment; they are never scrubbed and override everything else,
	// including HOME and TMPDIR.
	Env []string
	// MinimalEnv passes only the locale, time zone, PATH and JAVA_HOME of
	// the parent (plus Env): for children that need nothing else of the
	// host, like the JVM workers, whose code under test can put whatever
	// it reads into a record.
	MinimalEnv bool
	// Timeout bounds the wall time; 0 means none (the context still applies).
	Timeout time.Duration
	// MemoryBytes caps memory with the rlimit chosen by MemoryLimit; 0 means
	// no cap.
	MemoryBytes int64
	MemoryLimit MemoryLimit
	// CPUTime caps the CPU time (RLIMIT_CPU, whole seconds, rounded up);
	// 0 means no cap. It catches spinning threads a wall-clock timeout
	// would only notice late.
	CPUTime time.Duration
	// NoNetwork runs the command in a fresh network namespace.
	NoNetwork bool
	// Writable lists directories the command may write besides its private
	// temp dir (a repository's work tree for its test suite); the rest of
	// the file system is read-only where the host allows a mount namespace.
	Writable []string
	// Stdin is the command's input; nil means /dev/null.
	Stdin io.Reader
	// MaxOutput is the number of bytes kept of each of stdout and stderr;
	// 0 means DefaultMaxOutput.
	MaxOutput int
	// TempDir, when set, is used as the private temp dir (HOME, TMPDIR)
	// instead of a fresh one, and is left in place for the caller to read
	// (e.g. a JUnit report) and remove.
	TempDir string
}

// Result is what became of the command.
type Result struct {
	// ExitCode is the exit status, or -1 when the command was killed by a
	// signal (see Signal).
	ExitCode int
	// Signal names the signal that ended the command ("killed"), if any.
	Signal string
	// Stdout and Stderr hold at most MaxOutput bytes each (head and tail).
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated report that bytes were omitted.
	StdoutTruncated, StderrTruncated bool
	// TimedOut: Spec.Timeout elapsed and the process group was killed.
	TimedOut bool
	// OOM: the command most likely failed for lack of memory (see the
	// package documentation for the heuristic).
	OOM bool
	// Duration is the wall time from start to exit.
	Duration time.Duration
	// NetworkIsolated reports that the command ran in its own network
	// namespace.
	NetworkIsolated bool
	// FilesIsolated reports that the command ran in its own mount and PID
	// namespaces: a read-only file system but for its private temp dir and
	// Spec.Writable, credential stores masked, a /proc showing only its own
	// processes, and every process it started killed with it.
	FilesIsolated bool
	// MemoryCapped reports that Spec.MemoryBytes was enforced.
	MemoryCapped bool
	// Notes records fallbacks taken (e.g. why isolation was unavailable).
	Notes []string
}

// Success reports a zero exit status without timeout.
func (r Result) Success() bool { return r.ExitCode == 0 && !r.TimedOut && r.Signal == "" }

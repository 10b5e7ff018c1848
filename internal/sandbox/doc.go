// Package sandbox owns running untrusted commands — repository test suites,
// generated programs — as child processes that cannot outlive their budget,
// exhaust the machine, reach the network or read the user's secrets
// (DESIGN.md: "Untrusted code runs in a child process with a timeout, memory
// cap, private temp dir, and no network where the OS allows").
//
// Every child benchforge starts on untrusted input — a repository's test
// suite (--test-fallback), the JVM workers and javac of synth verify, the
// harness-model runs — goes through this package: Run for a one-shot
// command, Start for a long-lived worker that talks over its stdin and a
// private reply pipe (fd 3). Both start the command through a re-exec
// helper (never a shell) and guarantee:
//
//   - Process group and PID namespace: the child leads its own process
//     group (Setpgid) and, where the host allows, is PID 1 of a new PID
//     namespace (CLONE_NEWPID), so when it exits or is killed the kernel
//     kills every process it started, including those that called setsid.
//     On timeout, on context cancellation and also after a normal exit the
//     whole group is sent SIGKILL as well (the fallback without a PID
//     namespace). The group is killed while the leader is still an unreaped
//     zombie (waitid WNOWAIT), so its id cannot have been reused.
//   - Read-only file system: where the host allows a mount namespace
//     (CLONE_NEWNS; as root directly, otherwise inside a user namespace),
//     the helper remounts every mount read-only except the private temp dir
//     and Spec.Writable, hides the user's credential stores (~/.ssh, ~/.aws,
//     ~/.config/gcloud, ~/.netrc, ... under $HOME and /root: an empty
//     read-only tmpfs over a directory, /dev/null over a file), mounts a
//     minimal /dev (null, zero, full, random, urandom, tty, a private
//     /dev/shm) and a /proc that shows only the child's own processes (so
//     it cannot read the parent's /proc/<pid>/environ). It then drops every
//     capability (bounding, ambient, effective sets; no_new_privs), so even
//     a child running as root cannot remount, unmask or override file
//     permissions. When the kernel refuses the namespaces the command runs
//     on the host's file system and processes, Result.FilesIsolated is
//     false and Result.Notes says why; callers record it.
//   - CPU time: Spec.CPUTime sets RLIMIT_CPU.
//   - Temp dirs that outlive nobody: private dirs come from MkdirTemp,
//     which holds a flock on "<dir>.lock" beside the dir while it is in use;
//     the next MkdirTemp of any benchforge process removes every
//     benchforge-* dir whose lock is free (its owner died, even by
//     SIGKILL).
//   - Memory cap: an rlimit set by a tiny re-exec helper (this package's
//     init recognises its own binary started as "benchforge-sandbox-helper",
//     calls setrlimit and execs the target), so no external binary is needed.
//     RLIMIT_DATA is the default (LimitData): since Linux 4.7 it counts every
//     private writable mapping (brk and anonymous mmap), which is what a heap
//     grows by, but not address space merely reserved PROT_NONE. That matters
//     for the JVM and the Go runtime, which reserve far more address space
//     than they use: measured on this machine with util-linux prlimit,
//     `java -Xmx256m` fails to start under RLIMIT_AS=512 MiB ("Could not
//     reserve enough space for 262144KB object heap") but runs under
//     RLIMIT_DATA=512 MiB, where a Java allocation beyond the heap gets
//     OutOfMemoryError and Python's bytearray(800 MiB) gets MemoryError.
//     LimitAS (RLIMIT_AS) is available for programs that do not reserve.
//     cgroup v2 was not chosen: here the memory controller is mounted v1 only
//     and the unified hierarchy has no memory controller to delegate.
//   - Private temp dir: HOME, TMPDIR, TMP and TEMP point at a fresh directory
//     that is removed afterwards (unless the caller supplies Spec.TempDir);
//     it is the only place the child can write besides Spec.Writable.
//   - No network: with Spec.NoNetwork the child starts in a new network
//     namespace (CLONE_NEWNET; as root directly, otherwise inside a new user
//     namespace when unprivileged user namespaces are allowed). The helper
//     brings the namespace's loopback up so tests that serve on 127.0.0.1
//     still work, while nothing outside is reachable — including listeners on
//     the parent's loopback. When the kernel refuses, Run falls back to the
//     parent's network, clears Result.NetworkIsolated and says why in
//     Result.Notes.
//   - Scrubbed environment: the parent's environment minus anything that
//     looks like a credential (*_API_KEY, *_TOKEN, *SECRET*, *PASSWORD*,
//     AWS_*, OPENAI_*, ANTHROPIC_*, GITHUB_*, SSH_AUTH_SOCK, ...; see
//     IsSecretEnv) and minus GIT_* (so a repository's tests cannot be pointed
//     at another repository); with Spec.MinimalEnv only the locale, TZ, PATH
//     and JAVA_HOME; entries in Spec.Env are always passed.
//   - Capped output: at most Spec.MaxOutput bytes of each stream are kept,
//     the head and the tail, with a marker saying how much was omitted.
//
// A non-zero exit, a timeout or a memory failure is a Result, not an error;
// errors are reserved for commands that cannot be started (wrapping
// errs.ErrUsage, errs.ErrNotFound or errs.ErrUnavailable) and for context
// cancellation.
//
// OOM is a heuristic: it is set when a memory cap was in force and the
// command either died of a SIGKILL nobody in this package sent (the kernel
// OOM killer) or failed with one of the allocation-failure messages of
// common runtimes (Python MemoryError, Java OutOfMemoryError, Go "out of
// memory", C++ std::bad_alloc, "Cannot allocate memory").
package sandbox

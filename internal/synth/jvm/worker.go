package jvm

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/redact"
	"github.com/benchforge/benchforge/internal/sandbox"
)

//go:embed java/BenchforgeWorker.java
var javaFS embed.FS

const workerClass = "BenchforgeWorker"

// Outcome is what one call of a method under test did.
type Outcome struct {
	// Kind is returned | threw | timeout | exited | arg_error |
	// harness_error.
	Kind string `json:"kind"`
	// Exception is the thrown class ("java.lang.NullPointerException");
	// Supers its superclasses, nearest first.
	Exception string   `json:"exception,omitempty"`
	Supers    []string `json:"-"`
	// Line is the line, relative to the method's first line (1-based), of
	// the first stack frame inside the method under test; 0 when the
	// exception did not pass through it.
	Line int `json:"line,omitempty"`
	// Frame is the top stack frame "class.method:line".
	Frame   string `json:"frame,omitempty"`
	Message string `json:"message,omitempty"`
	// Arg is, for an arg_error raised while an argument (or the
	// receiver, the last) was built, that argument's position, 1-based;
	// 0 otherwise. Not recorded.
	Arg int `json:"-"`
}

// prepareWorker compiles the embedded worker once per (source, JDK) into
// cacheDir and returns the directory holding its class file.
func prepareWorker(ctx context.Context, jdk JDK, cacheDir string) (string, error) {
	src, err := javaFS.ReadFile("java/" + workerClass + ".java")
	if err != nil {
		return "", fmt.Errorf("prepare JVM worker: %w", err)
	}
	h := sha256.New()
	h.Write(src)
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s", jdk.Javac, jdk.Java, jdk.Version)
	dir := filepath.Join(cacheDir, "worker-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, workerClass+".class")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("prepare JVM worker in %s: %w", cacheDir, err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".worker-tmp")
	if err != nil {
		return "", fmt.Errorf("prepare JVM worker in %s: %w", cacheDir, err)
	}
	defer os.RemoveAll(tmp)
	if err := compileWorker(ctx, jdk, src, tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, workerClass+".class")); serr == nil {
			return dir, nil // a concurrent run won the race
		}
		return "", fmt.Errorf("prepare JVM worker: %w", err)
	}
	return dir, nil
}

// compileWorker compiles the worker's source src in tmp, leaving only
// its class files there.
func compileWorker(ctx context.Context, jdk JDK, src []byte, tmp string) error {
	srcPath := filepath.Join(tmp, workerClass+".java")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		return fmt.Errorf("prepare JVM worker: %w", err)
	}
	// The worker is our own source, but javac still runs in the sandbox:
	// every child does.
	res, err := sandbox.Run(ctx, sandbox.Spec{Argv: []string{jdk.Javac, "-nowarn", "-Xlint:none", "-d", tmp, srcPath},
		Dir: tmp, Writable: []string{tmp}, Timeout: 5 * time.Minute, NoNetwork: true})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("prepare JVM worker: %w", ctx.Err())
		}
		return fmt.Errorf("prepare JVM worker: %w", err)
	}
	if !res.Success() {
		return fmt.Errorf("prepare JVM worker: %w: %s failed (exit %d): %s", errs.ErrUnavailable, jdk.Javac, res.ExitCode,
			strings.TrimSpace(string(res.Stderr)+string(res.Stdout)))
	}
	os.Remove(srcPath)
	return nil
}

// readLine waits for the next line of p's stdout, the deadline, or ctx.
// ok is false at EOF (the process died).
func readLine(ctx context.Context, p *proc, d time.Duration) (line string, ok bool, err error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l, ok := <-p.lines:
		return l, ok, nil
	case <-t.C:
		return "", true, errDeadline
	case <-ctx.Done():
		return "", true, ctx.Err()
	}
}

var errDeadline = fmt.Errorf("deadline")

// compiler is a warm in-process javac (the worker's compile mode).
type compiler struct {
	p *proc
}

// startCompiler starts the compile server in tmp; it may write only out
// (classes and diagnostics) besides.
func startCompiler(ctx context.Context, jdk JDK, workerDir, tmp, out string) (*compiler, error) {
	args := append(compileServerFlags(), "-XX:-UsePerfData", "-XX:+DisplayVMOutputToStderr",
		"-Djava.io.tmpdir="+tmp, "-Duser.home="+tmp, "-cp", workerDir, workerClass, "compile")
	p, err := startProc(ctx, tmp, []string{out}, compilerMemory, jdk.Java, args...)
	if err != nil {
		return nil, fmt.Errorf("start javac server: %w: %v", errs.ErrUnavailable, err)
	}
	l, ok, err := readLine(ctx, p, 2*time.Minute)
	if err != nil || !ok || l != "READY" {
		p.kill()
		if err == nil {
			err = fmt.Errorf("got %q", l)
		}
		return nil, fmt.Errorf("start javac server (%s): %w: %v; is %s a full JDK rather than a JRE?", jdk.Java, errs.ErrUnavailable, err, jdk.Java)
	}
	return &compiler{p: p}, nil
}

// compile runs javac with args and returns its exit code and diagnostics.
func (c *compiler) compile(ctx context.Context, diagFile string, args []string) (int, string, error) {
	for _, a := range args {
		if strings.ContainsAny(a, "\t\n") {
			return 0, "", fmt.Errorf("javac argument %q contains a tab or newline", a)
		}
	}
	n := nonce()
	if err := c.p.send("K\t" + n + "\t" + diagFile + "\t" + strings.Join(args, "\t")); err != nil {
		return 0, "", fmt.Errorf("javac server: %w: %v", errs.ErrUnavailable, err)
	}
	l, ok, err := readLine(ctx, c.p, 10*time.Minute)
	if err != nil {
		return 0, "", fmt.Errorf("javac server: %w", err)
	}
	rest, found := strings.CutPrefix(l, "K\t"+n+"\t")
	if !ok || !found {
		return 0, "", fmt.Errorf("javac server: %w: died or answered %q", errs.ErrUnavailable, l)
	}
	rc, _ := strconv.Atoi(rest)
	diag, err := os.ReadFile(diagFile)
	if err != nil {
		return 0, "", fmt.Errorf("javac server: %w", err)
	}
	return rc, string(diag), nil
}

func (c *compiler) close() { c.p.kill() }

// worker is the long-lived JVM that runs calls; it is restarted after a
// timeout or an exit.
type worker struct {
	jdk       JDK
	classpath string
	dir       string
	heap      string
	p         *proc
	sm        bool
	net       string
	files     string
	notes     []string
	restarts  int
}

func (w *worker) start(ctx context.Context) error {
	args := []string{"-Xmx" + w.heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-XX:-UsePerfData", "-XX:+DisplayVMOutputToStderr", "-Djava.io.tmpdir=" + w.dir, "-Duser.home=" + w.dir}
	args = append(args, w.jdk.securityManagerFlags()...)
	args = append(args, "-cp", w.classpath, workerClass, "run")
	p, err := startProc(ctx, w.dir, nil, workerMemory, w.jdk.Java, args...)
	if err != nil {
		return fmt.Errorf("start JVM worker: %w", err)
	}
	l, ok, err := readLine(ctx, p, 2*time.Minute)
	if err != nil || !ok || !strings.HasPrefix(l, "READY\t") {
		p.kill()
		if err == nil {
			err = fmt.Errorf("got %q", l)
		}
		return fmt.Errorf("start JVM worker (%s): %w: %v", w.jdk.Java, errs.ErrUnavailable, err)
	}
	w.p, w.sm, w.net, w.files, w.notes = p, l == "READY\tsm", p.net, p.files, p.notes
	return nil
}

func (w *worker) stop() {
	if w.p != nil {
		w.p.kill()
		w.p = nil
	}
}

// call runs cls.method on argument vector idx of argsCls. loader, when
// not empty, is the class path of the pair side's own child-first loader
// (project mode: the patched class under its real name).
func (w *worker) call(ctx context.Context, cls, method, argsCls, vector, loader string, timeout time.Duration) (Outcome, error) {
	if strings.ContainsAny(loader, "\t\n") {
		return Outcome{}, fmt.Errorf("worker call: class path %q contains a tab or newline", loader)
	}
	if w.p == nil {
		if err := w.start(ctx); err != nil {
			return Outcome{}, err
		}
		w.restarts++
	}
	n := nonce()
	req := fmt.Sprintf("C\t%s\t%s\t%s\t%s\t%s\t%d", n, cls, method, argsCls, vector, timeout.Milliseconds())
	if loader != "" {
		req += "\t" + loader
	}
	if err := w.p.send(req); err != nil {
		w.stop() // died between calls
		return Outcome{Kind: "exited", Message: "worker gone before the call"}, nil
	}
	l, ended, err := w.replyLine(ctx, timeout)
	if err != nil || ended.Kind != "" {
		return ended, err
	}
	return w.reply(l, n), nil
}

// replyLine waits for the call's reply line. The worker enforces the
// timeout itself; the grace covers a JVM too busy (GC thrash) to answer.
// When no line comes the JVM is stopped and ended is the call's outcome
// (its Kind set).
func (w *worker) replyLine(ctx context.Context, timeout time.Duration) (line string, ended Outcome, err error) {
	l, ok, err := readLine(ctx, w.p, timeout+5*time.Second)
	switch {
	case err == errDeadline:
		w.stop()
		return "", Outcome{Kind: "timeout", Message: "worker unresponsive; killed"}, nil
	case err != nil:
		w.stop()
		return "", Outcome{}, err
	case !ok:
		w.stop()
		return "", Outcome{Kind: "exited", Message: "the JVM exited during the call"}, nil
	}
	return l, Outcome{}, nil
}

// reply is the outcome of the call with nonce n from its reply line l;
// the JVM is stopped when the line is forged or malformed, or the call
// left it unfit for more.
func (w *worker) reply(l, n string) Outcome {
	o, dirty, perr := parseReply(l, n)
	switch {
	case perr == errForged:
		// Something wrote to the reply channel without this call's nonce:
		// the code under test. Nothing more from this JVM is trusted.
		w.stop()
		return Outcome{Kind: KindTampered, Message: "the reply channel carried a line without this call's nonce"}
	case perr != nil:
		w.stop()
		return Outcome{Kind: "harness_error", Message: perr.Error()}
	}
	if o.Kind == "timeout" || dirty {
		// After a timeout the worker halts; with threads of the code under
		// test still alive it would run them during later calls.
		w.stop()
	}
	return o
}

// KindTampered is the outcome of a call whose reply was forged.
const KindTampered = "tampered"

var errForged = errors.New("forged reply")

// parseReply decodes "R\tnonce\tkind\texc\tsupers\tline\tframe\tdirty\tmsg";
// dirty reports threads of the code under test still alive after the call.
func parseReply(l, nonce string) (o Outcome, dirty bool, err error) {
	rest, ok := strings.CutPrefix(l, "R\t"+nonce+"\t")
	if !ok {
		return o, false, errForged
	}
	f := strings.SplitN(rest, "\t", 7)
	if len(f) != 7 {
		return o, false, fmt.Errorf("malformed worker reply %q", l)
	}
	// The message is the code under test's to choose: it may carry
	// anything it could read.
	o = Outcome{Kind: f[0], Exception: f[1], Frame: redact.String(f[4]), Message: redact.String(f[6])}
	if f[2] != "" {
		o.Supers = strings.Split(f[2], ",")
	}
	n, err := strconv.Atoi(f[3])
	if err != nil {
		return Outcome{}, false, fmt.Errorf("malformed worker reply %q: line %q", l, f[3])
	}
	o.Line = n
	if o.Kind == "arg_error" {
		o.Arg, o.Line = n, 0 // the argument that failed to build, not a line
	}
	return o, f[5] == "1", nil
}

package jvm

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
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
	srcPath := filepath.Join(tmp, workerClass+".java")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		return "", fmt.Errorf("prepare JVM worker: %w", err)
	}
	out, err := exec.CommandContext(ctx, jdk.Javac, "-nowarn", "-Xlint:none", "-d", tmp, srcPath).CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("prepare JVM worker: %w", ctx.Err())
		}
		return "", fmt.Errorf("prepare JVM worker: %w: %s failed: %v: %s", errs.ErrUnavailable, jdk.Javac, err, strings.TrimSpace(string(out)))
	}
	os.Remove(srcPath)
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, workerClass+".class")); serr == nil {
			return dir, nil // a concurrent run won the race
		}
		return "", fmt.Errorf("prepare JVM worker: %w", err)
	}
	return dir, nil
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

func startCompiler(ctx context.Context, jdk JDK, workerDir, workDir string) (*compiler, error) {
	p, err := startProc(workDir, nil, jdk.Java, append(compileServerFlags(),
		"-Djava.io.tmpdir="+workDir, "-cp", workerDir, workerClass, "compile")...)
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
	if _, err := fmt.Fprintf(c.p.stdin, "K\t%s\t%s\n", diagFile, strings.Join(args, "\t")); err != nil {
		return 0, "", fmt.Errorf("javac server: %w: %v", errs.ErrUnavailable, err)
	}
	l, ok, err := readLine(ctx, c.p, 10*time.Minute)
	if err != nil {
		return 0, "", fmt.Errorf("javac server: %w", err)
	}
	if !ok || !strings.HasPrefix(l, "K\t") {
		return 0, "", fmt.Errorf("javac server: %w: died or answered %q", errs.ErrUnavailable, l)
	}
	rc, _ := strconv.Atoi(l[2:])
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
	restarts  int
}

func (w *worker) start(ctx context.Context) error {
	args := []string{"-Xmx" + w.heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-XX:-UsePerfData", "-Djava.io.tmpdir=" + w.dir}
	args = append(args, w.jdk.securityManagerFlags()...)
	args = append(args, "-cp", w.classpath, workerClass, "run")
	p, err := startProc(w.dir, nil, w.jdk.Java, args...)
	if err != nil {
		return fmt.Errorf("start JVM worker: %w: %v", errs.ErrUnavailable, err)
	}
	l, ok, err := readLine(ctx, p, 2*time.Minute)
	if err != nil || !ok || !strings.HasPrefix(l, "READY\t") {
		p.kill()
		if err == nil {
			err = fmt.Errorf("got %q", l)
		}
		return fmt.Errorf("start JVM worker (%s): %w: %v", w.jdk.Java, errs.ErrUnavailable, err)
	}
	w.p, w.sm, w.net = p, l == "READY\tsm", p.net
	return nil
}

func (w *worker) stop() {
	if w.p != nil {
		w.p.kill()
		w.p = nil
	}
}

// call runs cls.method on argument vector idx of argsCls.
func (w *worker) call(ctx context.Context, cls, method, argsCls, vector string, timeout time.Duration) (Outcome, error) {
	if w.p == nil {
		if err := w.start(ctx); err != nil {
			return Outcome{}, err
		}
		w.restarts++
	}
	if _, err := fmt.Fprintf(w.p.stdin, "C\t%s\t%s\t%s\t%s\t%d\n", cls, method, argsCls, vector, timeout.Milliseconds()); err != nil {
		w.stop() // died between calls
		return Outcome{Kind: "exited", Message: "worker gone before the call"}, nil
	}
	// The worker enforces the timeout itself; the grace covers a JVM too
	// busy (GC thrash) to answer.
	l, ok, err := readLine(ctx, w.p, timeout+5*time.Second)
	switch {
	case err == errDeadline:
		w.stop()
		return Outcome{Kind: "timeout", Message: "worker unresponsive; killed"}, nil
	case err != nil:
		w.stop()
		return Outcome{}, err
	case !ok:
		w.stop()
		return Outcome{Kind: "exited", Message: "the JVM exited during the call"}, nil
	}
	o, perr := parseReply(l)
	if perr != nil {
		w.stop()
		return Outcome{Kind: "harness_error", Message: perr.Error()}, nil
	}
	if o.Kind == "timeout" {
		w.stop()
	}
	return o, nil
}

// parseReply decodes "R\tkind\texc\tsupers\tline\tframe\tmsg".
func parseReply(l string) (Outcome, error) {
	f := strings.SplitN(l, "\t", 7)
	if len(f) != 7 || f[0] != "R" {
		return Outcome{}, fmt.Errorf("malformed worker reply %q", l)
	}
	o := Outcome{Kind: f[1], Exception: f[2], Frame: f[5], Message: f[6]}
	if f[3] != "" {
		o.Supers = strings.Split(f[3], ",")
	}
	n, err := strconv.Atoi(f[4])
	if err != nil {
		return Outcome{}, fmt.Errorf("malformed worker reply %q: line %q", l, f[4])
	}
	o.Line = n
	return o, nil
}

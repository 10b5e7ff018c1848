package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// catFile is one `git cat-file --batch` child. Requests are lines naming an
// object ("<rev>", "<commit>:<path>"); each answer is a header
// "<oid> <type> <size>" followed by size bytes and a newline, or
// "<name> missing" / "<name> ambiguous".
type catFile struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

// object is one answer from cat-file. Missing and Ambiguous answers carry
// no data.
type object struct {
	Oid       string
	Type      string
	Data      []byte
	Missing   bool
	Ambiguous bool
}

func startCatFile(gitDir string) (*catFile, error) {
	// Long-lived: kill (on cancellation of a batch, or close) ends it.
	cmd := guard(exec.CommandContext(context.Background(), "git", "--git-dir="+gitDir, "cat-file", "--batch"))
	cmd.Env = gitEnv()
	c := &catFile{cmd: cmd}
	cmd.Stderr = &limitedBuffer{buf: &c.stderr, max: 4096}
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("git not found on PATH; install git: %w", errs.ErrUnavailable)
		}
		return nil, err
	}
	c.out = bufio.NewReaderSize(stdout, 64<<10)
	return c, nil
}

// kill stops the child at once; pending reads and writes fail.
func (c *catFile) kill() { _ = killGroup(c.cmd) }

// close ends the child: closing stdin makes cat-file exit; Kill covers a
// child stuck writing.
func (c *catFile) close() {
	_ = c.stdin.Close()
	c.kill()
	_ = c.cmd.Wait()
}

// readAnswer reads one answer for the request spec.
func (c *catFile) readAnswer(spec string) (object, error) {
	line, err := c.out.ReadString('\n')
	if err != nil {
		return object{}, fmt.Errorf("cat-file: reading answer for %q: %w (%s)", spec, err, strings.TrimSpace(c.stderr.String()))
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case strings.HasSuffix(line, " missing"):
		return object{Missing: true}, nil
	case strings.HasSuffix(line, " ambiguous"):
		return object{Ambiguous: true}, nil
	}
	oid, typ, size, err := parseBatchHeader(line)
	if err != nil {
		return object{}, fmt.Errorf("cat-file: answer for %q: %w", spec, err)
	}
	data := make([]byte, size+1) // content plus the trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return object{}, fmt.Errorf("cat-file: reading %d bytes of %s: %w", size, oid, err)
	}
	if data[size] != '\n' {
		return object{}, fmt.Errorf("cat-file: object %s not newline-terminated", oid)
	}
	return object{Oid: oid, Type: typ, Data: data[:size]}, nil
}

// parseBatchHeader parses "<oid> <type> <size>".
func parseBatchHeader(line string) (oid, typ string, size int, err error) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return "", "", 0, fmt.Errorf("malformed header %q", line)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 {
		return "", "", 0, fmt.Errorf("malformed size in header %q", line)
	}
	return f[0], f[1], n, nil
}

// batch sends specs to a cat-file child and returns one answer per spec,
// in order. Requests are written by a separate goroutine while answers are
// read, so hundreds of requests cost one round trip, not hundreds. A
// cancelled ctx kills the child; a later call starts a new one.
func (r *Repo) batch(ctx context.Context, specs []string) ([]object, error) {
	if err := r.checkSpecs(specs); err != nil {
		return nil, err
	}
	c, err := r.acquire(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, c.kill)
	out, rerr, wErr := c.exchange(specs)
	cancelled := !stop()
	if cancelled || rerr != nil || wErr != nil {
		// The child's state is unknown: drop it; a later call starts anew.
		r.release(c, false)
		if cancelled {
			return nil, fmt.Errorf("gitrepo: reading objects from %s: %w", r.path, ctx.Err())
		}
		if rerr == nil {
			rerr = wErr
		}
		return nil, fmt.Errorf("gitrepo: reading objects from %s: %v: %w", r.path, rerr, errs.ErrUnavailable)
	}
	r.release(c, true)
	return out, nil
}

// acquire returns a cat-file child for one batch: an idle one, else a new
// one while fewer than maxCatFiles run, else the next one released.
func (r *Repo) acquire(ctx context.Context) (*catFile, error) {
	h := r.cat
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		<-h.slots
		return nil, fmt.Errorf("gitrepo: %s is closed: %w", r.path, errs.ErrUsage)
	}
	if err := ctx.Err(); err != nil {
		<-h.slots
		return nil, err
	}
	if n := len(h.idle); n > 0 {
		c := h.idle[n-1]
		h.idle = h.idle[:n-1]
		return c, nil
	}
	c, err := startCatFile(h.gitDir)
	if err != nil {
		<-h.slots
		return nil, fmt.Errorf("gitrepo: starting git cat-file in %s: %w", r.path, err)
	}
	return c, nil
}

// release hands c back after a batch: kept for the next one when ok and
// the repository is open, else stopped.
func (r *Repo) release(c *catFile, ok bool) {
	h := r.cat
	h.mu.Lock()
	if ok && !h.closed {
		h.idle = append(h.idle, c)
	} else {
		c.close()
	}
	h.mu.Unlock()
	<-h.slots
}

// checkSpecs rejects object names that would break the line protocol.
func (r *Repo) checkSpecs(specs []string) error {
	for _, s := range specs {
		if strings.ContainsAny(s, "\n\x00") {
			return fmt.Errorf("gitrepo: object name %q in %s contains a newline or NUL: %w", s, r.path, errs.ErrInput)
		}
	}
	return nil
}

// exchange writes specs to the child from a goroutine while reading their
// answers. It returns the answers read, the first read error and the
// writer's error; on a read error it kills the child to unblock the writer.
func (c *catFile) exchange(specs []string) (out []object, rerr, werr error) {
	wdone := make(chan error, 1)
	go func() { wdone <- c.writeRequests(specs) }()
	out = make([]object, 0, len(specs))
	for _, s := range specs {
		o, err := c.readAnswer(s)
		if err != nil {
			rerr = err
			break
		}
		out = append(out, o)
	}
	if rerr != nil {
		c.kill() // unblock the writer
	}
	return out, rerr, <-wdone
}

// writeRequests writes one request line per spec, all in one write (most
// exchanges are a spec or two: a buffer sized for many would be garbage).
func (c *catFile) writeRequests(specs []string) error {
	n := 0
	for _, s := range specs {
		n += len(s) + 1
	}
	buf := make([]byte, 0, n)
	for _, s := range specs {
		buf = append(append(buf, s...), '\n')
	}
	_, err := c.stdin.Write(buf)
	return err
}

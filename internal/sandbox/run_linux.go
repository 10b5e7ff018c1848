//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/benchforge/benchforge/internal/errs"
)

// streamGrace is how long Run waits for the output pipes to close after
// the process group is dead; only a process that escaped the group
// (setsid) can hold them open longer.
const streamGrace = 2 * time.Second

// launched is a started sandboxed command.
type launched struct {
	cmd        *exec.Cmd
	pid        int
	name       string
	release    func() // removes the private dir (when the sandbox made it)
	outBuf     *capBuffer
	errBuf     *capBuffer
	outDone    chan struct{}
	errDone    chan struct{}
	rOut, rErr *os.File
	start      time.Time
	res        Result // isolation flags and notes
	stdin      io.WriteCloser
	reply      *os.File
}

// isolation is one set of namespaces tried at start.
type isolation struct{ net, fs bool }

// launch starts spec.Argv; with pipes it also gives the command a stdin
// pipe and a reply pipe (fd 3). It tries the full isolation first and
// drops, with a note, whatever the kernel refuses.
func launch(spec Spec, pipes bool) (*launched, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, fmt.Errorf("sandbox: empty command: %w", errs.ErrUsage)
	}
	name := spec.Argv[0]
	if spec.MemoryBytes < 0 || spec.Timeout < 0 || spec.CPUTime < 0 {
		return nil, fmt.Errorf("sandbox (%s): negative memory cap, timeout or CPU time: %w", name, errs.ErrUsage)
	}
	l := &launched{name: name, release: func() {}}
	private := spec.TempDir
	if private == "" {
		d, release, err := MkdirTemp("benchforge-sandbox-*")
		if err != nil {
			return nil, fmt.Errorf("sandbox (%s): %w", name, err)
		}
		private, l.release = d, release
	}
	fail := func(err error) (*launched, error) { l.release(); return nil, err }
	dir := spec.Dir
	if dir == "" {
		dir = private
	}
	parent := os.Environ()
	if spec.MinimalEnv {
		parent = minimal(parent)
	}
	env := Environ(parent, spec.Env, private)
	path, ok := lookPath(name, env, dir)
	if !ok {
		return fail(fmt.Errorf("sandbox: %s: no such executable in dir %s or PATH %q; install it or give its absolute path: %w",
			name, dir, getenv(env, "PATH"), errs.ErrNotFound))
	}
	writable := writableDirs(private, spec.Writable)
	c, err := l.openPipes(pipes)
	if err != nil {
		return fail(fmt.Errorf("sandbox (%s): %v: %w", name, err, errs.ErrUnavailable))
	}
	try, err := l.startIsolated(spec, path, dir, env, writable, c, pipes)
	c.close()
	if err != nil {
		l.closePipes()
		return fail(fmt.Errorf("sandbox: start %s: %v: %w", name, err, errs.ErrUnavailable))
	}
	l.started(spec, try)
	return l, nil
}

// writableDirs is the private dir and the absolute forms of the extra
// writable paths (those that have one).
func writableDirs(private string, extra []string) []string {
	writable := []string{private}
	for _, w := range extra {
		if a, err := filepath.Abs(w); err == nil {
			writable = append(writable, a)
		}
	}
	return writable
}

// childPipes are the pipe ends the command inherits; the parent closes
// them once the command started or could not be started.
type childPipes struct {
	stdout, stderr *os.File
	stdin, reply   *os.File // only with pipes
	opened         []*os.File
}

func (c *childPipes) close() {
	for _, f := range c.opened {
		f.Close()
	}
}

// openPipes opens the output pipes and, with pipes, the stdin and reply
// pipes, keeping the parent's ends in l.
func (l *launched) openPipes(pipes bool) (*childPipes, error) {
	c := &childPipes{}
	var err error
	if l.rOut, c.stdout, err = os.Pipe(); err != nil {
		return nil, err
	}
	if l.rErr, c.stderr, err = os.Pipe(); err != nil {
		l.rOut.Close()
		c.stdout.Close()
		return nil, err
	}
	c.opened = append(c.opened, c.stdout, c.stderr)
	if !pipes {
		return c, nil
	}
	// On a failure here every end opened so far is closed, the parent's
	// as well as the child's.
	parent := []*os.File{l.rOut, l.rErr}
	var wIn *os.File
	if c.stdin, wIn, err = os.Pipe(); err == nil {
		l.stdin = wIn
		parent = append(parent, wIn)
		c.opened = append(c.opened, c.stdin)
		if l.reply, c.reply, err = os.Pipe(); err == nil {
			c.opened = append(c.opened, c.reply)
		}
	}
	if err != nil {
		c.close()
		for _, f := range parent {
			f.Close()
		}
		l.stdin, l.reply = nil, nil
		return nil, err
	}
	return c, nil
}

// closePipes closes the parent's pipe ends after a failed start.
func (l *launched) closePipes() {
	l.rOut.Close()
	l.rErr.Close()
	if l.stdin != nil {
		l.stdin.Close()
		l.reply.Close()
	}
}

// startIsolated starts the command with file-system, process and (when
// spec asks) network isolation, dropping with a note each kind the kernel
// refuses, and returns the isolation it got.
func (l *launched) startIsolated(spec Spec, path, dir string, env, writable []string, c *childPipes, pipes bool) (isolation, error) {
	try := isolation{net: spec.NoNetwork, fs: true}
	for {
		cmd := command(spec, path, dir, env, writable, try)
		cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
		if pipes {
			cmd.Stdin = c.stdin
			cmd.ExtraFiles = []*os.File{c.reply}
		} else if spec.Stdin != nil {
			cmd.Stdin = spec.Stdin
		}
		err := cmd.Start()
		if err == nil {
			l.cmd = cmd
			return try, nil
		}
		switch {
		case try.fs && isNamespaceErr(err):
			l.res.Notes = append(l.res.Notes, fmt.Sprintf("file-system and process isolation unavailable (%v): the command sees the host's files and processes", err))
			try.fs = false
		case try.net && isNamespaceErr(err):
			l.res.Notes = append(l.res.Notes, fmt.Sprintf("network isolation unavailable (%v); ran with the host network", err))
			try.net = false
		default:
			return try, err
		}
	}
}

// started records the running command's isolation and starts draining
// its output.
func (l *launched) started(spec Spec, try isolation) {
	l.start = time.Now()
	l.pid = l.cmd.Process.Pid
	l.res.NetworkIsolated = try.net
	l.res.FilesIsolated = try.fs
	l.res.MemoryCapped = spec.MemoryBytes > 0
	maxOut := spec.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	l.outBuf, l.errBuf = newCapBuffer(maxOut), newCapBuffer(maxOut)
	l.outDone, l.errDone = make(chan struct{}), make(chan struct{})
	go drain(l.rOut, l.outBuf, l.outDone)
	go drain(l.rErr, l.errBuf, l.errDone)
}

// kill ends everything the command started: the PID namespace's init is
// the command itself, and its death takes every process of the namespace
// with it (setsid does not leave a PID namespace); without a PID
// namespace, the process group.
func (l *launched) kill() {
	_ = syscall.Kill(-l.pid, syscall.SIGKILL)
	_ = syscall.Kill(l.pid, syscall.SIGKILL)
}

// finish reaps the command (after waitNoReap and the kills) and fills in
// the result.
func (l *launched) finish(killedByUs bool) Result {
	res := l.res
	res.Duration = time.Since(l.start)
	// The leader is an unreaped zombie, so pid is still this group's id:
	// kill whatever the command left running.
	l.kill()
	waitErr := l.cmd.Wait()
	grace := time.NewTimer(streamGrace)
	for _, done := range []chan struct{}{l.outDone, l.errDone} {
		select {
		case <-done:
		case <-grace.C:
			res.Notes = append(res.Notes, "output pipes held open by a process that left the process group; output closed")
			l.rOut.Close()
			l.rErr.Close()
			<-done
		}
	}
	grace.Stop()
	l.rOut.Close()
	l.rErr.Close()
	res.Stdout, res.StdoutTruncated = l.outBuf.bytes()
	res.Stderr, res.StderrTruncated = l.errBuf.bytes()
	if ws, ok := l.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode, res.Signal = -1, ws.Signal().String()
	} else {
		res.ExitCode = l.cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		res.Notes = append(res.Notes, "wait: "+waitErr.Error())
	}
	if res.MemoryCapped && !killedByUs {
		res.OOM = res.Signal == syscall.SIGKILL.String() ||
			(res.ExitCode != 0 && (looksOOM(res.Stderr) || looksOOM(res.Stdout)))
	}
	l.release()
	return res
}

// Run runs spec.Argv as an untrusted command; see the package documentation
// for what it guarantees. The error is nil whenever the command ran, however
// it ended; it is non-nil when it could not be started or ctx was cancelled
// (the Result then describes what had happened so far).
func Run(ctx context.Context, spec Spec) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	l, err := launch(spec, false)
	if err != nil {
		return Result{}, err
	}
	exited := make(chan struct{})
	go func() { waitNoReap(l.pid); close(exited) }()
	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	killedByUs, timedOut := false, false
	var ctxErr error
	select {
	case <-exited:
	case <-timeout:
		timedOut, killedByUs = true, true
		l.kill()
		<-exited
	case <-ctx.Done():
		ctxErr, killedByUs = ctx.Err(), true
		l.kill()
		<-exited
	}
	res := l.finish(killedByUs)
	res.TimedOut = timedOut
	if ctxErr != nil {
		return res, fmt.Errorf("sandbox (%s): %w", l.name, ctxErr)
	}
	return res, nil
}

// Process is a long-lived sandboxed command (a worker): the same sandbox
// as Run, plus a request pipe on its stdin and a reply pipe on its fd 3,
// which nothing else writes to — the command's stdout and stderr are
// captured like Run's.
type Process struct {
	l *launched
	// Stdin is the command's standard input.
	Stdin io.WriteCloser
	// Reply reads what the command writes to its fd 3.
	Reply io.Reader

	done     chan struct{}
	killOnce sync.Once
	res      Result
}

// Start starts spec.Argv and returns at once; Spec.Stdin and Spec.Timeout
// are ignored (the caller owns the pipes and the deadlines). The command
// is killed, with everything it started, when ctx ends or Kill is called;
// Kill also removes the private dir.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	l, err := launch(spec, true)
	if err != nil {
		return nil, err
	}
	p := &Process{l: l, Stdin: l.stdin, Reply: l.reply, done: make(chan struct{})}
	exited := make(chan struct{})
	go func() { waitNoReap(l.pid); close(exited) }()
	go func() {
		select {
		case <-exited:
		case <-ctx.Done():
			l.kill()
			<-exited
		}
		p.res = l.finish(false)
		close(p.done)
	}()
	return p, nil
}

// Isolation reports what the sandbox could enforce (Result's flags and
// notes, without the outcome).
func (p *Process) Isolation() Result { return p.l.res }

// Done is closed when the command has ended and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Kill kills the command and everything it started, waits for it, and
// returns how it ended.
func (p *Process) Kill() Result {
	p.killOnce.Do(func() {
		p.l.kill()
		p.Stdin.Close()
		<-p.done
		p.l.reply.Close()
	})
	return p.res
}

// command builds the exec.Cmd for one start attempt: always the re-exec
// helper, which sets up the namespaces' view, limits and capabilities in
// the child before exec'ing the target.
func command(spec Spec, path, dir string, env, writable []string, iso isolation) *exec.Cmd {
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: helperCommandLine(spec, path, writable, iso), Dir: dir, WaitDelay: streamGrace,
		Env: append(env[:len(env):len(env)], helperEnv+"="+helperArg0)}
	cmd.SysProcAttr = sysProcAttr(iso)
	return cmd
}

// helperCommandLine is the helper's command line: the limits, the isolation to
// set up and, after "--", the target's path and argv.
func helperCommandLine(spec Spec, path string, writable []string, iso isolation) []string {
	args := []string{helperArg0}
	if spec.MemoryBytes > 0 {
		flag := "-data"
		if spec.MemoryLimit == LimitAS {
			flag = "-as"
		}
		args = append(args, flag, strconv.FormatInt(spec.MemoryBytes, 10))
	}
	if spec.CPUTime > 0 {
		args = append(args, "-cpu", strconv.FormatInt(int64((spec.CPUTime+time.Second-1)/time.Second), 10))
	}
	if iso.net {
		args = append(args, "-lo")
	}
	if iso.fs {
		args = append(args, "-fs", "-proc")
		for _, w := range writable {
			args = append(args, "-w", w)
		}
		for _, m := range hostMasks() {
			if !under(m, writable) {
				args = append(args, "-mask", m)
			}
		}
	}
	return append(append(args, "--", path), spec.Argv...)
}

// sysProcAttr puts the helper in its own process group, killed with its
// parent, and in the namespaces of iso.
func sysProcAttr(iso isolation) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if iso.net {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if iso.fs {
		attr.Cloneflags |= syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	}
	if attr.Cloneflags != 0 {
		if uid := os.Geteuid(); uid != 0 {
			// Unprivileged: the namespaces hang off a new user namespace in
			// which the user is root, so that the helper keeps the
			// namespace's capabilities across its exec (a non-zero uid
			// loses them) to set up the view; it drops them all before
			// exec'ing the target, which runs as that powerless root.
			gid := os.Getegid()
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			if iso.net && !iso.fs {
				attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
				attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			} else {
				attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
				attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
			}
			attr.GidMappingsEnableSetgroups = false
		}
	}
	return attr
}

func isNamespaceErr(err error) bool {
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// waitNoReap blocks until pid has exited, leaving it a zombie (WNOWAIT) so
// its process group id stays valid until cmd.Wait reaps it.
func waitNoReap(pid int) {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

var oomMarkers = [][]byte{
	[]byte("MemoryError"), []byte("OutOfMemoryError"), []byte("out of memory"),
	[]byte("Cannot allocate memory"), []byte("std::bad_alloc"), []byte("Could not reserve enough space"),
}

func looksOOM(b []byte) bool {
	for _, m := range oomMarkers {
		if bytes.Contains(b, m) {
			return true
		}
	}
	return false
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

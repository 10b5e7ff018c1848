//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/benchforge/benchforge/internal/errs"
)

// streamGrace is how long Run waits for the output pipes to close after
// the process group is dead; only a process that escaped the group
// (setsid) can hold them open longer.
const streamGrace = 2 * time.Second

// Run runs spec.Argv as an untrusted command; see the package documentation
// for what it guarantees. The error is nil whenever the command ran, however
// it ended; it is non-nil when it could not be started or ctx was cancelled
// (the Result then describes what had happened so far).
func Run(ctx context.Context, spec Spec) (Result, error) {
	var res Result
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return res, fmt.Errorf("sandbox.Run: empty argv: %w", errs.ErrUsage)
	}
	name := spec.Argv[0]
	if spec.MemoryBytes < 0 || spec.Timeout < 0 {
		return res, fmt.Errorf("sandbox.Run(%s): negative memory cap or timeout: %w", name, errs.ErrUsage)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("sandbox.Run(%s): %w", name, err)
	}
	private := spec.TempDir
	if private == "" {
		d, err := os.MkdirTemp("", "benchforge-sandbox-*")
		if err != nil {
			return res, fmt.Errorf("sandbox.Run(%s): private temp dir: %v: %w", name, err, errs.ErrUnavailable)
		}
		private = d
		defer forceRemove(d)
	}
	dir := spec.Dir
	if dir == "" {
		dir = private
	}
	env := Environ(os.Environ(), spec.Env, private)
	path, ok := lookPath(name, env, dir)
	if !ok {
		return res, fmt.Errorf("sandbox.Run(%s): no such executable in dir %s or PATH %q; install it or give its absolute path: %w",
			name, dir, getenv(env, "PATH"), errs.ErrNotFound)
	}
	maxOut := spec.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}

	rOut, wOut, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("sandbox.Run(%s): %v: %w", name, err, errs.ErrUnavailable)
	}
	defer rOut.Close()
	rErr, wErr, err := os.Pipe()
	if err != nil {
		wOut.Close()
		return res, fmt.Errorf("sandbox.Run(%s): %v: %w", name, err, errs.ErrUnavailable)
	}
	defer rErr.Close()

	netns := spec.NoNetwork
	var cmd *exec.Cmd
	for {
		cmd = command(spec, path, dir, env, netns, wOut, wErr)
		err = cmd.Start()
		if err == nil {
			break
		}
		if netns && isNamespaceErr(err) {
			res.Notes = append(res.Notes, fmt.Sprintf("network isolation unavailable (%v); ran with the host network", err))
			netns = false
			continue
		}
		wOut.Close()
		wErr.Close()
		return res, fmt.Errorf("sandbox.Run(%s): start: %v: %w", name, err, errs.ErrUnavailable)
	}
	start := time.Now()
	res.NetworkIsolated = netns
	res.MemoryCapped = spec.MemoryBytes > 0
	wOut.Close()
	wErr.Close()
	outBuf, errBuf := newCapBuffer(maxOut), newCapBuffer(maxOut)
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go drain(rOut, outBuf, outDone)
	go drain(rErr, errBuf, errDone)

	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() { waitNoReap(pid); close(exited) }()
	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	killedByUs := false
	var ctxErr error
	select {
	case <-exited:
	case <-timeout:
		res.TimedOut, killedByUs = true, true
		killGroup(pid)
		<-exited
	case <-ctx.Done():
		ctxErr, killedByUs = ctx.Err(), true
		killGroup(pid)
		<-exited
	}
	res.Duration = time.Since(start)
	// The leader is an unreaped zombie, so pid is still this group's id:
	// kill whatever the command left running.
	killGroup(pid)
	waitErr := cmd.Wait()

	grace := time.NewTimer(streamGrace)
	for _, done := range []chan struct{}{outDone, errDone} {
		select {
		case <-done:
		case <-grace.C:
			res.Notes = append(res.Notes, "output pipes held open by a process that left the process group; output closed")
			rOut.Close()
			rErr.Close()
			<-done
		}
	}
	grace.Stop()
	res.Stdout, res.StdoutTruncated = outBuf.bytes()
	res.Stderr, res.StderrTruncated = errBuf.bytes()

	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode, res.Signal = -1, ws.Signal().String()
	} else {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		res.Notes = append(res.Notes, "wait: "+waitErr.Error())
	}
	if res.MemoryCapped && !killedByUs {
		res.OOM = res.Signal == syscall.SIGKILL.String() ||
			(res.ExitCode != 0 && (looksOOM(res.Stderr) || looksOOM(res.Stdout)))
	}
	if ctxErr != nil {
		return res, fmt.Errorf("sandbox.Run(%s): %w", name, ctxErr)
	}
	return res, nil
}

// command builds the exec.Cmd for one start attempt: the target itself, or
// the re-exec helper when limits or a loopback must be set up in the child.
func command(spec Spec, path, dir string, env []string, netns bool, stdout, stderr *os.File) *exec.Cmd {
	cmd := &exec.Cmd{Path: path, Args: spec.Argv, Dir: dir, Env: env, Stdout: stdout, Stderr: stderr, WaitDelay: streamGrace}
	if spec.Stdin != nil {
		cmd.Stdin = spec.Stdin
	}
	if spec.MemoryBytes > 0 || netns {
		args := []string{helperArg0}
		if spec.MemoryBytes > 0 {
			flag := "-data"
			if spec.MemoryLimit == LimitAS {
				flag = "-as"
			}
			args = append(args, flag, strconv.FormatInt(spec.MemoryBytes, 10))
		}
		if netns {
			args = append(args, "-lo")
		}
		args = append(append(args, "--", path), spec.Argv...)
		cmd.Path, cmd.Args = "/proc/self/exe", args
		cmd.Env = append(env[:len(env):len(env)], helperEnv+"="+helperArg0)
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if netns {
		attr.Cloneflags = syscall.CLONE_NEWNET
		if uid := os.Geteuid(); uid != 0 {
			gid := os.Getegid()
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
	}
	cmd.SysProcAttr = attr
	return cmd
}

func isNamespaceErr(err error) bool {
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.EACCES, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

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

// forceRemove removes dir even when the command made parts of it
// read-only.
func forceRemove(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

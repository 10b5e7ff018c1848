package jvm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// Network says how a child JVM's network was isolated.
const (
	NetIsolated = "isolated" // own empty network namespace (root, CLONE_NEWNET)
	NetShared   = "shared"   // not root or namespaces unavailable: host network
)

// proc is a sandboxed child process: its own process group (so the whole
// tree dies on kill), its own network namespace when the OS allows, a
// private working directory and temp dir chosen by the caller.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	lines  chan string // stdout, line by line; closed at EOF
	net    string
	done   chan struct{}
}

// startProc starts name args in dir with stdin/stdout pipes; stderr goes
// to errw. It first asks for a new network namespace when running as root
// and falls back to the shared network when the kernel refuses.
func startProc(dir string, errw io.Writer, name string, args ...string) (*proc, error) {
	tryNS := os.Geteuid() == 0
	for {
		p, err := startOnce(dir, errw, tryNS, name, args...)
		if err != nil && tryNS && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)) {
			tryNS = false
			continue
		}
		return p, err
	}
}

func startOnce(dir string, errw io.Writer, netns bool, name string, args ...string) (*proc, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = errw
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &proc{cmd: cmd, net: NetShared, done: make(chan struct{})}
	if netns {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWNET
		p.net = NetIsolated
	}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	// An os.Pipe rather than StdoutPipe: Wait must not close our read end
	// before we have read a worker's last reply (a timeout report).
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	w.Close()
	p.stdout = r
	p.lines = make(chan string, 16)
	go func() {
		defer close(p.lines)
		defer r.Close()
		br := bufio.NewReaderSize(r, 1<<16)
		for {
			s, err := br.ReadString('\n')
			if len(s) > 0 && s[len(s)-1] == '\n' {
				p.lines <- s[:len(s)-1]
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// kill kills the whole process group and waits for the leader to exit.
func (p *proc) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.stdin.Close()
	<-p.done
	for range p.lines { // let the reader reach EOF and exit
	}
}

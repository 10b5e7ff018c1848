package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// waitDelay bounds how long Wait waits, after the child has exited or been
// killed, for its stdout and stderr to close. A `git` on PATH that is a
// wrapper script (not exec-ing git) leaves a grandchild holding the pipes;
// without the bound Wait would block on them for ever.
const waitDelay = 2 * time.Second

// guard makes cmd safe to cancel: it runs in its own process group, a
// cancelled context kills the whole group (the wrapper and every
// grandchild), and Wait gives up on the pipes waitDelay after that.
func guard(cmd *exec.Cmd) *exec.Cmd {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// killGroup kills cmd's process group (guard made cmd its leader).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// Package sandboxtest holds what tests of sandboxed children share: finding
// the processes a child left behind.
package sandboxtest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PidsWithArg lists the pids of live (non-zombie) processes with arg among
// their arguments. Children in a PID namespace have other pids inside it,
// so tests give them a unique argument to be found by.
func PidsWithArg(arg string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || Gone(pid) {
			continue
		}
		for _, a := range strings.Split(string(cmdline), "\x00") {
			if a == arg {
				out = append(out, pid)
			}
		}
	}
	return out
}

// Gone reports whether pid no longer exists or is a zombie.
func Gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// UniqueSleep is a `sleep` argument no other process on the machine has.
func UniqueSleep() string {
	return fmt.Sprintf("%d.%d", 400000+os.Getpid()%100000, time.Now().UnixNano()%1000)
}

// Listener is a TCP listener on the parent's loopback that counts the
// connections it accepts: a sandboxed child must never reach it.
type Listener struct {
	Port    int
	ln      net.Listener
	reached chan struct{}
}

// Listen starts a Listener, closed when the test ends.
func Listen(t testing.TB) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &Listener{Port: ln.Addr().(*net.TCPAddr).Port, ln: ln, reached: make(chan struct{}, 64)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.reached <- struct{}{}
			c.Close()
		}
	}()
	return l
}

// Reached reports whether anything connected so far.
func (l *Listener) Reached() bool {
	select {
	case <-l.reached:
		return true
	default:
		return false
	}
}

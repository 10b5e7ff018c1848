package jvm

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/benchforge/benchforge/internal/sandbox"
)

// Network and file-system isolation of a child JVM, as recorded.
const (
	NetIsolated = "isolated" // own empty network namespace
	NetShared   = "shared"   // namespaces unavailable: host network
)

// Memory and CPU caps of the child JVMs (RLIMIT_DATA, RLIMIT_CPU): far above
// what a -Xmx256m worker or a batch compile needs, low enough that a leak
// outside the Java heap cannot take the machine.
const (
	workerMemory   = 1 << 30
	compilerMemory = 3 << 30
	childCPU       = 3600e9 // 1h of CPU
)

// proc is a child JVM in the sandbox (sandbox.Start): scrubbed
// environment, private HOME/TMPDIR, its own network, mount and PID
// namespaces where the host allows, rlimits. Its replies come on a pipe
// (fd 3) that is not its stdout, so what the code under test prints never
// reaches the protocol.
type proc struct {
	p     *sandbox.Process
	lines chan string // fd 3, line by line; closed at EOF
	net   string
	files string
	notes []string
}

// startProc starts java with args; tmp is its private temp dir and
// writable the other directories it may write.
func startProc(ctx context.Context, tmp string, writable []string, memory int64, java string, args ...string) (*proc, error) {
	// The JVM lives as long as the verifier, not as long as the call that
	// started it: stop and Close kill it.
	sp, err := sandbox.Start(context.WithoutCancel(ctx), sandbox.Spec{
		Argv: append([]string{java}, args...), Dir: tmp, TempDir: tmp, Writable: writable,
		MemoryBytes: memory, CPUTime: childCPU, NoNetwork: true, MaxOutput: 64 << 10, MinimalEnv: true,
	})
	if err != nil {
		return nil, err
	}
	iso := sp.Isolation()
	p := &proc{p: sp, lines: make(chan string, 16), net: NetShared, files: NetShared, notes: iso.Notes}
	if iso.NetworkIsolated {
		p.net = NetIsolated
	}
	if iso.FilesIsolated {
		p.files = NetIsolated
	}
	go func() {
		defer close(p.lines)
		br := bufio.NewReaderSize(sp.Reply, 1<<16)
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
	return p, nil
}

// send writes one request line.
func (p *proc) send(line string) error {
	_, err := fmt.Fprintln(p.p.Stdin, line)
	return err
}

// kill kills the JVM and everything it started and waits for it.
func (p *proc) kill() {
	if p == nil {
		return
	}
	p.p.Kill()
	for range p.lines { // let the reader reach EOF and exit
	}
}

// nonce is a fresh random tag for one request: the reply must carry it,
// and the code under test never sees it.
func nonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

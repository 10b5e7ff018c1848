//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// The re-exec helper: the sandbox starts /proc/self/exe with argv[0] ==
// helperArg0 and helperEnv == helperArg0, inside the new namespaces; this
// package's init then sets up the file-system view, applies the limits,
// drops every capability and execs the target, so all of it is in force
// from the target's first instruction. Arguments:
//
//	[-data N | -as N] [-cpu SECONDS] [-lo] [-fs] [-proc] [-w DIR]... [-mask PATH]... -- PATH ARGV...
func init() {
	if len(os.Args) < 2 || os.Args[0] != helperArg0 || os.Getenv(helperEnv) != helperArg0 {
		return
	}
	// Capabilities are per thread and exec keeps the calling thread's:
	// everything from here to exec must run on this one thread.
	runtime.LockOSThread()
	os.Exit(helperMain(os.Args[1:]))
}

// helperArgs is the parsed helper command line.
type helperArgs struct {
	lims     []rlim
	lo       bool
	fs       bool // set up the read-only file-system view (new mount namespace)
	proc     bool // mount a /proc of the new PID namespace
	writable []string
	masks    []string
	path     string
	argv     []string
}

type rlim struct {
	res int
	val uint64
}

func parseHelperArgs(args []string) (helperArgs, error) {
	var h helperArgs
	value := func(i int) (string, error) {
		if i+1 >= len(args) {
			return "", fmt.Errorf("missing value for %s", args[i])
		}
		return args[i+1], nil
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-data", "-as", "-cpu":
			s, err := value(i)
			if err != nil {
				return h, err
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return h, fmt.Errorf("bad limit %q", s)
			}
			res := map[string]int{"-data": syscall.RLIMIT_DATA, "-as": syscall.RLIMIT_AS, "-cpu": syscall.RLIMIT_CPU}[a]
			h.lims = append(h.lims, rlim{res, v})
			i++
		case "-w", "-mask":
			s, err := value(i)
			if err != nil {
				return h, err
			}
			if a == "-w" {
				h.writable = append(h.writable, s)
			} else {
				h.masks = append(h.masks, s)
			}
			i++
		case "-lo":
			h.lo = true
		case "-fs":
			h.fs = true
		case "-proc":
			h.proc = true
		case "--":
			if i+2 >= len(args) {
				return h, fmt.Errorf("missing command")
			}
			h.path, h.argv = args[i+1], args[i+2:]
			return h, nil
		default:
			return h, fmt.Errorf("unknown helper argument %q", a)
		}
	}
	return h, fmt.Errorf("missing command")
}

// helperMain only returns on failure; its exit codes follow the shell's
// convention (126: could not execute).
func helperMain(args []string) int {
	_ = os.Unsetenv(helperEnv)
	h, err := parseHelperArgs(args)
	if err != nil {
		return helperFail("%v", err)
	}
	if h.lo {
		// Best effort: without loopback the command still has no network.
		_ = loopbackUp()
	}
	if h.fs {
		if err := readOnlyView(h.writable, h.masks, h.proc); err != nil {
			return helperFail("file-system view: %v", err)
		}
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	for _, l := range h.lims {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.val, Max: l.val}); err != nil {
			return helperFail("setrlimit: %v", err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return helperFail("drop capabilities: %v", err)
	}
	err = syscall.Exec(h.path, h.argv, os.Environ())
	return helperFail("exec %s: %v", h.path, err)
}

func helperFail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "sandbox: "+format+"\n", a...)
	return 126
}

// loopbackUp sets IFF_UP on "lo" in the current network namespace.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: 16-byte name, then a union (flags: short)
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := (*uint16)(unsafe.Pointer(&ifr[16]))
	*flags |= syscall.IFF_UP
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// The re-exec helper: Run starts /proc/self/exe with argv[0] == helperArg0
// and helperEnv == helperArg0; this package's init then applies the limits
// to its own process and execs the target, so the limits are in force from
// the target's first instruction. Arguments: [-data N | -as N] [-lo] --
// PATH ARGV...
func init() {
	if len(os.Args) < 2 || os.Args[0] != helperArg0 || os.Getenv(helperEnv) != helperArg0 {
		return
	}
	os.Exit(helperMain(os.Args[1:]))
}

// helperMain only returns on failure; its exit codes follow the shell's
// convention (126: could not execute).
func helperMain(args []string) int {
	_ = os.Unsetenv(helperEnv)
	var path string
	var argv []string
	lo := false
	type lim struct {
		res int
		val uint64
	}
	var lims []lim
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-data", "-as":
			if i+1 >= len(args) {
				return helperFail("missing value for %s", args[i])
			}
			v, err := strconv.ParseUint(args[i+1], 10, 64)
			if err != nil {
				return helperFail("bad limit %q", args[i+1])
			}
			res := syscall.RLIMIT_DATA
			if args[i] == "-as" {
				res = syscall.RLIMIT_AS
			}
			lims = append(lims, lim{res, v})
			i++
		case "-lo":
			lo = true
		case "--":
			if i+2 >= len(args) {
				return helperFail("missing command")
			}
			path, argv = args[i+1], args[i+2:]
			i = len(args)
		default:
			return helperFail("unknown helper argument %q", args[i])
		}
	}
	if path == "" {
		return helperFail("missing command")
	}
	if lo {
		// Best effort: without loopback the command still has no network.
		_ = loopbackUp()
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	for _, l := range lims {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.val, Max: l.val}); err != nil {
			return helperFail("setrlimit: %v", err)
		}
	}
	err := syscall.Exec(path, argv, os.Environ())
	return helperFail("exec %s: %v", path, err)
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

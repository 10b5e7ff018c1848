//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// devNodes are the only device files a sandboxed command sees in its /dev.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// readOnlyView turns the helper's fresh mount namespace into the view the
// command gets: every mount read-only except the writable dirs, the masked
// paths hidden (an empty read-only tmpfs over a directory, /dev/null over a
// file), a minimal /dev with a private /dev/shm, and, with proc, a /proc
// that shows only the new PID namespace (so the command cannot read the
// parent's /proc/<pid>/environ). The caller is the helper, still holding
// the namespace's capabilities; they are dropped before exec.
func readOnlyView(writable, masks []string, proc bool) error {
	wd, _ := os.Getwd()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	// Device nodes are bound from the old /dev through fds opened first.
	nodes := openDevNodes()
	for _, w := range writable {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", w, err)
		}
	}
	for _, m := range masks {
		if err := mask(m); err != nil {
			return err
		}
	}
	if err := minimalDev(nodes); err != nil {
		return err
	}
	if proc {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /proc: %w", err)
		}
	}
	if err := remountReadOnly(writable); err != nil {
		return err
	}
	if wd != "" {
		// The old working directory is on the old, now read-only, mount;
		// entering it again by name lands on a writable bind when it is one.
		_ = unix.Chdir(wd)
	}
	return nil
}

// openDevNodes opens an O_PATH fd on each of devNodes that exists, by
// name.
func openDevNodes() map[string]int {
	nodes := map[string]int{}
	for _, n := range devNodes {
		fd, err := unix.Open("/dev/"+n, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			nodes[n] = fd
		}
	}
	return nodes
}

// remountReadOnly remounts every mount read-only except the writable dirs
// and /dev/shm. Only a failure on / is an error; other mounts may refuse
// (locked flags) and are left as they are.
func remountReadOnly(writable []string) error {
	mounts, err := mountPoints()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if under(m.path, writable) || m.path == "/dev/shm" {
			continue
		}
		flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | m.flags)
		if err := unix.Mount("", m.path, "", flags, ""); err != nil && m.path == "/" {
			return fmt.Errorf("remount / read-only: %w", err)
		}
	}
	return nil
}

// mask hides path: an empty read-only tmpfs over a directory, /dev/null
// over a file; a path that does not exist needs nothing.
func mask(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	if fi.IsDir() {
		if err := unix.Mount("tmpfs", path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0755"); err != nil {
			return fmt.Errorf("mask %s: %w", path, err)
		}
		return nil
	}
	if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("mask %s: %w", path, err)
	}
	return nil
}

// minimalDev mounts a fresh /dev holding only devNodes (bound from the old
// ones), the usual fd symlinks and a private tmpfs /dev/shm (POSIX shared
// memory and semaphores of Python's multiprocessing live there; it vanishes
// with the namespace).
func minimalDev(nodes map[string]int) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for n, fd := range nodes {
		p := "/dev/" + n
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		unix.Close(fd)
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		_ = os.Symlink(target, "/dev/"+name)
	}
	if err := os.Mkdir("/dev/shm", 0o1777); err != nil {
		return fmt.Errorf("create /dev/shm: %w", err)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64m,mode=1777"); err != nil {
		return fmt.Errorf("mount /dev/shm: %w", err)
	}
	return nil
}

// keptFlags are the per-mount options a read-only bind remount must
// repeat (in a user namespace, dropping a locked one fails).
var keptFlags = map[string]uintptr{"nosuid": unix.MS_NOSUID, "nodev": unix.MS_NODEV, "noexec": unix.MS_NOEXEC,
	"noatime": unix.MS_NOATIME, "nodiratime": unix.MS_NODIRATIME, "relatime": unix.MS_RELATIME}

type mountPoint struct {
	path  string
	flags uintptr // the per-mount flags a bind remount must keep
}

// mountPoints lists the namespace's mount points, parents first.
func mountPoints() ([]mountPoint, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountPoint
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		p := unescapeMount(fields[4])
		if seen[p] {
			continue
		}
		seen[p] = true
		var flags uintptr
		for _, o := range strings.Split(fields[5], ",") {
			flags |= keptFlags[o]
		}
		out = append(out, mountPoint{p, flags})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].path) < len(out[j].path) })
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// under reports whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// dropCapabilities leaves the command no capabilities at all, in any
// namespace, and no way to gain them (no_new_privs: setuid binaries do not
// elevate). Root without capabilities cannot remount, unmask, or override
// file permissions.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the kernel's last capability
			}
			if err != unix.EPERM { // EPERM: already without CAP_SETPCAP, nothing to drop
				return fmt.Errorf("bounding set: %w", err)
			}
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// secretPaths are the credential stores under the user's home directory
// that a sandboxed command never sees (masked in its mount namespace).
var secretPaths = []string{
	".ssh", ".aws", ".azure", ".gnupg", ".netrc", ".git-credentials", ".docker", ".kube",
	".config/gcloud", ".config/gh", ".config/hub", ".config/benchforge", ".config/openai", ".config/anthropic",
	".pypirc", ".npmrc", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".cargo/credentials", ".cargo/credentials.toml", ".terraform.d", ".vault-token", ".password-store",
	".local/share/keyrings", ".bash_history", ".zsh_history", ".python_history",
}

// hostMasks returns the paths masked in every sandbox: the credential
// stores of the user running benchforge (and of root and $HOME, when they
// differ).
func hostMasks() []string {
	homes := map[string]bool{}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		homes[h] = true
	}
	homes["/root"] = true
	var out []string
	for h := range homes {
		for _, p := range secretPaths {
			out = append(out, filepath.Join(h, p))
		}
	}
	sort.Strings(out)
	return out
}

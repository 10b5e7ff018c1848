package output

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FileMode is the mode of every output file: 0644 less the umask, like a
// file the user writes. No output of benchforge is private — records,
// manifests and reports hold no credential (API keys come from the
// environment and are redacted from every message) — so there is one mode.
const FileMode os.FileMode = 0o644

// WriteFile atomically replaces path with data (see Write).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteJSON atomically replaces path with v as indented JSON and a newline.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'))
}

// Write atomically replaces path with what fn writes: a reader (or a run
// killed half-way) sees the old file or the whole new one, never a part.
// The data goes to a temporary file beside path (same file system, so the
// rename is atomic), is synced, renamed over path, and the directory is
// synced so the rename survives a crash. The parent directory is created
// if needed. The file has FileMode.
func Write(path string, fn func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: makes the rename durable
		d.Close()
	}
	return nil
}

// CreateTemp is os.CreateTemp for output files: the file is created with
// FileMode less the umask (os.CreateTemp uses 0600), so an output renamed
// into place is readable like any file the user writes.
func CreateTemp(dir, pattern string) (*os.File, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	if !strings.Contains(pattern, "*") {
		prefix, suffix = pattern, ""
	}
	for range 10000 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file in %s: %w", dir, os.ErrExist)
}

// Package redact owns the one filter every untrusted or provider-supplied
// text passes before benchforge prints or writes it: exception messages of
// code under test, provider error bodies, error messages. It removes the
// API keys benchforge knows (values of credential-named environment
// variables, keys read from key files), anything shaped like an OpenAI or
// Anthropic key, and the user's home directory.
package redact

import (
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/sandbox"
)

// Mark replaces a redacted secret.
const Mark = "[redacted]"

// minSecret is the shortest value treated as a secret: shorter values of
// credential-named variables ("1", "true") would redact ordinary words.
const minSecret = 8

var (
	mu       sync.RWMutex
	known    = map[string]bool{} // registered key values
	keyShape = regexp.MustCompile(`\bsk-(?:ant-)?[A-Za-z0-9_\-]{8,}`)
)

// Register adds a secret (an API key read from a key file) to those
// removed from now on.
func Register(secret string) {
	secret = strings.TrimSpace(secret)
	if len(secret) < minSecret {
		return
	}
	mu.Lock()
	known[secret] = true
	mu.Unlock()
}

// secrets returns the known values, longest first (so a key containing
// another is removed whole).
func secrets() []string {
	set := map[string]bool{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if v = strings.TrimSpace(v); len(v) >= minSecret && sandbox.IsSecretEnv(k) {
			set[v] = true
		}
	}
	mu.RLock()
	for s := range known {
		set[s] = true
	}
	mu.RUnlock()
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// String returns s with every known secret, key-shaped token and the
// user's home directory ("~") removed.
func String(s string) string {
	if s == "" {
		return s
	}
	for _, sec := range secrets() {
		s = strings.ReplaceAll(s, sec, Mark)
	}
	s = keyShape.ReplaceAllString(s, Mark)
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		home = strings.TrimSuffix(home, "/")
		s = strings.ReplaceAll(s, home+"/", "~/")
		if strings.HasSuffix(s, home) {
			s = strings.TrimSuffix(s, home) + "~"
		}
	}
	return s
}

// Error is String of err's message; nil stays nil.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return String(err.Error())
}

// Writer returns w behind the filter: each Write is redacted whole (the
// callers write a message or a line at a time).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (r writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-key-value-123")
	t.Setenv("HOME", "/home/alice")
	t.Setenv("BENCHFORGE_PLAIN", "env-key-value-plain") // not credential-named: kept
	Register("file-key-0123456789")
	Register("short") // too short to be a key: ignored
	tests := []struct{ in, want string }{
		{"Incorrect API key provided: env-key-value-123.", "Incorrect API key provided: [redacted]."},
		{"key sk-proj-AbCdEf0123456789xyz in body", "key [redacted] in body"},
		{`{"error":"invalid x-api-key sk-ant-api03-AAAAbbbbCCCC"}`, `{"error":"invalid x-api-key [redacted]"}`},
		{"read file-key-0123456789 from file", "read [redacted] from file"},
		{"NoSuchFileException: /home/alice/.ssh/id_rsa", "NoSuchFileException: ~/.ssh/id_rsa"},
		{"home is /home/alice", "home is ~"},
		{"/home/alicea stays", "/home/alicea stays"},
		{"short and env-key-value-plain stay", "short and env-key-value-plain stay"},
		{"task-force is not a key", "task-force is not a key"},
	}
	for _, tc := range tests {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if strings.Contains(Error(errorString("x env-key-value-123")), "env-key") || Error(nil) != "" {
		t.Error("Error does not redact")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

package output

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
)

func TestWriteReplacesAtomicallyWithFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "sub", "f.json")
	testcheck.Must(t, WriteJSON(path, map[string]int{"a": 1}))
	testcheck.Must(t, WriteFile(path, []byte("two\n")))
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("stat %v, %v; want mode 0644", st, err)
	}
	// A writer that fails leaves the old file whole and no temporary.
	boom := errors.New("boom")
	err = Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("after a failed write the file holds %q, want the old content", got)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(ents))
	}
}

func TestJSONStreamRoundTrip(t *testing.T) {
	var b bytes.Buffer
	h := JSON(&b)
	h.Progress(Progress{Step: "stage II", Done: 1, Total: 2})
	h.Warning(Warning{Message: "skipped <x>"})
	h.Record(Record{Kind: "verdict", Value: map[string]any{"id": "a"}})
	h.Summary(Summary{Kind: "audit_run", Value: map[string]int{"samples": 2}})
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Fatalf("%d lines, want 4:\n%s", n, b.String())
	}
	if !strings.Contains(b.String(), `"skipped <x>"`) {
		t.Errorf("HTML escaped: %s", b.String())
	}
	lines, err := Decode(bytes.NewReader(b.Bytes()))
	if err != nil || !decodedFour(lines) {
		t.Fatalf("decode: %+v, %v", lines, err)
	}
	var s struct{ Samples int }
	if err := DecodeSummary(bytes.NewReader(b.Bytes()), "audit_run", &s); err != nil || s.Samples != 2 {
		t.Errorf("summary %+v, %v", s, err)
	}
	if err := DecodeSummary(bytes.NewReader(b.Bytes()), "other", &s); !errors.Is(err, ErrNoSummary) {
		t.Errorf("missing kind: %v", err)
	}
	if _, err := Decode(strings.NewReader("{}\n")); err == nil {
		t.Error("an empty object decoded as a message")
	}
}

// decodedFour reports whether lines are the four messages of
// TestJSONStreamRoundTrip: the progress of 2 first, the verdict third.
func decodedFour(lines []Line) bool {
	return len(lines) == 4 && lines[0].Progress.Total == 2 && lines[2].Record.Kind == "verdict"
}

func TestTextHandler(t *testing.T) {
	var out, errb bytes.Buffer
	h := &Text{Stdout: &out, Stderr: &errb, Name: "x", Render: func(w io.Writer, s Summary) error {
		_, err := io.WriteString(w, s.Kind+"\n")
		return err
	}}
	h.Progress(Progress{Step: "hidden"}) // not Live: no progress
	h.Warning(Warning{Message: "careful"})
	h.Record(Record{Kind: "r"})
	h.Summary(Summary{Kind: "done"})
	if errb.String() != "warning: careful\n" || out.String() != "done\n" {
		t.Errorf("stderr %q stdout %q", errb.String(), out.String())
	}
	h.Live = true
	h.Progress(Progress{Step: "stage I", Message: "repo 1/2"})
	if !strings.HasSuffix(errb.String(), "x: stage I: repo 1/2\n") {
		t.Errorf("live progress: %q", errb.String())
	}
}

func TestTable(t *testing.T) {
	tb := Table{Header: []string{"A", "LONGER"}}
	tb.Add("x", 0.123456)
	tb.Add("yyyy", 3)
	var b bytes.Buffer
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "A     LONGER\nx     0.123\nyyyy  3\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

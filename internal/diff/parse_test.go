package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/google/go-cmp/cmp"
)

func mustParse(t testing.TB, s string) []*FileDiff {
	t.Helper()
	files, err := ParseString(s)
	if err != nil {
		t.Fatalf("ParseString: %v", err)
	}
	return files
}

func render(t testing.TB, files []*FileDiff) string {
	t.Helper()
	var b bytes.Buffer
	if err := Format(&b, files); err != nil {
		t.Fatalf("Format: %v", err)
	}
	return b.String()
}

// TestGolden parses every testdata/parse/*.patch, compares the parse with
// its .golden.json and checks that rendering gives back the input (for
// mail.patch: the part from the first "diff --git" to the signature).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/parse/*.patch")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			files := mustParse(t, string(data))
			got, err := json.MarshalIndent(files, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(in, ".patch")+".golden.json", append(got, '\n'))
			wantText := string(data)
			if filepath.Base(in) == "mail.patch" {
				wantText = wantText[strings.Index(wantText, "diff --git"):strings.Index(wantText, "-- \n")]
			}
			if d := cmp.Diff(wantText, render(t, files)); d != "" {
				t.Errorf("render is not byte-exact (-input +rendered):\n%s", d)
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	data, err := os.ReadFile("testdata/parse/git.patch")
	if err != nil {
		t.Fatal(err)
	}
	files := mustParse(t, string(data))
	by := map[string]*FileDiff{}
	for _, f := range files {
		by[f.Name()] = f
	}
	checks := []struct {
		name string
		ok   func(f *FileDiff) bool
		what string
	}{
		{"copied.txt", func(f *FileDiff) bool { return f.IsCopy && f.OldPath == "src.txt" }, "want copy from src.txt"},
		{"copied.txt", hasSimilarity90, "want similarity 90"},
		{"renamed.txt", func(f *FileDiff) bool { return f.IsRename && f.OldPath == "ren.txt" }, "want rename from ren.txt"},
		{"empty.txt", isNewEmpty, "want new empty file"},
		{"gone.txt", isDeleted644, "want deleted"},
		{"run.sh", func(f *FileDiff) bool { return f.OldMode == "100644" && f.NewMode == "100755" }, "want mode change"},
		{"b.bin", func(f *FileDiff) bool { return f.IsBinary }, "want binary"},
		{"sp ace.txt", func(f *FileDiff) bool { return f.OldPath == "sp ace.txt" && f.OldTime == "" }, "want name with space"},
		{"ta\tb.txt", func(f *FileDiff) bool { return f.Prefix }, "want unquoted tab name"},
		{"nonl.txt", noNewlineOn1And3, "want no-newline markers on lines 1 and 3"},
		{"A.java", hunkHeaderA, "hunk header"},
		{"A.java", func(f *FileDiff) bool { return f.OldMode == "100644" && f.OldHash == "81f8d35" }, "index line"},
	}
	for _, c := range checks {
		f := by[c.name]
		if f == nil {
			t.Fatalf("no file %q in %d files", c.name, len(files))
		}
		if !c.ok(f) {
			t.Errorf("%s: %s", c.name, c.what)
		}
	}
	if a, d := by["nums.txt"].Stats(); a != 2 || d != 2 {
		t.Errorf("nums.txt Stats = +%d -%d, want +2 -2", a, d)
	}
}

func hasSimilarity90(f *FileDiff) bool { sim, ok := f.Similarity(); return ok && sim == 90 }

func isNewEmpty(f *FileDiff) bool { return f.IsNew && f.NewMode == "100644" && len(f.Hunks) == 0 }

func isDeleted644(f *FileDiff) bool { return f.IsDeleted && f.NewPath == "" && f.OldMode == "100644" }

func noNewlineOn1And3(f *FileDiff) bool {
	nonl := f.Hunks[0].Lines
	return len(nonl) == 3 && nonl[0].NoNewline && !nonl[1].NoNewline && nonl[2].NoNewline
}

func hunkHeaderA(f *FileDiff) bool {
	h := f.Hunks[0]
	return h.OldStart == 2 && h.OldLines == 10 && h.NewStart == 2 && h.NewLines == 11 && h.Section == "package p;"
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		msg      string
		sentinel error
	}{
		{"short hunk", "--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n a\n-b\n+c\n d\nnot a line\n", 8,
			`says 5 old and 5 new lines, found 3 and 3`, errs.ErrInput},
		{"ends early", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", 5, "before the patch ends", errs.ErrInput},
		{"too many adds", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6, "", errs.ErrInput}, // +c is junk after a full hunk
		{"bad header", "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n", 3, "malformed hunk header", errs.ErrInput},
		{"empty hunk", "--- a/x\n+++ b/x\n@@ -1,0 +1,0 @@\n", 3, "has no lines", errs.ErrInput},
		{"start zero", "--- a/x\n+++ b/x\n@@ -0,2 +1,2 @@\n", 3, "starts at line 0", errs.ErrInput},
		{"orphan hunk", "hello\n@@ -1 +1 @@\n-a\n+b\n", 2, "outside a file", errs.ErrInput},
		{"double marker", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n\\ No newline at end of file\n+b\n", 6, "repeated", errs.ErrInput},
		{"line after marker", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n\\ No newline at end of file\n b\n", 6, "after", errs.ErrInput},
		{"hunk after marker", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n@@ -5 +5 @@\n-c\n+d\n", 7, "hunk after one", errs.ErrInput},
		{"both devnull", "--- /dev/null\n+++ /dev/null\n", 2, "both", errs.ErrInput},
		{"git new not devnull", "diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 4, "new file", errs.ErrInput},
		{"git repeated", "diff --git a/x b/x\nindex 1..2\nindex 3..4\n", 3, "repeated", errs.ErrInput},
		{"git bad mode", "diff --git a/x b/x\nold mode 10x644\nnew mode 100755\n", 2, "malformed file mode", errs.ErrInput},
		{"git ambiguous names", "diff --git a/x b/y\nold mode 100644\nnew mode 100755\n", 1, "cannot tell", errs.ErrInput},
		{"git rename mismatch", "diff --git a/x b/y\nrename from x\nrename to z\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", 1, "rename/copy headers", errs.ErrInput},
		{"git half rename", "diff --git a/x b/y\nrename from x\n", 1, "must come together", errs.ErrInput},
		{"git hunk without names", "diff --git a/x b/x\nindex 1..2\n@@ -1 +1 @@\n", 3, "without", errs.ErrInput},
		{"git names without hunk", "diff --git a/x b/x\n--- a/x\n+++ b/x\ndiff --git a/y b/y\n", 4, "not followed by a hunk", errs.ErrInput},
		{"bad quote", "--- \"a/x\n+++ b/x\n", 1, "malformed file name", errs.ErrInput},
		{"combined", "diff --cc x\n", 1, "combined", errs.ErrUnsupported},
		{"combined hunk", "--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n", 3, "combined", errs.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := ParseString(tc.in)
			if tc.msg == "" { // not an error: the extra line is text after the file
				checkOneFileTwoLines(t, files, err)
				return
			}
			checkParseError(t, err, len(files), tc.sentinel, tc.line, tc.msg)
		})
	}
}

func checkOneFileTwoLines(t *testing.T, files []*FileDiff, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v", err)
	}
	if len(files) != 1 || len(files[0].Hunks[0].Lines) != 2 {
		t.Fatalf("got %d files", len(files))
	}
}

// checkParseError checks that err wraps sentinel, is a *ParseError naming
// line (when it is one), mentions msg and starts with "diff line ".
func checkParseError(t *testing.T, err error, nfiles int, sentinel error, line int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; parsed %d files", nfiles)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v does not wrap %v", err, sentinel)
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line != line {
		t.Errorf("error %q names line %d, want %d", err, pe.Line, line)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not mention %q", err, msg)
	}
	if want := "diff line "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

// TestParseLenient covers inputs that real tools produce and that must
// parse: blank context lines, text around files, CRLF headers.
func TestParseLenient(t *testing.T) {
	in := "Some mail text\n--- not a header\n\n" +
		"Index: x.txt\n===\n--- x.txt\t(revision 1)\n+++ x.txt\t(working copy)\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n" +
		"trailing junk\n" +
		"diff --git a/y b/y\r\nindex 1..2 100644\r\n--- a/y\r\n+++ b/y\r\n@@ -1 +1 @@\r\n-p\r\n+q\r\n"
	files := mustParse(t, in)
	if len(files) != 2 {
		t.Fatalf("got %d files, want 2", len(files))
	}
	x := files[0]
	checkSVNNames(t, x)
	if d := cmp.Diff([]string{"Some mail text", "--- not a header", "", "Index: x.txt", "==="}, x.Extended); d != "" {
		t.Errorf("Extended (-want +got):\n%s", d)
	}
	if l := x.Hunks[0].Lines[1]; l.Op != Context || l.Text != "" {
		t.Errorf("blank line = %+v, want empty context", l)
	}
	checkCRLFGitFile(t, files[1])
	// Reparsing the rendering gives the same files.
	if d := cmp.Diff(files, mustParse(t, render(t, files))); d != "" {
		t.Errorf("reparse (-first +second):\n%s", d)
	}
}

func checkSVNNames(t *testing.T, x *FileDiff) {
	t.Helper()
	if x.OldPath != "x.txt" || x.OldTime != "(revision 1)" || x.NewTime != "(working copy)" || x.Prefix {
		t.Errorf("svn names: %+v", x)
	}
}

func checkCRLFGitFile(t *testing.T, y *FileDiff) {
	t.Helper()
	if y.NewPath != "y" || y.OldMode != "100644" || y.Hunks[0].Lines[0].Text != "p\r" {
		t.Errorf("crlf git file: %+v %+v", y, y.Hunks[0].Lines)
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", "ta\tb", "quo\"te", "back\\slash", "caf\u00e9", "nl\nx", "\x01\x7f\xff"} {
		q := quote(s)
		if needsQuote(s) != (q != s) {
			t.Errorf("quote(%q) = %q", s, q)
		}
		if q == s {
			continue
		}
		got, rest, err := unquote(q)
		if err != nil || rest != "" || got != s {
			t.Errorf("unquote(%q) = %q, %q, %v; want %q", q, got, rest, err, s)
		}
	}
	for _, bad := range []string{`"abc`, `"a\`, `"a\9"`, `"\12"`, `x`} {
		if _, _, err := unquote(bad); err == nil {
			t.Errorf("unquote(%q) succeeded", bad)
		}
	}
}

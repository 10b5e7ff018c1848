package diff

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func addSeeds(f *testing.F) {
	for _, p := range []string{"testdata/parse/git.patch", "testdata/parse/gitbinary.patch",
		"testdata/parse/plain.patch", "testdata/parse/svn-crlf.patch", "testdata/parse/mail.patch"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(javaPatch))
	f.Add([]byte("diff --git \"a/x\\ty\" \"b/x\\ty\"\nold mode 100644\nnew mode 100755\n"))
	f.Add([]byte("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"))
}

// FuzzParse: the parser never panics, and errors are input errors.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ParseBytes(data)
		if err != nil {
			if !errors.Is(err, errs.ErrInput) && !errors.Is(err, errs.ErrUnsupported) {
				t.Fatalf("error %v wraps neither ErrInput nor ErrUnsupported", err)
			}
			return
		}
		for _, fd := range files {
			_ = Touched(fd, []Span{{"f", 1, 5}}, nil)
			_, _ = Apply(data, fd, ApplyOptions{})
		}
	})
}

// FuzzRoundTrip: whatever parses renders to a patch that parses back to
// the same files, and rendering that again is byte-identical.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ParseBytes(data)
		if err != nil {
			return
		}
		text := render(t, files)
		again, err := ParseString(text)
		if err != nil {
			t.Fatalf("rendered patch does not parse: %v\n%q", err, text)
		}
		if !reflect.DeepEqual(files, again) {
			t.Fatalf("reparse differs\nfirst:  %#v\nsecond: %#v\ntext: %q", files, again, text)
		}
		if text2 := render(t, again); text2 != text {
			t.Fatalf("second rendering differs:\n%q\n%q", text, text2)
		}
	})
}

// FuzzUnified: Apply(old, Unified(old, new)) == new and back, for any pair.
func FuzzUnified(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nc\nd"), 3)
	f.Add([]byte("x\r\ny\r\n"), []byte("x\r\nz\r\n"), 0)
	f.Add([]byte(""), []byte("new\n"), 1)
	f.Fuzz(func(t *testing.T, old, new []byte, ctx int) {
		ctx = ctx % 8
		fd := Unified("a/f", "b/f", old, new, ctx)
		got, err := Apply(old, fd, ApplyOptions{Fuzz: -1, MaxOffset: -1})
		if err != nil || string(got) != string(new) {
			t.Fatalf("Apply = %q, %v; want %q\n%s", got, err, new, fd)
		}
		back, err := Apply(new, Reverse(fd), ApplyOptions{Fuzz: -1, MaxOffset: -1})
		if err != nil || string(back) != string(old) {
			t.Fatalf("Apply(Reverse) = %q, %v; want %q\n%s", back, err, old, fd)
		}
	})
}

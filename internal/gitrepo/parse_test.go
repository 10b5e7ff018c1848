package gitrepo

import (
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2023-04-01", time.Date(2023, 4, 1, 0, 0, 0, 0, time.UTC)},
		{" 2023-04 ", time.Date(2023, 4, 1, 0, 0, 0, 0, time.UTC)},
		{"2023-04-01T12:30:00Z", time.Date(2023, 4, 1, 12, 30, 0, 0, time.UTC)},
		{"2023-04-01T12:30:00.25+02:00", time.Date(2023, 4, 1, 10, 30, 0, 250e6, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "2023", "2023-13", "2023-04-31", "01/04/2023", "2023-04-01 12:00", "yesterday"} {
		_, err := ParseTime(bad)
		if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "2023-04-01, 2023-04 or RFC 3339") {
			t.Errorf("ParseTime(%q) error = %v, want ErrInput listing the formats", bad, err)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"**/*.java", "A.java", true},
		{"**/*.java", "a/b/A.java", true},
		{"**/*.java", "a/b/A.jav", false},
		{"src/**/*.java", "src/A.java", true},
		{"src/**/*.java", "src/x/y/A.java", true},
		{"src/**/*.java", "test/A.java", false},
		{"src/**", "src", true}, // "**" matches zero segments
		{"src/**", "src/a/b", true},
		{"src/**/test/**", "src/a/test/b/C.java", true},
		{"src/**/test/**", "src/a/tests/b", false},
		{"**/**/x", "x", true},
		{"*.java", "a/A.java", false}, // "*" does not cross "/"
		{"src/*.java", "src/A.java", true},
		{"a**b/c", "axyb/c", true}, // "**" inside a segment is "*"
		{"a**b/c", "ax/yb/c", false},
		{"?.md", "a.md", true},
		{"[a-c].md", "d.md", false},
		{`\*.md`, "*.md", true},
		{"src/[", "src/[", false}, // malformed: matches nothing
		{"", "", true},
		{"", "a", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if err := ValidatePattern("a/[b"); !errors.Is(err, path.ErrBadPattern) {
		t.Errorf("ValidatePattern(a/[b) = %v", err)
	}
	if err := ValidatePattern("**/x/*.java"); err != nil {
		t.Errorf("ValidatePattern(**/x/*.java) = %v", err)
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"**/*.java", "a/b/C.java"}, {"src/**/x/**", "src/x"}, {"a*/b?", "ab/bc"}, {"[a-", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 200 || len(name) > 200 {
			return
		}
		got := Match(pattern, name)
		// Without "**", doublestar matching is path.Match (whose "*" and
		// "?" never match "/"); classes and escapes could mention "/" so
		// leave them out of the comparison.
		if !strings.Contains(pattern, "**") && !strings.ContainsAny(pattern, `[\`) {
			want, err := path.Match(pattern, name)
			if err == nil && got != want {
				t.Errorf("Match(%q, %q) = %v, path.Match = %v", pattern, name, got, want)
			}
		}
		// "**/" prefixed to a pattern must accept whatever the pattern accepts.
		if got && !Match("**/"+pattern, name) {
			t.Errorf("Match(%q, %q) but not with a **/ prefix", pattern, name)
		}
	})
}

func TestParseCommit(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"parent 1111111111111111111111111111111111111111\n" +
		"parent 2222222222222222222222222222222222222222\n" +
		"author Ann Author <ann@example.com> 1577836800 +0130\n" +
		"committer <odd> 1577840400 -0700\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n" +
		"\n" +
		"Subject line\ncontinued\n\nBody.\n\n"
	got, err := parseCommit("h", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := Commit{
		Hash: "h", Tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		Parents:   []string{strings.Repeat("1", 40), strings.Repeat("2", 40)},
		Author:    Signature{"Ann Author", "ann@example.com", time.Date(2020, 1, 1, 1, 30, 0, 0, time.FixedZone("+0130", 5400))},
		Committer: Signature{"", "odd", time.Date(2019, 12, 31, 18, 0, 0, 0, time.FixedZone("-0700", -7*3600))},
		Subject:   "Subject line continued", Message: "Subject line\ncontinued\n\nBody.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("parseCommit mismatch (-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "parent x\n\nmsg", "tree t\nauthor nobody 1 +0000\n\n", "tree t\nauthor A <a> notanumber +0000\n"} {
		if _, err := parseCommit("h", []byte(bad)); err == nil {
			t.Errorf("parseCommit(%q) succeeded, want error", bad)
		}
	}
}

func FuzzParseCommit(f *testing.F) {
	f.Add([]byte("tree t\nparent p\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 2 -0130\n\nmsg\n"))
	f.Add([]byte("tree t\n\n"))
	f.Add([]byte("tree t\nauthor <> 99999999999999 +9999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCommit("h", data)
		if err == nil && (c.Hash != "h" || c.Tree == "") {
			t.Errorf("parseCommit accepted %q without a tree: %+v", data, c)
		}
	})
}

func TestParseFollowLog(t *testing.T) {
	out := "\x01aaaa\x00\nM\x00src/core/Alpha.java\x00" +
		"\x01bbbb\x00\nR087\x00src/A.java\x00src/core/Alpha.java\x00" +
		"\x01cccc\x00" + // no entry
		"\x01dddd\x00\nA\x00we\x01ird\nname\x00"
	got, err := parseFollowLog([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []logRecord{
		{"aaaa", FileVersion{Path: "src/core/Alpha.java", Change: Modified}},
		{"bbbb", FileVersion{Path: "src/core/Alpha.java", OldPath: "src/A.java", Change: Renamed, Similarity: 87}},
		{"cccc", FileVersion{Change: Unknown}},
		{"dddd", FileVersion{Path: "we\x01ird\nname", Change: Added}},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(logRecord{})); d != "" {
		t.Errorf("parseFollowLog mismatch (-want +got):\n%s", d)
	}
	for _, bad := range []string{"\nM\x00x\x00", "\x01aaaa\x00\nR100\x00old", "\x01a\x00"} {
		if _, err := parseFollowLog([]byte(bad)); err == nil {
			t.Errorf("parseFollowLog(%q) succeeded, want error", bad)
		}
	}
}

func FuzzParseFollowLog(f *testing.F) {
	f.Add([]byte("\x01aaaa\x00\nM\x00p\x00\x01bbbb\x00\nR100\x00o\x00n\x00"))
	f.Add([]byte("\x01aaaa\x00\nC9999999999999\x00o\x00n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseFollowLog(data)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.v.Similarity < 0 || r.v.Similarity > 100 {
				t.Errorf("similarity %d out of range", r.v.Similarity)
			}
		}
	})
}

func FuzzCacheName(f *testing.F) {
	for _, s := range []string{"https://github.com/a/b.git", "git@h:a/b", "/x/y", "c:\\x\\y", "file:///"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		name, err := CacheName(url)
		if err != nil {
			return
		}
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
			t.Errorf("CacheName(%q) = %q: not a safe directory name", url, name)
		}
	})
}

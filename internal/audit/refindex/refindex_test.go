package refindex

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestWords(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"", nil},
		{"int x = foo_bar(y1);", []string{"int", "x", "foo_bar", "y1"}},
		{"0x1F + 10L - 3rd", nil},
		{"a.b$c _d", []string{"a", "b$c", "_d"}},
		{"// café naïve", []string{"café", "naïve"}},
		{"x\xffy", []string{"x", "y"}},
		{"٣abc δ٣", []string{"δ٣"}}, // Arabic-Indic digit starts a number run
		{strings.Repeat("a", MaxWordLen) + " " + strings.Repeat("b", MaxWordLen+1) + " c", []string{strings.Repeat("a", MaxWordLen), "c"}},
	}
	for _, tt := range tests {
		var got []string
		Words([]byte(tt.src), func(w []byte) { got = append(got, string(w)) })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Words(%q) (-want +got):\n%s", tt.src, diff)
		}
	}
}

func TestIsWord(t *testing.T) {
	for s, want := range map[string]bool{
		"foo": true, "_x1": true, "a$b": true, "café": true, "": false, "1a": false,
		"a b": false, "a-b": false, strings.Repeat("z", 300): true, strings.Repeat("z", 300) + "-": false,
	} {
		if got := IsWord(s); got != want {
			t.Errorf("IsWord(%q) = %v, want %v", s, got, want)
		}
	}
}

// writeTree creates files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[n]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freqs returns every word's frequency.
func freqs(ix *Index) map[string]int {
	m := map[string]int{}
	ix.Each(func(w string, f int) bool { m[w] = f; return true })
	return m
}

var dirCorpus = map[string]string{
	"alpha/src/A.java":       "class Alpha { int shared; String onlyAlpha; }",
	"alpha/src/B.java":       "class Beta { int shared; } // shared twice in one repo",
	"alpha/README.md":        "ignoredWord", // extension not kept
	"alpha/.git/x.java":      "hiddenWord",
	"beta/pkg/mod.py":        "def shared(): return onlyBeta",
	"beta/bin.java":          "binaryWord\x00",
	"gamma.py":               "import shared",
	".hidden/h.py":           "hiddenTop",
	"delta/__pycache__/c.py": "cached",
}

func TestBuildDir(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, dirCorpus)
	ix, err := Build(context.Background(), []Source{{Path: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"class": 1, "Alpha": 1, "Beta": 1, "int": 1, "shared": 3, "String": 1, "onlyAlpha": 1,
		"twice": 1, "in": 1, "one": 1, "repo": 1,
		"def": 1, "return": 1, "onlyBeta": 1, "import": 1,
	}
	if diff := cmp.Diff(want, freqs(ix)); diff != "" {
		t.Errorf("frequencies (-want +got):\n%s", diff)
	}
	if got, want := ix.Names(), []string{"alpha", "beta", "gamma.py"}; !cmp.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if ix.Repos() != 3 {
		t.Errorf("Repos() = %d, want 3", ix.Repos())
	}
	for _, w := range []string{"absent", "ignoredWord", "hiddenWord", "binaryWord", "cached", "", "1x", "shared "} {
		checkRepoFreqs(t, ix, map[string]int{w: 0})
	}
}

// checkRepoFreqs: ix gives each word of want its frequency.
func checkRepoFreqs(t *testing.T, ix *Index, want map[string]int) {
	t.Helper()
	for w, f := range want {
		if got := ix.RepoFreq(w); got != f {
			t.Errorf("RepoFreq(%q) = %d, want %d", w, got, f)
		}
	}
}

func TestBuildZipModules(t *testing.T) {
	zp := filepath.Join(t.TempDir(), "src.zip")
	writeZip(t, zp, map[string]string{
		"java.base/java/lang/String.java":   "public final class String { private final byte[] value; }",
		"java.base/java/lang/Object.java":   "public class Object { }",
		"java.sql/java/sql/Connection.java": "public interface Connection { Object value; }",
		"java.sql/java/sql/Driver.java":     "public interface Driver {}",
		"top.java":                          "class Top { value }",
		"java.sql/META-INF/services/x.txt":  "skipped",
		"jdk.internal/../../escape/E.java":  "escapeWord", // cleaned to escape/E.java
	})
	var calls int
	var last Progress
	ix, err := Build(context.Background(), []Source{{Path: zp, Prefix: "jdk/"}}, Options{Progress: func(p Progress) { calls++; last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ix.Names(), []string{"jdk/escape", "jdk/java.base", "jdk/java.sql", "jdk/top.java"}; !cmp.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	checkRepoFreqs(t, ix, map[string]int{"value": 3, "public": 2, "class": 2, "interface": 1, "Object": 2, "skipped": 0, "escapeWord": 1})
	if !slices.Equal([]int64{int64(calls), last.Files, int64(last.Repos)}, []int64{6, 6, 4}) || last.Bytes != last.Total || last.Total == 0 {
		t.Errorf("progress: %d calls, last %+v; want 6 calls, 6 files, 4 repos, Bytes == Total", calls, last)
	}
}

func TestBuildParquet(t *testing.T) {
	type row struct {
		Repo    string `parquet:"max_stars_repo_name"`
		Path    string `parquet:"max_stars_repo_path"`
		Content string `parquet:"content"`
	}
	rows := []row{
		{"o/a", "A.java", "class A { int shared; }"},
		{"o/b", "b.py", "def shared(): pass"},
		{"o/a", "B.java", "class B { shared }"}, // o/a again, interleaved
		{"", "x.py", "noRepo"},
	}
	p := filepath.Join(t.TempDir(), "stack.parquet")
	writeParquet(t, p, rows)
	ix, err := Build(context.Background(), []Source{{Path: p}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"class": 1, "A": 1, "B": 1, "int": 1, "shared": 2, "def": 1, "pass": 1}
	if diff := cmp.Diff(want, freqs(ix)); diff != "" {
		t.Errorf("frequencies (-want +got):\n%s", diff)
	}
	if ix.Repos() != 2 {
		t.Errorf("Repos() = %d, want 2", ix.Repos())
	}
	_, err = Build(context.Background(), []Source{{Path: p, ContentColumn: "nope"}}, Options{})
	if !isErr(err, errs.ErrInput, "nope") {
		t.Errorf("missing column: err = %v, want ErrInput naming the column", err)
	}
}

// writeParquet writes rows to a Parquet file at path, two rows a group.
func writeParquet[R any](t *testing.T, path string, rows []R) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[R](f, parquet.MaxRowsPerRowGroup(2))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// isErr reports whether err wraps target and mentions text.
func isErr(err, target error, text string) bool {
	return errors.Is(err, target) && strings.Contains(err.Error(), text)
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "bad.zip")
	os.WriteFile(notZip, []byte("not a zip"), 0o644)
	notParquet := filepath.Join(dir, "bad.parquet")
	os.WriteFile(notParquet, []byte("not parquet"), 0o644)
	txt := filepath.Join(dir, "x.txt")
	os.WriteFile(txt, []byte("x"), 0o644)
	for _, tt := range []struct {
		src  []Source
		want error
	}{
		{nil, errs.ErrUsage},
		{[]Source{{Path: filepath.Join(dir, "missing")}}, errs.ErrNotFound},
		{[]Source{{Path: notZip}}, errs.ErrInput},
		{[]Source{{Path: notParquet}}, errs.ErrInput},
		{[]Source{{Path: txt}}, errs.ErrUsage},
	} {
		if _, err := Build(context.Background(), tt.src, Options{}); !errors.Is(err, tt.want) {
			t.Errorf("Build(%v) = %v, want %v", tt.src, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	writeTree(t, dir, map[string]string{"r/a.py": "x"})
	if _, err := Build(ctx, []Source{{Path: dir}}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Build = %v, want context.Canceled", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, dirCorpus)
	ix, err := Build(context.Background(), []Source{{Path: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ref.idx")
	if err := ix.Save(p); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(freqs(ix), freqs(got)); diff != "" {
		t.Errorf("round trip (-built +loaded):\n%s", diff)
	}
	if !cmp.Equal(ix.Names(), got.Names()) || ix.Repos() != got.Repos() {
		t.Errorf("round trip: names %v/%v repos %d/%d", ix.Names(), got.Names(), ix.Repos(), got.Repos())
	}
	if !slices.Equal([]int{got.RepoFreq("shared"), got.RepoFreq("absent")}, []int{3, 0}) {
		t.Errorf("loaded lookups: shared=%d absent=%d", got.RepoFreq("shared"), got.RepoFreq("absent"))
	}
}

func TestLoadBadFiles(t *testing.T) {
	ix, err := ImportCSV(strings.NewReader("alpha,2\nbeta,1\n"), "t.csv", 3)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ix.WriteTo(&buf)
	good := buf.Bytes()
	flip := append([]byte(nil), good...)
	flip[headerSize+2] ^= 0x40
	ver := append([]byte(nil), good...)
	ver[8] = 9
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"short":     good[:10],
		"truncated": good[:len(good)-1],
		"padded":    append(append([]byte(nil), good...), 0),
		"flipped":   flip,
		"version":   ver,
		"text":      []byte("word,count\nfoo,1\n this is not an index at all"),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		_, err := Load(p)
		if !isErr(err, errs.ErrInput, p) {
			t.Errorf("Load(%s) = %v, want ErrInput naming the path", name, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("Load(missing) = %v, want ErrNotFound", err)
	}
}

func TestMergeEqualsUnion(t *testing.T) {
	root := t.TempDir()
	a, b, all := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "all")
	shardA := map[string]string{"r1/x.java": "foo bar baz", "r2/y.py": "foo qux"}
	shardB := map[string]string{"r3/z.go": "foo bar zed", "r4.py": "qux zed aaa"}
	writeTree(t, a, shardA)
	writeTree(t, b, shardB)
	writeTree(t, all, shardA)
	writeTree(t, all, shardB)
	ia, ib, iu := buildDir(t, a), buildDir(t, b), buildDir(t, all)
	m, err := Merge(ia, ib)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(freqs(iu), freqs(m)); diff != "" {
		t.Errorf("merge vs union (-union +merge):\n%s", diff)
	}
	if m.Repos() != iu.Repos() || !cmp.Equal(m.Names(), iu.Names()) {
		t.Errorf("merge repos %d %v, union %d %v", m.Repos(), m.Names(), iu.Repos(), iu.Names())
	}
	if _, err := Merge(ia, ib, ia); !isErr(err, errs.ErrInput, "r1") {
		t.Errorf("overlapping merge = %v, want ErrInput naming r1", err)
	}
	checkMergeImport(t, m)
	if _, err := Merge(); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("Merge() = %v, want ErrUsage", err)
	}
}

// buildDir builds the index of the directory corpus dir.
func buildDir(t *testing.T, dir string) *Index {
	t.Helper()
	ix, err := Build(context.Background(), []Source{{Path: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// checkMergeImport: merging the 4-repository m with an import of 7
// anonymous repositories adds totals and counts.
func checkMergeImport(t *testing.T, m *Index) {
	t.Helper()
	csv, err := ImportCSV(strings.NewReader("foo,5\nnew,1\n"), "c.csv", 7)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Merge(m, csv)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int{m2.Repos(), m2.RepoFreq("foo"), m2.RepoFreq("new"), m2.Anonymous()}, []int{11, 8, 1, 7}) {
		t.Errorf("merge with import: repos %d foo %d new %d anon %d", m2.Repos(), m2.RepoFreq("foo"), m2.RepoFreq("new"), m2.Anonymous())
	}
}

func TestImportCSV(t *testing.T) {
	tests := []struct {
		name, csv string
		repos     int
		want      map[string]int
		wantRepos int
		err       error
		errText   string
	}{
		{name: "header", csv: "word,count\nfoo,3\nbar,1\n", repos: 10, want: map[string]int{"foo": 3, "bar": 1}, wantRepos: 10},
		{name: "third column", csv: "foo,3,50\nbar,1,50\n", want: map[string]int{"foo": 3, "bar": 1}, wantRepos: 50},
		{name: "lower bound", csv: "foo,3\nbar,1\nzero,0\n", want: map[string]int{"foo": 3, "bar": 1}, wantRepos: 3},
		{name: "duplicates add", csv: "foo,3\nfoo,2\n", repos: 9, want: map[string]int{"foo": 5}, wantRepos: 9},
		{name: "swapped", csv: "word,count\n3,foo\n", err: errs.ErrInput, errText: "x.csv:2"},
		{name: "not a word", csv: "foo bar,3\n", err: errs.ErrInput, errText: "x.csv:1"},
		{name: "columns", csv: "foo\n", err: errs.ErrInput, errText: "x.csv:1"},
		{name: "total disagrees", csv: "foo,3,50\nbar,1,51\n", err: errs.ErrInput, errText: "x.csv:2"},
		{name: "repos disagrees", csv: "foo,3,50\n", repos: 40, err: errs.ErrUsage},
		{name: "count above total", csv: "foo,30\n", repos: 10, err: errs.ErrInput},
		{name: "quote", csv: "\"foo,3\n", err: errs.ErrInput, errText: "x.csv:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := ImportCSV(strings.NewReader(tt.csv), "x.csv", tt.repos)
			if tt.err != nil {
				if !isErr(err, tt.err, tt.errText) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, freqs(ix)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if ix.Repos() != tt.wantRepos || ix.Anonymous() != tt.wantRepos {
				t.Errorf("Repos() = %d, Anonymous() = %d, want %d", ix.Repos(), ix.Anonymous(), tt.wantRepos)
			}
		})
	}
}

func TestDefaultSources(t *testing.T) {
	srcs, err := DefaultSources(context.Background())
	if err != nil {
		t.Skipf("no default corpus here: %v", err)
	}
	for _, s := range srcs {
		if _, err := os.Stat(s.Path); err != nil || s.Prefix == "" {
			t.Errorf("default source %+v: %v", s, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	ix, _ := ImportCSV(strings.NewReader("alpha,2\nalphabet,1\nbeta,2\n"), "f", 2)
	var buf bytes.Buffer
	ix.WriteTo(&buf)
	f.Add(buf.Bytes())
	named, _ := newIndex(2, []string{"a/b", "c"}, []string{"x", "xy"}, []uint32{1, 2})
	buf.Reset()
	named.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			ix, err := Decode(data, "fuzz")
			if err != nil {
				if !errors.Is(err, errs.ErrInput) {
					t.Fatalf("error %v does not wrap ErrInput", err)
				}
				return
			}
			// A decoded index round-trips and answers for its own words.
			var out bytes.Buffer
			ix.WriteTo(&out)
			again, err := Decode(out.Bytes(), "again")
			if err != nil {
				t.Fatalf("re-decode: %v", err)
			}
			ix.Each(func(w string, f int) bool {
				if again.RepoFreq(w) != f {
					t.Fatalf("RepoFreq(%q) = %d, want %d", w, again.RepoFreq(w), f)
				}
				return true
			})
		}
		check(data)
		// Fix the checksum so the fuzzer reaches the payload decoder.
		if len(data) >= headerSize+4 {
			check(withChecksum(append([]byte(nil), data...)))
		}
	})
}

// TestDecodeMutations flips every bit of a valid file (re-fixing the
// checksum, so the payload decoder sees the damage) and truncates it at
// every length: Decode must return an index or an ErrInput, never panic.
func TestDecodeMutations(t *testing.T) {
	ix, err := newIndex(5, []string{"r1", "r2"}, []string{"a", "ab", "abc", "b", "zeta"}, []uint32{1, 2, 5, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ix.WriteTo(&buf)
	good := buf.Bytes()
	decoded := 0
	for i := 0; i < len(good)-4; i++ {
		for bit := 0; bit < 8; bit++ {
			m := append([]byte(nil), good...)
			m[i] ^= 1 << bit
			if decodesConsistently(t, withChecksum(m), fmt.Sprintf("byte %d bit %d", i, bit)) {
				decoded++
			}
		}
	}
	for n := 0; n < len(good); n++ {
		if _, err := Decode(good[:n], "t"); !errors.Is(err, errs.ErrInput) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	t.Logf("%d of %d single-bit mutations still decode", decoded, 8*(len(good)-4))
}

// withChecksum sets the last four bytes of m to the CRC-32 of the rest,
// little-endian, and returns m.
func withChecksum(m []byte) []byte {
	c := crc32Checksum(m[:len(m)-4])
	m[len(m)-4], m[len(m)-3], m[len(m)-2], m[len(m)-1] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
	return m
}

// decodesConsistently decodes m: an error must wrap ErrInput; an index
// must give each of its words a frequency in [1, Repos()]. It reports
// whether m decoded.
func decodesConsistently(t *testing.T, m []byte, what string) bool {
	t.Helper()
	got, err := Decode(m, "m")
	if err != nil {
		if !errors.Is(err, errs.ErrInput) {
			t.Fatalf("%s: %v does not wrap ErrInput", what, err)
		}
		return false
	}
	got.Each(func(w string, f int) bool {
		if got.RepoFreq(w) != f || f < 1 || f > got.Repos() {
			t.Fatalf("%s: inconsistent %q=%d", what, w, f)
		}
		return true
	})
	return true
}

// FuzzWords: every word Words yields is a word (IsWord), within the
// length limit, and found in the input in order.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"int x = foo_bar(y1);", "0x1F café δ٣ \xff$a", strings.Repeat("q", 120)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rest := string(src)
		Words(src, func(w []byte) {
			s := string(w)
			if !IsWord(s) || len(s) > MaxWordLen {
				t.Fatalf("Words yielded %q, not a word", s)
			}
			i := strings.Index(rest, s)
			if i < 0 {
				t.Fatalf("word %q not found in order", s)
			}
			rest = rest[i+len(s):]
		})
	})
}

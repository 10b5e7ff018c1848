package ngram

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchforge/benchforge/internal/errs"
)

// writeFiles creates files (relative path → content) under a new temp dir.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func train(t testing.TB, c Corpus, order int) *Model {
	t.Helper()
	m, err := Train(context.Background(), c, Options{Order: order})
	if err != nil {
		t.Fatalf("Train: %v", err)
	}
	return m
}

// probAfter is p(word | prompt) with the prompt tokenized as usual.
func probAfter(m *Model, prompt, word string) float64 {
	s := m.newState(false)
	for _, t := range Tokenize(prompt) {
		m.push(&s, m.id(t.Text))
	}
	return m.prob(&s, m.id(word))
}

func sumNext(m *Model, prompt string) float64 {
	s := m.newState(false)
	for _, t := range Tokenize(prompt) {
		m.push(&s, m.id(t.Text))
	}
	sum := 0.0
	for w := range m.vocab {
		sum += m.prob(&s, uint32(w))
	}
	return sum
}

// TestKneserNeyHandComputed checks interpolated modified Kneser–Ney on the
// one-file corpus "a b a b a c" (tokens a, " b", " a", " b", " a", " c")
// against values worked out by hand:
//
//	bigrams (raw counts): <s> a:1, a " b":1, " b" " a":2, " a" " b":1, " a" " c":1, " c" </s>:1
//	order-2 counts of counts n1=5 n2=1 → Y=5/7, D1 = 1-2Y·n2/n1 = 5/7 (D2, D3 fall back)
//	unigram continuation counts: a 1, " b" 2, " a" 1, " c" 1, </s> 1 → n1=4 n2=1, Y=2/3, D1=2/3, D2=1
//	unigram: den 6, γ = (4·2/3 + 1·1)/6 = 11/18, uniform 1/6 (7 ids minus <s>)
//	p(" b") = 1/6 + 11/108 = 29/108; p(" c") = p(" a") = (1/3)/6 + 11/108 = 17/108
//	context " a": den 2, γ = D1 = 5/7
//	p(" b"|" a") = (2/7)/2 + 5/7·29/108 = 253/756; p(" c"|" a") = 193/756; p(" a"|" a") = 85/756
func TestKneserNeyHandComputed(t *testing.T) {
	dir := writeFiles(t, map[string]string{"x.java": "a b a b a c"})
	m := train(t, Corpus{Paths: []string{dir}}, 2)
	if diff := cmp.Diff([3]float64{5.0 / 7, 1, 1.5}, m.Discounts(2), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("order-2 discounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([3]float64{2.0 / 3, 1, 1.5}, m.Discounts(1), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("order-1 discounts (-want +got):\n%s", diff)
	}
	tests := []struct {
		prompt, word string
		want         float64
	}{
		{"", " b", 29.0 / 108},
		{"", " c", 17.0 / 108},
		{"", "a", 17.0 / 108},
		{"", "zzz", 11.0 / 108}, // <unk>: only the uniform share
		{"a a", " b", 253.0 / 756},
		{"a a", " c", 193.0 / 756},
		{"a a", " a", 85.0 / 756},
		{"zzz", " b", 29.0 / 108}, // unknown context backs off to unigrams
	}
	for _, tt := range tests {
		if got := probAfter(m, tt.prompt, tt.word); math.Abs(got-tt.want) > 1e-7 {
			t.Errorf("p(%q | %q) = %.9f, want %.9f", tt.word, tt.prompt, got, tt.want)
		}
	}
	for _, prompt := range []string{"", "a", "a a", "a b", "a c", "zzz"} {
		if got := sumNext(m, prompt); math.Abs(got-1) > 1e-6 {
			t.Errorf("next-token distribution after %q sums to %.9f, want 1", prompt, got)
		}
	}
}

var javaCorpus = map[string]string{
	"src/a/Stack.java": `package a;

public class Stack<T> {
    private Object[] items = new Object[16];
    private int size;

    public void push(T item) {
        if (size == items.length) {
            items = java.util.Arrays.copyOf(items, size * 2);
        }
        items[size++] = item;
    }

    @SuppressWarnings("unchecked")
    public T pop() {
        if (size == 0) {
            throw new IllegalStateException("pop from an empty stack");
        }
        T item = (T) items[--size];
        items[size] = null;
        return item;
    }
}
`,
	"src/a/Counter.java": `package a;

public class Counter {
    private int count;

    public void increment() {
        count++;
    }

    public int get() {
        return count;
    }
}
`,
	"src/b/Pair.java": `package b;

public final class Pair<A, B> {
    private final A first;
    private final B second;

    public Pair(A first, B second) {
        this.first = first;
        this.second = second;
    }

    public A first() {
        return first;
    }
}
`,
	"README.md": "not code",
}

func TestDistributionSumsToOne(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 4)
	for _, prompt := range []string{"", "public", "    public void", "if (size ==", "return count;\n", "never seen tokens here"} {
		if got := sumNext(m, prompt); math.Abs(got-1) > 1e-5 {
			t.Errorf("next-token distribution after %q sums to %.9f, want 1", prompt, got)
		}
	}
}

// TestMemorisedContinuation: a file seen three times (vendored copies, the
// repetitiveness of benchchecker §3.3) is reproduced by greedy decoding.
func TestMemorisedContinuation(t *testing.T) {
	src, dir := stackThrice(t)
	m := train(t, Corpus{Paths: []string{dir}}, 6)
	prompt := src[:strings.Index(src, "throw new")+len("throw new")]
	want := src[len(prompt):strings.Index(src, "T item = ")]
	got, err := m.Sample(context.Background(), prompt, SampleOptions{MaxTokens: len(Tokenize(want)), Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Text != want {
		t.Errorf("greedy continuation = %q, want %q", got[0].Text, want)
	}
	if sum := Summarize(m.Score(prompt, want)); sum.MeanLogProb < -0.7 {
		t.Errorf("memorised continuation mean logprob %.3f, want > -0.7", sum.MeanLogProb)
	}
}

func TestUnseenCodeScoresLower(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 6)
	seen := Summarize(m.ScoreText(javaCorpus["src/a/Counter.java"]))
	unseen := Summarize(m.ScoreText(`import os

def walk(root):
    for name in sorted(os.listdir(root)):
        yield os.path.join(root, name)
`))
	if seen.MeanLogProb-unseen.MeanLogProb < 3 {
		t.Errorf("mean logprob seen %.3f vs unseen %.3f: want the unseen text at least 3 nats/token lower", seen.MeanLogProb, unseen.MeanLogProb)
	}
	if unseen.Unknown == 0 || math.IsInf(unseen.SumLogProb, 0) || math.IsNaN(unseen.SumLogProb) {
		t.Errorf("unseen summary %+v: want unknown tokens with finite log-probs", unseen)
	}
}

func TestScoreOffsetsAndContext(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 6)
	prompt, cont := "    public int get() {\n", "        return count;\n    }"
	scores := m.Score(prompt, cont)
	// The newline-and-indent token straddles the boundary and is scored whole.
	start := strings.LastIndex(prompt, "\n")
	var b strings.Builder
	for _, s := range scores {
		if s.Offset != start+b.Len() {
			t.Fatalf("token %q offset %d, want %d", s.Token, s.Offset, start+b.Len())
		}
		b.WriteString(s.Token)
	}
	if want := (prompt + cont)[start:]; b.String() != want {
		t.Fatalf("scored tokens %q, want %q", b.String(), want)
	}
	with := Summarize(scores).MeanLogProb
	without := Summarize(m.ScoreText(cont)).MeanLogProb
	if with <= without {
		t.Errorf("context should help: mean logprob with prompt %.3f, without %.3f", with, without)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 5)
	path := filepath.Join(t.TempDir(), "m.bfng")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Stats(), got.Stats()); diff != "" {
		t.Errorf("stats differ after load (-saved +loaded):\n%s", diff)
	}
	for _, text := range []string{javaCorpus["src/b/Pair.java"], "unseen zebra code();"} {
		if diff := cmp.Diff(m.ScoreText(text), got.ScoreText(text)); diff != "" {
			t.Errorf("scores differ after load (-saved +loaded):\n%s", diff)
		}
	}
	opts := SampleOptions{N: 3, MaxTokens: 20, Temperature: 1, Seed: 7}
	a, _ := m.Sample(context.Background(), "public", opts)
	b, _ := got.Sample(context.Background(), "public", opts)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("samples differ after load (-saved +loaded):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 3)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bfng")
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	cases := map[string][]byte{
		"empty.bfng":     {},
		"truncated.bfng": data[:len(data)-9],
		"magic.bfng":     append([]byte("XXXX"), data[4:]...),
		"flipped.bfng":   flipped,
		"text.bfng":      []byte("hello, I am not a model\n"),
	}
	for name, body := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%s) error = %v, want ErrInput naming the path", name, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.bfng")); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("Load(missing) error = %v, want ErrNotFound", err)
	}
}

func TestSampleOptions(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 6)
	ctx := context.Background()
	opts := SampleOptions{N: 4, MaxTokens: 30, Temperature: 1.2, Seed: 42}
	a, err := m.Sample(ctx, "public", opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.Sample(ctx, "public", opts)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed gave different samples:\n%s", diff)
	}
	distinct := map[string]bool{}
	for _, c := range a {
		distinct[c.Text] = true
		if strings.Join(c.Tokens, "") != c.Text || len(c.Tokens) != len(c.LogProbs) {
			t.Errorf("completion %+v: tokens must concatenate to the text, one logprob each", c)
		}
		for _, lp := range c.LogProbs {
			if lp > 0 || math.IsNaN(lp) || math.IsInf(lp, 0) {
				t.Errorf("bad logprob %v in %+v", lp, c)
			}
		}
	}
	if len(distinct) < 2 {
		t.Errorf("4 samples at temperature 1.2 were all identical: %q", a[0].Text)
	}
	full, _ := m.Sample(ctx, "public", SampleOptions{MaxTokens: 20, Temperature: 0})
	cut := strings.Index(full[0].Text, "class")
	if cut < 0 {
		t.Fatalf("greedy text %q has no 'class' to stop at", full[0].Text)
	}
	stop, _ := m.Sample(ctx, "public", SampleOptions{MaxTokens: 20, Temperature: 0, Stop: []string{"zz", "class"}})
	if stop[0].Text != full[0].Text[:cut] || stop[0].FinishReason != FinishStop || strings.Join(stop[0].Tokens, "") != stop[0].Text {
		t.Errorf("stop at 'class': got %+v, want text %q", stop[0], full[0].Text[:cut])
	}
	eof, _ := m.Sample(ctx, "        return item;\n    }\n", SampleOptions{MaxTokens: 50, Temperature: 0})
	if eof[0].Text != "}\n" || eof[0].FinishReason != FinishStop {
		t.Errorf("end of file: got %q (%s), want \"}\\n\" (stop)", eof[0].Text, eof[0].FinishReason)
	}
	length, _ := m.Sample(ctx, "public", SampleOptions{MaxTokens: 3, Temperature: 0.5, TopK: 2, TopP: 0.9, Seed: 1})
	if len(length[0].Tokens) != 3 || length[0].FinishReason != FinishLength {
		t.Errorf("max tokens 3: got %+v", length[0])
	}
	if _, err := m.Sample(ctx, "x", SampleOptions{Temperature: -1}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("negative temperature: error %v, want ErrUsage", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Sample(cctx, "x", SampleOptions{MaxTokens: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: error %v", err)
	}
}

func writeZip(t testing.TB, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "src.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(w, files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestCorpusSelection(t *testing.T) {
	dir := writeFiles(t, javaCorpus)
	zipPath := writeZip(t, javaCorpus)
	bin := writeFiles(t, map[string]string{"x.java": "int\x00 binary"})
	tests := []struct {
		name      string
		c         Corpus
		wantFiles int
	}{
		{"default include skips README", Corpus{Paths: []string{dir}}, 3},
		{"zip", Corpus{Paths: []string{zipPath}}, 3},
		{"include dir glob", Corpus{Paths: []string{zipPath}, Include: []string{"src/a/**"}}, 2},
		{"exclude base name", Corpus{Paths: []string{dir}, Exclude: []string{"Pair.*"}}, 2},
		{"include md", Corpus{Paths: []string{dir}, Include: []string{"*.md"}}, 1},
		{"max bytes", Corpus{Paths: []string{dir}, MaxBytes: 10}, 1},
		{"dir and zip", Corpus{Paths: []string{dir, zipPath}}, 6},
		{"binary skipped", Corpus{Paths: []string{dir, bin}}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Train(context.Background(), tt.c, Options{Order: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Stats().Files; got != tt.wantFiles {
				t.Errorf("files = %d, want %d", got, tt.wantFiles)
			}
		})
	}
	errCases := []struct {
		name string
		c    Corpus
		want error
	}{
		{"no paths", Corpus{}, errs.ErrUsage},
		{"missing path", Corpus{Paths: []string{filepath.Join(dir, "nope")}}, errs.ErrNotFound},
		{"nothing selected", Corpus{Paths: []string{dir}, Include: []string{"*.nothing"}}, errs.ErrInput},
		{"bad zip", Corpus{Paths: []string{filepath.Join(writeFiles(t, map[string]string{"a.zip": "PK junk"}), "a.zip")}}, errs.ErrInput},
	}
	for _, tt := range errCases {
		if _, err := Train(context.Background(), tt.c, Options{}); !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := Train(context.Background(), Corpus{Paths: []string{dir}}, Options{Order: 99}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("order 99: error %v, want ErrUsage", err)
	}
	var calls int
	var last [2]int64
	_, err := Train(context.Background(), Corpus{Paths: []string{dir}}, Options{Progress: func(done, total int64) { calls++; last = [2]int64{done, total} }})
	if err != nil || calls != 3 || last[0] != last[1] || last[1] == 0 {
		t.Errorf("progress: %d calls, last %v, err %v; want 3 calls ending at done == total", calls, last, err)
	}
}

func TestOrderOne(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 1)
	if got := sumNext(m, "public class"); math.Abs(got-1) > 1e-9 {
		t.Errorf("unigram model sums to %v", got)
	}
	if _, err := m.Sample(context.Background(), "x", SampleOptions{MaxTokens: 5, Temperature: 1}); err != nil {
		t.Error(err)
	}
}

// jdkSrcZip returns a JDK src.zip on this machine, or skips the test.
func jdkSrcZip(t testing.TB) string {
	if p, _ := jdkZipSize(); p != "" {
		return p
	}
	t.Skip("no JDK src.zip on this machine")
	return ""
}

// jdkZips are the JDK sources jdkSrcZip looks for, first found first.
var jdkZips = []string{
	"/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
	"/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip",
}

// TestJDKSliceHitRate trains on a slice of java.util and checks the
// assumption of benchchecker §3.3 on a real corpus: greedy decoding
// reproduces 8-token suffixes of a training file far more often than of an
// unseen file from the same package.
func TestJDKSliceHitRate(t *testing.T) {
	zp := jdkSrcZip(t)
	c := Corpus{Paths: []string{zp}, Include: []string{"java.base/java/util/*.java"}}
	all, _, closeAll, err := c.files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	c.MaxBytes = 1 << 20
	sel, _, closeSel, err := c.files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer closeSel()
	m := train(t, c, 6)
	read := func(f sourceFile) string {
		var b bytes.Buffer
		if _, err := readSource(f, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	hitRate := func(src string) float64 {
		toks := Tokenize(src)
		hits, n := 0, 0
		for i := 50; i+8 < len(toks) && n < 40; i += max(1, len(toks)/40) {
			prompt, want := src[:toks[i].Offset], src[toks[i].Offset:toks[i+8].Offset]
			got, err := m.Sample(context.Background(), prompt, SampleOptions{MaxTokens: 8, Temperature: 0})
			if err != nil {
				t.Fatal(err)
			}
			n++
			if got[0].Text == want {
				hits++
			}
		}
		return float64(hits) / float64(n)
	}
	seen := hitRate(read(sel[0]))
	// The unseen file: the largest one left out of the slice.
	big := all[len(sel)]
	for _, f := range all[len(sel):] {
		if f.size > big.size {
			big = f
		}
	}
	unseen := hitRate(read(big))
	t.Logf("greedy 8-token hit rate: seen %s %.2f, unseen %s %.2f", sel[0].name, seen, big.name, unseen)
	if seen < 0.15 || seen < 3*unseen {
		t.Errorf("hit rate seen %.2f, unseen %.2f: want seen >= 0.15 and >= 3x unseen", seen, unseen)
	}
}

package diff

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// randomText makes a text of n lines over a small alphabet (so lines
// repeat, as braces and blank lines do in code), optionally CRLF and
// optionally without a final newline.
func randomText(r *rand.Rand, n, alphabet int, crlf, noFinalNL bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d", r.IntN(alphabet))
		if crlf {
			b.WriteByte('\r')
		}
		if i < n-1 || !noFinalNL {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// mutate applies a few random line edits to s.
func mutate(r *rand.Rand, s string, edits, alphabet int) string {
	lines := splitLines(s)
	for e := 0; e < edits; e++ {
		i := 0
		if len(lines) > 0 {
			i = r.IntN(len(lines) + 1)
		}
		switch r.IntN(3) {
		case 0: // insert
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d\n", r.IntN(alphabet))}, lines[i:]...)...)
		case 1: // delete
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2: // replace
			if i < len(lines) {
				lines[i] = fmt.Sprintf("line %d\n", r.IntN(alphabet))
			}
		}
	}
	return strings.Join(lines, "")
}

// lcs is the textbook dynamic programme, for checking minimality.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TestUnifiedProperty: for many random pairs, applying Unified(old, new)
// to old gives new, reversing it takes new back to old, the rendering
// parses back to the same FileDiff, and the edit script is minimal.
func TestUnifiedProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		old, new, ctx := randomPair(r)
		fd := Unified("a/f", "b/f", []byte(old), []byte(new), ctx)
		desc := fmt.Sprintf("iter %d ctx %d\nold %q\nnew %q\npatch:\n%s", iter, ctx, old, new, fd)
		checkStrictRoundTrip(t, fd, old, new, desc)
		if old == new {
			if len(fd.Hunks) != 0 {
				t.Fatalf("hunks for equal texts\n%s", desc)
			}
			continue
		}
		again, err := ParseString(fd.String())
		if err != nil || len(again) != 1 || !reflect.DeepEqual(again[0], fd) {
			t.Fatalf("reparse = %+v, %v\n%s", again, err, desc)
		}
		checkMinimal(t, fd, old, new, desc)
	}
}

// randomPair draws an old text and a new one (usually a mutation of old,
// sometimes unrelated) and a context size.
func randomPair(r *rand.Rand) (old, new string, ctx int) {
	n := r.IntN(40)
	alphabet := 1 + r.IntN(12)
	crlf := r.IntN(5) == 0
	old = randomText(r, n, alphabet, crlf, r.IntN(4) == 0)
	if r.IntN(10) == 0 {
		new = randomText(r, r.IntN(40), alphabet, crlf, r.IntN(4) == 0)
	} else {
		new = mutate(r, old, 1+r.IntN(6), alphabet)
	}
	return old, new, r.IntN(5)
}

// checkStrictRoundTrip: fd takes old to new and its reverse new to old,
// with no fuzz and no offset.
func checkStrictRoundTrip(t *testing.T, fd *FileDiff, old, new, desc string) {
	t.Helper()
	got, err := Apply([]byte(old), fd, ApplyOptions{Fuzz: -1, MaxOffset: -1})
	if err != nil || string(got) != new {
		t.Fatalf("Apply = %q, %v\n%s", got, err, desc)
	}
	back, err := Apply([]byte(new), Reverse(fd), ApplyOptions{Fuzz: -1, MaxOffset: -1})
	if err != nil || string(back) != old {
		t.Fatalf("Apply(Reverse) = %q, %v\n%s", back, err, desc)
	}
}

// checkMinimal: fd adds and deletes exactly the lines outside an LCS.
func checkMinimal(t *testing.T, fd *FileDiff, old, new, desc string) {
	t.Helper()
	added, deleted := fd.Stats()
	a, b := splitLines(old), splitLines(new)
	if common := lcs(a, b); added != len(b)-common || deleted != len(a)-common {
		t.Fatalf("not minimal: +%d -%d, LCS %d of %d/%d\n%s", added, deleted, common, len(a), len(b), desc)
	}
}

// TestUnifiedTools checks Unified's output against the real tools: git
// apply accepts it and produces the new file, and it has as many changed
// lines as `diff --minimal`.
func TestUnifiedTools(t *testing.T) {
	for _, tool := range []string{"git", "diff"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for iter := 0; iter < 20; iter++ {
		old := randomText(r, 200, 30, false, iter%3 == 0)
		new := mutate(r, old, 10, 30)
		oldF, newF := filepath.Join(dir, "f"), filepath.Join(dir, "new")
		write := func(p, s string) { writeFile(t, p, s) }
		write(oldF, old)
		write(newF, new)
		fd := Unified("a/f", "b/f", []byte(old), []byte(new), 3)
		write(filepath.Join(dir, "p"), fd.String())
		checkGitApplies(t, iter, dir, fd, oldF, new)
		write(oldF, old)
		checkStatsMatchGNU(t, iter, fd, oldF, newF)
	}
}

// checkGitApplies runs `git apply p` in dir and checks that it turns
// oldF into new.
func checkGitApplies(t *testing.T, iter int, dir string, fd *FileDiff, oldF, new string) {
	t.Helper()
	cmd := exec.Command("git", "apply", "--unsafe-paths", "--directory=.", "p")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("iter %d: git apply: %v\n%s\n%s", iter, err, out, fd)
	}
	if got := mustRead(t, oldF); got != new {
		t.Fatalf("iter %d: git apply result differs", iter)
	}
}

// checkStatsMatchGNU: fd changes as many lines as `diff --minimal`.
func checkStatsMatchGNU(t *testing.T, iter int, fd *FileDiff, oldF, newF string) {
	t.Helper()
	gnu, _ := exec.Command("diff", "--minimal", "-u", oldF, newF).Output()
	files, err := ParseBytes(gnu)
	if err != nil || len(files) != 1 {
		t.Fatalf("iter %d: parse GNU diff output: %v", iter, err)
	}
	ga, gd := files[0].Stats()
	a, d := fd.Stats()
	if ga != a || gd != d {
		t.Errorf("iter %d: Unified +%d -%d, diff --minimal +%d -%d", iter, a, d, ga, gd)
	}
}

func TestUnifiedLarge(t *testing.T) {
	old, new := largePair(10000, 50)
	fd := Unified("a", "b", old, new, 3)
	got, err := Apply(old, fd, ApplyOptions{Fuzz: -1, MaxOffset: -1})
	if err != nil || string(got) != string(new) {
		t.Fatalf("Apply: %v", err)
	}
	if len(fd.Hunks) < 40 {
		t.Errorf("%d hunks for 50 scattered edits", len(fd.Hunks))
	}
	// Unrelated files must not go quadratic.
	r := rand.New(rand.NewPCG(5, 6))
	a := randomText(r, 20000, 1<<30, false, false)
	b := strings.ReplaceAll(randomText(r, 20000, 1<<30, false, false), "line", "other")
	fd = Unified("a", "b", []byte(a), []byte(b), 3)
	if added, deleted := fd.Stats(); added != 20000 || deleted != 20000 {
		t.Errorf("unrelated: +%d -%d", added, deleted)
	}
}

// largePair is a 10k-line Java-like file and a copy with edits scattered
// through it.
func largePair(n, edits int) (old, new []byte) {
	r := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "  public int method%d(int x) {\n", i)
		case 9:
			b.WriteString("  }\n")
		case 5:
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "    x = x * %d + %d;\n", r.IntN(100), i)
		}
	}
	lines := splitLines(b.String())
	out := append([]string(nil), lines...)
	for e := 0; e < edits; e++ {
		i := (e*len(out))/edits + r.IntN(len(out)/edits)
		out[i] = fmt.Sprintf("    x = changed(%d);\n", e)
	}
	return []byte(b.String()), []byte(strings.Join(out, ""))
}

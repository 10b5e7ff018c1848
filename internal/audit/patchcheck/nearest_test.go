package patchcheck

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/textsim"
)

// nearestAll is nearest without pruning: every candidate's distance, then
// a stable sort.
func nearestAll(text string, sc scope, k int) []int {
	type cd struct {
		i int
		d float64
	}
	var cs []cd
	for _, li := range sc.lines {
		t := sc.snap.lines[li].text
		if sc.snap.lines[li].trivial || !sc.free(li) {
			continue
		}
		if la, lb := len(text), len(t); 10*abs(la-lb) > 7*max(la, lb) {
			continue
		}
		cs = append(cs, cd{li, float64(textsim.Levenshtein(text, t)) / float64(max(len(text), len(t), 1))})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := []int{}
	for i := 0; i < len(cs) && i < k; i++ {
		out = append(out, cs[i].i)
	}
	return out
}

// TestNearestPrunesExactly: skipping lines whose length bound cannot beat
// the k-th best changes neither the lines nor their order (ties, repeated
// texts and lines of equal distance included).
func TestNearestPrunesExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"if", "(", "x", "==", "null", ")", "return", ";", "a", ".", "length", "i", "<", "n", "{"}
	line := func() string {
		var b []string
		for range 1 + rng.IntN(9) {
			b = append(b, words[rng.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	for range 400 {
		v := &version{}
		var idx []int
		for i := range 1 + rng.IntN(40) {
			v.lines = append(v.lines, nline{text: line(), trivial: rng.IntN(10) == 0})
			idx = append(idx, i)
		}
		sc := scope{snap: v, lines: idx}
		text := line()
		for _, k := range []int{1, 2, 3, 5, 50} {
			if got, want := nearest(text, sc, k), nearestAll(text, sc, k); !slices.Equal(got, want) {
				t.Fatalf("k=%d, %q: nearest %v, unpruned %v", k, text, got, want)
			}
		}
	}
}

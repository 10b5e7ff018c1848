package grounded

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestPairQueueExhaustsBeforeReuse: every block of C(N,2) consecutive draws
// is exactly the set of all distinct pairs, so no pair repeats before all
// were used; the order differs between cycles and is fixed by the seed.
func TestPairQueueExhaustsBeforeReuse(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 12, 40} {
		checkPairQueue(t, n)
	}
	if _, err := NewPairQueue(1, 1, "x"); err == nil {
		t.Error("NewPairQueue(1) succeeded")
	}
	if _, err := NewPairQueue(5000, 1, "x"); err == nil {
		t.Error("NewPairQueue(5000) succeeded past MaxPairs")
	}
}

// checkPairQueue checks three cycles of a queue over n seeds: each a
// permutation of all pairs, the first two in different orders, the same
// draws from a fresh queue asked out of order, another order for another
// seed.
func checkPairQueue(t *testing.T, n int) {
	t.Helper()
	q, err := NewPairQueue(n, 7, "NPE")
	testcheck.Must(t, err)
	p := n * (n - 1) / 2
	if q.Len() != p {
		t.Fatalf("n=%d: Len %d, want %d", n, q.Len(), p)
	}
	var cycles [][]string
	for c := 0; c < 3; c++ {
		cycles = append(cycles, drawCycle(t, q, n, c))
	}
	if p >= 6 && slices.Equal(cycles[0], cycles[1]) {
		t.Errorf("n=%d: cycle 1 repeats cycle 0's order", n)
	}
	// Determinism: a fresh queue, asked out of order, agrees.
	q2, _ := NewPairQueue(n, 7, "NPE")
	for k := 3*p - 1; k >= 0; k -= max(1, p/3) {
		i, j := q2.Pair(k)
		if got := fmt.Sprint(i, j); got != cycles[k/p][k%p] {
			t.Fatalf("n=%d draw %d: %s on a fresh queue, %s before", n, k, got, cycles[k/p][k%p])
		}
	}
	q3, _ := NewPairQueue(n, 8, "NPE")
	if other := pairOrder(q3, p); p >= 6 && slices.Equal(other, cycles[0]) {
		t.Errorf("n=%d: seeds 7 and 8 give the same order", n)
	}
}

// drawCycle draws cycle c of q's pairs over n seeds, stopping the test at
// a pair that is not i < j < n or repeats within the cycle, and returns
// the draws as "i j".
func drawCycle(t *testing.T, q *PairQueue, n, c int) []string {
	t.Helper()
	p := q.Len()
	seen := map[[2]int]bool{}
	var order []string
	for k := 0; k < p; k++ {
		i, j := q.Pair(c*p + k)
		if i < 0 || j >= n || i >= j {
			t.Fatalf("n=%d draw %d: bad pair (%d,%d)", n, c*p+k, i, j)
		}
		if seen[[2]int{i, j}] {
			t.Fatalf("n=%d cycle %d: pair (%d,%d) reused after %d of %d draws", n, c, i, j, k, p)
		}
		seen[[2]int{i, j}] = true
		order = append(order, fmt.Sprint(i, j))
	}
	return order
}

// pairOrder is q's first p draws as "i j".
func pairOrder(q *PairQueue, p int) []string {
	var order []string
	for k := 0; k < p; k++ {
		i, j := q.Pair(k)
		order = append(order, fmt.Sprint(i, j))
	}
	return order
}

func TestUnrankCoversAllPairs(t *testing.T) {
	for n := 2; n < 9; n++ {
		var got [][2]int
		for k := 0; k < n*(n-1)/2; k++ {
			i, j := unrank(n, k)
			got = append(got, [2]int{i, j})
		}
		var want [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				want = append(want, [2]int{i, j})
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("n=%d (-want +got):\n%s", n, d)
		}
	}
}

// TestRotationAvoidsRecentSeeds: no seed repeats within window+1 draws,
// the bands are visited in turn and split by size, every seed is used
// within the first N draws, and the sequence is fixed by the seed.
func TestRotationAvoidsRecentSeeds(t *testing.T) {
	tests := []struct {
		sizes         []int
		bands, window int
	}{
		{[]int{3, 40, 12, 7, 25, 5, 18, 9, 30}, 3, 5},
		{[]int{4, 4, 4, 4, 4, 4}, 3, 2},
		{[]int{10, 2}, 3, 5}, // window capped at N-1 = 1; bands at N = 2
		{[]int{8}, 3, 5},     // one seed: always it
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 4, 6},
	}
	for _, tc := range tests {
		name := fmt.Sprint(tc.sizes)
		r, err := NewRotation(tc.sizes, tc.bands, tc.window, 3, "k1")
		testcheck.Must(t, err)
		n := len(tc.sizes)
		bands := r.Bands()
		bandOf := checkBandsBySize(t, name, tc.sizes, bands)
		var seq []int
		for m := 0; m < 5*n+7; m++ {
			seq = append(seq, r.Draw(m))
		}
		checkRotationSequence(t, name, seq, bandOf, n, len(bands), min(tc.window, n-1))
		r2, _ := NewRotation(tc.sizes, tc.bands, tc.window, 3, "k1")
		if got := r2.Draw(len(seq) - 1); got != seq[len(seq)-1] {
			t.Errorf("%s: a fresh rotation's last draw is %d, want %d", name, got, seq[len(seq)-1])
		}
	}
	if _, err := NewRotation(nil, 3, 5, 1, "x"); err == nil {
		t.Error("NewRotation(nil) succeeded")
	}
}

// checkBandsBySize checks that every band's sizes are at least the band
// below's, and returns each seed's band.
func checkBandsBySize(t *testing.T, name string, sizes []int, bands [][]int) map[int]int {
	t.Helper()
	bandOf := map[int]int{}
	for b, ss := range bands {
		for _, s := range ss {
			bandOf[s] = b
		}
		if b == 0 {
			continue
		}
		for _, s := range ss {
			for _, lower := range bands[b-1] {
				if sizes[lower] > sizes[s] {
					t.Errorf("%s: band %d holds size %d below band %d's %d", name, b, sizes[s], b-1, sizes[lower])
				}
			}
		}
	}
	return bandOf
}

// checkRotationSequence checks a rotation's draws of n seeds in nbands
// bands: no seed repeats within window w, and, when the bands split the
// seeds evenly, the bands come in turn and the first n draws use every
// seed.
func checkRotationSequence(t *testing.T, name string, seq []int, bandOf map[int]int, n, nbands, w int) {
	t.Helper()
	for m, s := range seq {
		for k := max(0, m-w); k < m; k++ {
			if seq[k] == s {
				t.Errorf("%s: seed %d drawn at %d and again at %d (window %d)", name, s, k, m, w)
			}
		}
		if n%nbands == 0 && bandOf[s] != m%nbands {
			t.Errorf("%s: draw %d from band %d, want band %d", name, m, bandOf[s], m%nbands)
		}
	}
	if n%nbands == 0 {
		first := map[int]bool{}
		for _, s := range seq[:n] {
			first[s] = true
		}
		if len(first) != n {
			t.Errorf("%s: first %d draws use only %d distinct seeds: %v", name, n, len(first), seq[:n])
		}
	}
}

func TestSizeFor(t *testing.T) {
	tests := []struct {
		llocs []int
		tol   float64
		min   int
		want  Size
	}{
		{[]int{10}, 0.4, 3, Size{Target: 10, Lo: 6, Hi: 14}},
		{[]int{10, 20}, 0.4, 3, Size{Target: 15, Lo: 9, Hi: 21, Between: [2]int{10, 20}}},
		{[]int{20, 10}, 0.4, 3, Size{Target: 15, Lo: 9, Hi: 21, Between: [2]int{10, 20}}},
		{[]int{7, 8}, 0.4, 3, Size{Target: 8, Lo: 5, Hi: 11, Between: [2]int{7, 8}}}, // 7.5 rounds half away from zero
		{[]int{12, 12}, 0.4, 3, Size{Target: 12, Lo: 8, Hi: 16}},
		{[]int{5}, 0.4, 3, Size{Target: 5, Lo: 3, Hi: 7}},
		{[]int{1}, 0.4, 3, Size{Target: 3, Lo: 2, Hi: 4}},     // raised to the gate's minimum
		{[]int{0, 9}, 0.4, 3, Size{Target: 9, Lo: 6, Hi: 12}}, // unmeasured exemplar ignored
		{[]int{0}, 0.4, 3, Size{}},
		{nil, 0.4, 3, Size{}},
		{[]int{100}, 0.25, 3, Size{Target: 100, Lo: 75, Hi: 125}},
	}
	for _, tc := range tests {
		if got := SizeFor(tc.llocs, tc.tol, tc.min); got != tc.want {
			t.Errorf("SizeFor(%v, %g, %d) = %+v, want %+v", tc.llocs, tc.tol, tc.min, got, tc.want)
		}
	}
}

func TestTargets(t *testing.T) {
	var seeds []corpus.Seed
	add := func(typ string, n int) {
		for i := 0; i < n; i++ {
			seeds = append(seeds, corpus.Seed{BugID: fmt.Sprintf("%s-%d", typ, i), Exception: typ})
		}
	}
	// The paper's pool (§3.3): 170 seeds.
	add(corpus.NullPointer, 76)
	add(corpus.IllegalArgument, 37)
	add(corpus.IllegalState, 21)
	add(corpus.ArrayIndexOOB, 14)
	add(corpus.ClassCast, 10)
	add(corpus.StringIndexOOB, 7)
	add(corpus.NumberFormat, 5)
	got := Targets(seeds, 4900, 500, 1000)
	want := map[string]int{
		corpus.NullPointer: 1000, corpus.IllegalArgument: 1000, corpus.IllegalState: 605,
		corpus.ArrayIndexOOB: 500, corpus.ClassCast: 500, corpus.StringIndexOOB: 500, corpus.NumberFormat: 500,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Targets (-want +got):\n%s", d)
	}
	if got := Targets(seeds[:3], 10, 0, 0); got[corpus.NullPointer] != 10 || len(got) != 1 {
		t.Errorf("one type, no floor or cap: %v", got)
	}
	if got := Targets(nil, 10, 5, 9); len(got) != 0 {
		t.Errorf("no seeds: %v", got)
	}
}

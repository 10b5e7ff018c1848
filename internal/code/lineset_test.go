package code

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLineSetMatchesMap checks membership and the distinct count against
// a map, with repeated hashes, the zero hash and colliding low bits.
func TestLineSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(300)
		var hs []uint64
		want := map[uint64]bool{}
		for i := 0; i < n; i++ {
			h := r.Uint64()
			switch r.IntN(5) {
			case 0:
				h = 0
			case 1:
				h &= 0xFF00000000000000 // same low bits: one probe chain
			case 2:
				if len(hs) > 0 {
					h = hs[r.IntN(len(hs))]
				}
			}
			hs = append(hs, h)
			want[h] = true
		}
		s := newLineSet(hs)
		if s.len() != len(want) {
			t.Fatalf("trial %d: len %d, want %d", trial, s.len(), len(want))
		}
		for _, k := range s.keys {
			if !want[k] {
				t.Fatalf("trial %d: key %x not inserted", trial, k)
			}
		}
		for i := 0; i < 2*n+10; i++ {
			h := r.Uint64()
			if i < len(hs) {
				h = hs[i]
			} else if i%3 == 0 {
				h &= 0xFF00000000000000
			}
			if s.has(h) != want[h] {
				t.Fatalf("trial %d: has(%x) = %v, want %v", trial, h, s.has(h), want[h])
			}
		}
	}
}

// TestLineHashesMatchSplit: lineHashes and lineOffsets cut lines as
// splitLines does.
func TestLineHashesMatchSplit(t *testing.T) {
	for _, s := range []string{"", "a", "a\n", "a\nb", "\n\n", "x\r\ny\n\nz"} {
		off, want := lineOffsets([]byte(s)), []int{0}
		for _, l := range splitLines([]byte(s)) {
			want = append(want, want[len(want)-1]+len(l))
		}
		if !slices.Equal(off, want) {
			t.Fatalf("%q: offsets %v, want %v", s, off, want)
		}
		wantH := hashLines(splitLines([]byte(s)))
		if got := lineHashes([]byte(s)); !slices.Equal(got, wantH) {
			t.Fatalf("%q: hashes %x, want %x", s, got, wantH)
		}
	}
}

// splitLines cuts src after each newline (the last line may lack one):
// the reference lineHashes and lineOffsets must agree with.
func splitLines(src []byte) [][]byte {
	var out [][]byte
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return append(out, src)
		}
		out, src = append(out, src[:i+1]), src[i+1:]
	}
	return out
}

func hashLines(lines [][]byte) []uint64 {
	out := make([]uint64, len(lines))
	for i, l := range lines {
		out[i] = lineHash(l)
	}
	return out
}

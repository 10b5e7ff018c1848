package code

import "bytes"

// maxEditScript bounds the line diff behind an incremental parse: texts
// further apart than this many inserted and deleted lines are edited as
// one span, which costs about a fresh parse, instead.
const maxEditScript = 256

// region is a run of changed lines: old lines [a0, a1) became new lines
// [b0, b1).
type region struct{ a0, a1, b0, b1 int }

// editToText tells tree that the text it was parsed from, old, became new
// (oh and nh are their lineHashes; added, how many of new's lines old
// lacks): one edit per changed run of lines, so tree-sitter can reuse the
// unchanged subtrees between them. Without such a script (the texts
// differ by more than maxEditScript lines, as added alone may show) one
// span from the first to the last changed byte is edited, when it leaves
// most of the text unchanged; else nothing is edited and editToText
// reports false: reparsing a span over most of the file costs more than a
// fresh parse (a fifth more on a 1,800-line file whose versions share 93 %
// of their lines, the edit's reuse lookups included).
func editToText(tree *cTree, old, new []byte, oh, nh []uint64, added int) bool {
	oOff, nOff := lineOffsets(old), lineOffsets(new)
	var rs []region
	ok := added <= maxEditScript
	if ok {
		rs, ok = lineRegions(oh, nh)
	}
	if !ok || !unchangedEqual(old, new, oOff, nOff, rs) {
		if pre, suf := commonEnds(old, new); 2*(pre+suf) < len(new) {
			return false
		}
		editTree(tree, old, new)
		return true
	}
	// Back to front: the text before each region is still old's.
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		start, oldEnd := oOff[r.a0], oOff[r.a1]
		ins := new[nOff[r.b0]:nOff[r.b1]]
		editSpan(tree, old, start, oldEnd, ins)
	}
	return true
}

// commonEnds is the lengths of the common prefix and suffix of a and b
// (not overlapping).
func commonEnds(a, b []byte) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// unchangedEqual checks, byte for byte, the lines the regions leave
// unchanged (oOff and nOff are lineOffsets of old and new): the diff
// compares line hashes, and a collision would tell tree-sitter that a
// changed line did not change.
func unchangedEqual(old, new []byte, oOff, nOff []int, rs []region) bool {
	na, nb := len(oOff)-1, len(nOff)-1
	a, b := 0, 0
	for _, r := range append(rs, region{na, na, nb, nb}) {
		if r.a0-a != r.b0-b {
			return false
		}
		// Runs of whole lines with the same text are cut into the same
		// lines.
		if string(old[oOff[a]:oOff[r.a0]]) != string(new[nOff[b]:nOff[r.b0]]) {
			return false
		}
		a, b = r.a1, r.b1
	}
	return true
}

// lineOffsets is the byte offset of each line's start (lines as
// lineHashes cuts them), and the text's length last.
func lineOffsets(src []byte) []int {
	out := make([]int, 1, bytes.Count(src, []byte{'\n'})+2)
	for off := 0; off < len(src); {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			off = len(src)
		} else {
			off += i + 1
		}
		out = append(out, off)
	}
	return out
}

// editSpan replaces old[start:oldEnd] by ins in tree's text, whose part
// before start is old's.
func editSpan(tree *cTree, old []byte, start, oldEnd int, ins []byte) {
	sp := pointOf(old, start)
	np := sp
	for _, c := range ins {
		if c == '\n' {
			np.row, np.col = np.row+1, 0
		} else {
			np.col++
		}
	}
	applyEdit(tree, start, oldEnd, start+len(ins), sp, pointOf(old, oldEnd), np)
}

// lineRegions is the changed runs of lines between a and b, given as
// line hashes (Myers' O(ND) diff), false when they differ by more than
// maxEditScript lines.
func lineRegions(a, b []uint64) ([]region, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ha, hb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ha) == 0 && len(hb) == 0 {
		return nil, true
	}
	rs, ok := myers(ha, hb, maxEditScript)
	for i := range rs {
		rs[i].a0, rs[i].a1, rs[i].b0, rs[i].b1 = rs[i].a0+pre, rs[i].a1+pre, rs[i].b0+pre, rs[i].b1+pre
	}
	return rs, ok
}

// myers returns the changed regions of a shortest edit script from a to
// b, in order, or false when it is longer than maxD (Myers 1986, with
// the V arrays kept for the walk back). Equal hashes are taken as equal
// lines; editToText checks them byte for byte.
func myers(a, b []uint64, maxD int) ([]region, bool) {
	n, m := len(a), len(b)
	maxD = min(maxD, n+m)
	// trace[d] is V before round d, for k in [-d-1, d+1] at index k+d+1.
	var trace [][]int
	v := []int{0, 0, 0}
	for d := 0; d <= maxD; d++ {
		trace = append(trace, v)
		next := make([]int, 2*d+5) // k in [-d-2, d+2] at index k+d+2
		for k := -d; k <= d; k += 2 {
			x := nextX(v, k, d)
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			next[k+d+2] = x
			if x >= n && y >= m {
				return backtrack(trace, d, n, m), true
			}
		}
		v = next
	}
	return nil, false
}

// nextX is where round d's move on diagonal k starts from v (V before
// round d): down from k+1 or right from k-1, whichever reaches further.
func nextX(v []int, k, d int) int {
	if k == -d || k != d && v[k-1+d+1] < v[k+1+d+1] {
		return v[k+1+d+1]
	}
	return v[k-1+d+1] + 1
}

// backtrack walks the script found in round last from (n, m) back to the
// start and returns its changed regions in order, touching ones merged.
func backtrack(trace [][]int, last, n, m int) []region {
	var rs []region
	x, y := n, m
	for d := last; d > 0; d-- {
		v := trace[d]
		k := x - y
		pk := k - 1
		if k == -d || k != d && v[k-1+d+1] < v[k+1+d+1] {
			pk = k + 1
		}
		px := v[pk+d+1]
		py := px - pk
		mx, my := px+1, py // a deletion (a move right)
		if pk == k+1 {
			mx, my = px, py+1 // an insertion (a move down)
		}
		rs = append(rs, region{px, mx, py, my})
		x, y = px, py
	}
	out := make([]region, 0, len(rs))
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if j := len(out) - 1; j >= 0 && out[j].a1 == r.a0 && out[j].b1 == r.b0 {
			out[j].a1, out[j].b1 = r.a1, r.b1
			continue
		}
		out = append(out, r)
	}
	return out
}

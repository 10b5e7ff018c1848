package textsim

import "sync"

// Levenshtein is the byte edit distance of a and b (insertions, deletions
// and substitutions, each costing 1).
//
// It runs Myers' bit-vector algorithm (J. ACM 46(3), 1999) in its block
// form for global distance (Hyyrö, 2003): the shorter string's columns
// of the dynamic-programming table are held as bits, 64 to a word, so one
// byte of the longer string costs a few word operations per 64 bytes of
// the shorter instead of one cell per byte. Stage II compares every fix
// line with the nearest lines of every state it follows, and the
// quadratic table was its largest cost after parsing.
func Levenshtein(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	m := len(b) // the pattern: the shorter string
	switch {
	case m == 0:
		return len(a)
	case m <= 64:
		return levenshtein1(b, a)
	}
	return levenshteinBlocks(b, a)
}

// levenshtein1 is Levenshtein for a pattern p of 1 to 64 bytes and a text t.
func levenshtein1(p, t string) int {
	var peq [256]uint64
	for i := 0; i < len(p); i++ {
		peq[p[i]] |= 1 << uint(i)
	}
	high := uint64(1) << uint(len(p)-1)
	pv, mv := ^uint64(0), uint64(0)
	score := len(p)
	for j := 0; j < len(t); j++ {
		eq := peq[t[j]]
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		if ph&high != 0 {
			score++
		} else if mh&high != 0 {
			score--
		}
		// Row 0 of the table is 0, 1, 2, …: every column adds one there.
		ph = ph<<1 | 1
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
	}
	return score
}

// blockBufs holds the per-call tables of levenshteinBlocks.
var blockBufs = sync.Pool{New: func() any { return new(blockBuf) }}

type blockBuf struct {
	peq    []uint64 // 256 words per block, by byte then block
	pv, mv []uint64
}

// levenshteinBlocks is Levenshtein for a pattern p longer than 64 bytes:
// each text byte advances the blocks in turn, each passing the horizontal
// difference of its bottom row to the next (Myers 1999, §5).
func levenshteinBlocks(p, t string) int {
	w := (len(p) + 63) / 64
	buf := blockBufs.Get().(*blockBuf)
	defer blockBufs.Put(buf)
	if cap(buf.peq) < 256*w {
		buf.peq = make([]uint64, 256*w)
		buf.pv, buf.mv = make([]uint64, w), make([]uint64, w)
	}
	peq, pv, mv := buf.peq[:256*w], buf.pv[:w], buf.mv[:w]
	for i := 0; i < len(p); i++ {
		peq[int(p[i])*w+i/64] |= 1 << uint(i%64)
	}
	defer func() { // leave the table zeroed for the next call
		for i := 0; i < len(p); i++ {
			peq[int(p[i])*w+i/64] = 0
		}
	}()
	for k := range pv {
		pv[k], mv[k] = ^uint64(0), 0
	}
	last := uint64(1) << uint((len(p)-1)%64)
	score := len(p)
	for j := 0; j < len(t); j++ {
		row := peq[int(t[j])*w : int(t[j])*w+w]
		hin := 1
		for k := 0; k < w; k++ {
			high := uint64(1) << 63
			if k == w-1 {
				high = last
			}
			hin = advanceBlock(&pv[k], &mv[k], row[k], hin, high)
		}
		score += hin
	}
	return score
}

// advanceBlock advances one 64-row block of the table by one text byte
// whose match bits are eq, given the horizontal difference hin (−1, 0,
// +1) entering at the block's top; it returns the difference leaving its
// row high.
func advanceBlock(pv, mv *uint64, eq uint64, hin int, high uint64) int {
	p, m := *pv, *mv
	xv := eq | m
	if hin < 0 {
		eq |= 1
	}
	xh := (((eq & p) + p) ^ p) | eq
	ph := m | ^(xh | p)
	mh := p & xh
	hout := 0
	if ph&high != 0 {
		hout = 1
	} else if mh&high != 0 {
		hout = -1
	}
	ph <<= 1
	mh <<= 1
	switch {
	case hin < 0:
		mh |= 1
	case hin > 0:
		ph |= 1
	}
	*pv = mh | ^(xv | ph)
	*mv = ph & xv
	return hout
}

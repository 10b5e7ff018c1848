package sandbox

import (
	"fmt"
	"io"
)

// capBuffer keeps the first half and the last half of at most max bytes
// written to it and counts the rest.
type capBuffer struct {
	max   int
	head  []byte
	tail  []byte // ring buffer of len ≤ max-len(head cap)
	start int    // index of the oldest byte in tail when full
	total int64
}

func newCapBuffer(max int) *capBuffer {
	if max < 2 {
		max = 2
	}
	return &capBuffer{max: max}
}

func (b *capBuffer) headCap() int { return b.max / 2 }
func (b *capBuffer) tailCap() int { return b.max - b.max/2 }

func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headCap() - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tc := b.tailCap()
	if len(p) >= tc {
		b.tail = append(b.tail[:0], p[len(p)-tc:]...)
		b.start = 0
		return n, nil
	}
	for _, c := range p {
		if len(b.tail) < tc {
			b.tail = append(b.tail, c)
			continue
		}
		b.tail[b.start] = c
		b.start = (b.start + 1) % tc
	}
	return n, nil
}

// bytes returns the kept output and whether anything was omitted.
func (b *capBuffer) bytes() ([]byte, bool) {
	tail := make([]byte, 0, len(b.tail))
	tail = append(tail, b.tail[b.start:]...)
	tail = append(tail, b.tail[:b.start]...)
	kept := int64(len(b.head) + len(tail))
	out := append([]byte(nil), b.head...)
	if omitted := b.total - kept; omitted > 0 {
		out = append(out, fmt.Sprintf("\n[sandbox: %d bytes omitted]\n", omitted)...)
		return append(out, tail...), true
	}
	return append(out, tail...), false
}

// drain copies r into b until EOF or an error and then signals done.
func drain(r io.Reader, b *capBuffer, done chan<- struct{}) {
	_, _ = io.Copy(b, r)
	close(done)
}

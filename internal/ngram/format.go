package ngram

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/benchforge/benchforge/internal/errs"
)

// The .bfng file format, version 2. All integers are little-endian.
//
//	magic "BFNG", version u32, flags u32 (bit 0: SplitIdentifiers; absent in version 1)
//	order u32, vocab size u32, files u64, bytes u64, tokens u64
//	nodes u64 × order                 (distinct k-grams, k = 1..order)
//	discounts f64 × 3 × order         (D1, D2, D3+ per order)
//	spelling f64 × 257                (byte log-probs, end mark)
//	vocab: (len u32, bytes) × vocab size
//	per order k: word u32 × n, adj u32 × n, and for k < order:
//	             first u32 × (n+1), den u32 × n, gamma f32 × n
//	crc32 (Castagnoli) u32 of everything before it
const (
	fileMagic   = "BFNG"
	fileVersion = 2
	flagSplit   = 1
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Save writes the model to path in the .bfng format.
func (m *Model) Save(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("ngram save %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("ngram save %s: %w", path, cerr)
		}
	}()
	if err := m.Encode(f); err != nil {
		return fmt.Errorf("ngram save %s: %w", path, err)
	}
	return nil
}

// Encode writes the model in the .bfng format.
func (m *Model) Encode(w io.Writer) error {
	crc := crc32.New(crcTable)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<20)
	e := &encoder{w: bw}
	e.bytes([]byte(fileMagic))
	e.u32(fileVersion)
	flags := uint32(0)
	if m.split {
		flags |= flagSplit
	}
	e.u32(flags)
	e.u32(uint32(m.order))
	e.u32(uint32(len(m.vocab)))
	e.u64(uint64(m.stats.Files))
	e.u64(uint64(m.stats.Bytes))
	e.u64(uint64(m.stats.Tokens))
	for k := range m.lv {
		e.u64(uint64(len(m.lv[k].word)))
	}
	e.parameters(m)
	for _, t := range m.vocab {
		e.u32(uint32(len(t)))
		e.bytes([]byte(t))
	}
	for k := range m.lv {
		e.level(&m.lv[k], k < m.order-1)
	}
	if e.err != nil {
		return e.err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], crc.Sum32())
	_, err := w.Write(tail[:])
	return err
}

type encoder struct {
	w   *bufio.Writer
	buf [8]byte
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.bytes(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.bytes(e.buf[:8])
}

func (e *encoder) u32s(vs []uint32) {
	chunk := make([]byte, 0, 64<<10)
	for len(vs) > 0 {
		n := min(len(vs), cap(chunk)/4)
		chunk = chunk[:0]
		for _, v := range vs[:n] {
			chunk = binary.LittleEndian.AppendUint32(chunk, v)
		}
		e.bytes(chunk)
		vs = vs[n:]
	}
}

// Load reads a model written by Save. A file that is not a valid .bfng
// model (wrong magic or version, truncated, corrupt) yields an error
// wrapping errs.ErrInput that names path.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("ngram load %s: %w: %w", path, err, errs.ErrNotFound)
		}
		return nil, fmt.Errorf("ngram load %s: %w: %w", path, err, errs.ErrInput)
	}
	m, err := decode(data, true)
	if err != nil {
		return nil, fmt.Errorf("ngram load %s: %w (retrain it with 'benchforge lm train'): %w", path, err, errs.ErrInput)
	}
	return m, nil
}

// errFormat describes why a file is not a model.
var errFormat = errors.New("not a valid .bfng model")

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", errFormat, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail("truncated: need %d more bytes, have %d", n, len(d.b)-d.off)
		return nil
	}
	s := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return s
}

func (d *decoder) u32() uint32 {
	if s := d.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (d *decoder) f64() float64 {
	v := math.Float64frombits(d.u64())
	if math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail("non-finite number")
	}
	return v
}

func (d *decoder) u32s(n uint64) []uint32 {
	s := d.take(n * 4)
	if s == nil {
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(s[4*i:])
	}
	return out
}

// parameters writes the discounts per order and the spelling model's
// weights.
func (e *encoder) parameters(m *Model) {
	for k := range m.disc {
		for _, d := range m.disc[k] {
			e.u64(math.Float64bits(d))
		}
	}
	for _, p := range m.spell {
		e.u64(math.Float64bits(p))
	}
}

// level writes one trie level; an inner level also has its child index,
// denominators and backoff weights.
func (e *encoder) level(l *level, inner bool) {
	e.u32s(l.word)
	e.u32s(l.adj)
	if !inner {
		return
	}
	e.u32s(l.first)
	e.u32s(l.den)
	for _, g := range l.gamma {
		e.u32(math.Float32bits(g))
	}
}

// decode parses a .bfng image, validating every index so that a model
// that loads can be used without out-of-range accesses.
func decode(b []byte, checkCRC bool) (*Model, error) {
	if checkCRC {
		body, err := checkFrame(b)
		if err != nil {
			return nil, err
		}
		b = body
	}
	d := &decoder{b: b}
	m, nv, err := d.header()
	if err != nil {
		return nil, err
	}
	nodes := d.nodeCounts(m.order, nv)
	d.discounts(m)
	if d.err != nil {
		return nil, d.err
	}
	if err := d.vocab(m, nv); err != nil {
		return nil, err
	}
	m.lv = make([]level, m.order)
	for k := range m.lv {
		if err := d.level(m, k, nodes, nv); err != nil {
			return nil, err
		}
	}
	if d.off != len(d.b) {
		return nil, fmt.Errorf("%w: %d trailing bytes", errFormat, len(d.b)-d.off)
	}
	m.stats.Vocab = len(m.vocab)
	m.stats.NGrams = make([]int64, m.order)
	for k := range nodes {
		m.stats.NGrams[k] = int64(nodes[k])
	}
	m.finish()
	if math.IsNaN(m.uniGamma) || m.uniDen <= 0 {
		return nil, fmt.Errorf("%w: unigram level has no counts", errFormat)
	}
	return m, nil
}

// checkFrame checks a file image's magic and trailing CRC and returns the
// body the CRC covers.
func checkFrame(b []byte) ([]byte, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes is too short", errFormat, len(b))
	}
	body, tail := b[:len(b)-4], b[len(b)-4:]
	if string(body[:4]) != fileMagic {
		return nil, fmt.Errorf("%w: bad magic %q", errFormat, body[:4])
	}
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(tail) {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupt)", errFormat)
	}
	return body, nil
}

// header reads the magic, version, flags, order, vocabulary size and
// corpus statistics.
func (d *decoder) header() (*Model, uint64, error) {
	if string(d.take(4)) != fileMagic {
		return nil, 0, fmt.Errorf("%w: bad magic", errFormat)
	}
	v := d.u32()
	if v != 1 && v != fileVersion && d.err == nil {
		return nil, 0, fmt.Errorf("%w: version %d, this build reads versions 1 and %d", errFormat, v, fileVersion)
	}
	var flags uint32
	if v >= 2 {
		flags = d.u32()
	}
	m := &Model{split: flags&flagSplit != 0}
	m.order = int(d.u32())
	nv := uint64(d.u32())
	m.stats.Files = int(d.u64() & math.MaxInt32)
	m.stats.Bytes = int64(d.u64() & math.MaxInt64)
	m.stats.Tokens = int64(d.u64() & math.MaxInt64)
	if err := d.checkSizes(m.order, nv); err != nil {
		return nil, 0, err
	}
	return m, nv, nil
}

// checkSizes checks the header's order and vocabulary size (at least the
// special tokens, at most one per byte of the file).
func (d *decoder) checkSizes(order int, nv uint64) error {
	if d.err == nil && (order < 1 || order > MaxOrder) {
		d.fail("order %d out of range 1..%d", order, MaxOrder)
	}
	if d.err == nil && (nv < firstWordID || nv > uint64(len(d.b))) {
		d.fail("vocabulary size %d", nv)
	}
	return d.err
}

// nodeCounts reads the number of nodes per level; level 1 holds one node
// per vocabulary word.
func (d *decoder) nodeCounts(order int, nv uint64) []uint64 {
	nodes := make([]uint64, order)
	for k := range nodes {
		nodes[k] = d.u64()
		if d.err == nil && nodes[k] > uint64(len(d.b)) {
			d.fail("level %d: %d nodes exceed the file size", k+1, nodes[k])
		}
	}
	if d.err == nil && nodes[0] != nv {
		d.fail("level 1 has %d nodes, want the vocabulary size %d", nodes[0], nv)
	}
	return nodes
}

// discounts reads the three modified Kneser–Ney discounts per order and
// the spelling model's weights.
func (d *decoder) discounts(m *Model) {
	m.disc = make([][3]float64, m.order)
	for k := range m.disc {
		for i := range m.disc[k] {
			m.disc[k][i] = d.f64()
			if d.err == nil && (m.disc[k][i] < 0 || m.disc[k][i] > float64(i+1)) {
				d.fail("discount D%d of order %d is %g", i+1, k+1, m.disc[k][i])
			}
		}
	}
	for i := range m.spell {
		m.spell[i] = d.f64()
	}
}

func (d *decoder) vocab(m *Model, nv uint64) error {
	m.vocab = make([]string, nv)
	for i := range m.vocab {
		n := d.u32()
		m.vocab[i] = string(d.take(uint64(n)))
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// level reads level k's arrays and checks its word ids and child index.
func (d *decoder) level(m *Model, k int, nodes []uint64, nv uint64) error {
	l := &m.lv[k]
	n := nodes[k]
	inner := k < m.order-1
	l.word = d.u32s(n)
	l.adj = d.u32s(n)
	if inner {
		l.first = d.u32s(n + 1)
		l.den = d.u32s(n)
		l.gamma = d.gammas(k, n)
	}
	if d.err != nil {
		return d.err
	}
	for i, w := range l.word {
		if uint64(w) >= nv || (k == 0 && uint64(w) != uint64(i)) {
			d.fail("level %d node %d: word id %d", k+1, i, w)
			return d.err
		}
	}
	if inner {
		return d.checkChildren(l, k, n, nodes[k+1])
	}
	return nil
}

// gammas reads level k's n backoff weights, each in [0, 1].
func (d *decoder) gammas(k int, n uint64) []float32 {
	raw := d.u32s(n)
	gamma := make([]float32, len(raw))
	for i, r := range raw {
		g := math.Float32frombits(r)
		if !(g >= 0 && g <= 1) {
			d.fail("level %d: backoff weight %g", k+1, g)
			break
		}
		gamma[i] = g
	}
	return gamma
}

// checkChildren checks that level k's child index is non-decreasing and
// spans the next level's children nodes.
func (d *decoder) checkChildren(l *level, k int, n, children uint64) error {
	if l.first[0] != 0 || uint64(l.first[n]) != children {
		d.fail("level %d: child index does not span level %d", k+1, k+2)
		return d.err
	}
	for i := uint64(1); i <= n; i++ {
		if l.first[i] < l.first[i-1] {
			d.fail("level %d: child index decreases at node %d", k+1, i)
			return d.err
		}
	}
	return nil
}

package refindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// MaxStoredWordLen bounds the words an index file may hold (imported
// words included), in bytes.
const MaxStoredWordLen = 1024

// RepoFreq is what Stage I consumes: the number of reference repositories
// that contain a word, and the number of repositories in the reference.
type RepoFreq interface {
	RepoFreq(word string) int
	Repos() int
}

// Index is a loaded (or freshly built) reference index. It is immutable
// and safe for concurrent lookups.
type Index struct {
	repos  int
	names  []string // sorted, unique; len(names) <= repos
	blob   []byte   // sorted words, concatenated
	offs   []uint32 // word i is blob[offs[i]:offs[i+1]]
	counts []uint32 // repository frequency of word i, in [1, repos]
	table  []uint32 // open addressing: word index + 1, 0 = empty
}

var _ RepoFreq = (*Index)(nil)

// Repos returns the number of repositories the index was built over.
func (ix *Index) Repos() int { return ix.repos }

// Words returns the number of distinct words.
func (ix *Index) Words() int { return len(ix.counts) }

// Names returns the sorted names of the repositories; imported (CSV)
// repositories have none, so len(Names()) may be less than Repos().
func (ix *Index) Names() []string { return append([]string(nil), ix.names...) }

// Anonymous returns the number of repositories without a name (from
// ImportCSV), whose overlap with other shards Merge cannot check.
func (ix *Index) Anonymous() int { return ix.repos - len(ix.names) }

// word returns word i without copying.
func (ix *Index) word(i int) []byte { return ix.blob[ix.offs[i]:ix.offs[i+1]] }

// RepoFreq returns the number of repositories that contain word, 0 when
// no repository does (or word is not a word, see Words). Constant
// expected time: one hash and a short linear probe, each candidate
// verified against the stored word.
func (ix *Index) RepoFreq(word string) int {
	if ix == nil || len(ix.table) == 0 {
		return 0
	}
	mask := uint64(len(ix.table) - 1)
	for p := hashString(word) & mask; ; p = (p + 1) & mask {
		e := ix.table[p]
		if e == 0 {
			return 0
		}
		i := int(e - 1)
		if string(ix.word(i)) == word {
			return int(ix.counts[i])
		}
	}
}

// Each calls fn with every word and its repository frequency in sorted
// word order until fn returns false.
func (ix *Index) Each(fn func(word string, freq int) bool) {
	for i := range ix.counts {
		if !fn(string(ix.word(i)), int(ix.counts[i])) {
			return
		}
	}
}

// FNV-1a, 64 bit, with a final avalanche so the low bits used as the
// table position depend on every byte.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return mix(h)
}

func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return mix(h)
}

func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// buildTable fills the open-addressing table at load factor <= 1/2.
func (ix *Index) buildTable() {
	n := len(ix.counts)
	size := 2
	for size < 2*n {
		size <<= 1
	}
	ix.table = make([]uint32, size)
	mask := uint64(size - 1)
	for i := 0; i < n; i++ {
		p := hashBytes(ix.word(i)) & mask
		for ix.table[p] != 0 {
			p = (p + 1) & mask
		}
		ix.table[p] = uint32(i + 1)
	}
}

// newIndex assembles an index from sorted unique words with counts.
// Callers guarantee order, uniqueness and 1 <= count <= repos.
func newIndex(repos int, names []string, words []string, counts []uint32) (*Index, error) {
	if len(words) >= 1<<32-1 {
		return nil, fmt.Errorf("refindex: %d words: %w: at most 2^32-2 words fit one index; build smaller shards", len(words), errs.ErrInput)
	}
	total := 0
	for _, w := range words {
		total += len(w)
	}
	if total >= 1<<32 {
		return nil, fmt.Errorf("refindex: %d bytes of words: %w: at most 4 GiB of word text fit one index; build smaller shards", total, errs.ErrInput)
	}
	ix := &Index{repos: repos, names: names, counts: counts,
		blob: make([]byte, 0, total), offs: make([]uint32, 1, len(words)+1)}
	for _, w := range words {
		ix.blob = append(ix.blob, w...)
		ix.offs = append(ix.offs, uint32(len(ix.blob)))
	}
	ix.buildTable()
	return ix, nil
}

// File format, version 1 (all integers little-endian):
//
//	magic    [8]byte "BFREFIDX"
//	version  uint32  1
//	wordDef  uint32  1 (the word definition of Words)
//	repos    uint64  repositories counted (named + anonymous)
//	words    uint64  distinct words
//	names    uint64  named repositories
//	payload  uint64  payload length in bytes
//	payload:
//	  words, sorted, front-coded: uvarint shared-prefix length,
//	    uvarint suffix length, suffix bytes, uvarint repository count
//	  names, sorted: uvarint length, bytes
//	crc32c   uint32  Castagnoli CRC of everything before it
const (
	magic      = "BFREFIDX"
	version    = 1
	wordDef    = 1
	headerSize = 8 + 4 + 4 + 8 + 8 + 8 + 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the index in the file format above.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	var payload bytes.Buffer
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { payload.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	var prev []byte
	for i := range ix.counts {
		w := ix.word(i)
		p := commonPrefix(prev, w)
		uv(uint64(p))
		uv(uint64(len(w) - p))
		payload.Write(w[p:])
		uv(uint64(ix.counts[i]))
		prev = w
	}
	for _, n := range ix.names {
		uv(uint64(len(n)))
		payload.WriteString(n)
	}
	hdr := make([]byte, headerSize)
	copy(hdr, magic)
	binary.LittleEndian.PutUint32(hdr[8:], version)
	binary.LittleEndian.PutUint32(hdr[12:], wordDef)
	binary.LittleEndian.PutUint64(hdr[16:], uint64(ix.repos))
	binary.LittleEndian.PutUint64(hdr[24:], uint64(len(ix.counts)))
	binary.LittleEndian.PutUint64(hdr[32:], uint64(len(ix.names)))
	binary.LittleEndian.PutUint64(hdr[40:], uint64(payload.Len()))
	crc := crc32.Update(crc32.Checksum(hdr, castagnoli), castagnoli, payload.Bytes())
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], crc)
	var n int64
	for _, b := range [][]byte{hdr, payload.Bytes(), tail[:]} {
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, fmt.Errorf("refindex: write: %w", err)
		}
	}
	return n, nil
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Save writes the index to path atomically (output.Write).
func (ix *Index) Save(path string) error {
	if err := output.Write(path, func(w io.Writer) error { _, err := ix.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("refindex.Save(%s): %w", path, err)
	}
	return nil
}

// Load reads an index file. A file that is not an index, was written by
// a newer version, is truncated or fails its checksum is an error
// wrapping errs.ErrInput that names the path.
func Load(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("refindex.Load(%s): %w: %w (build one with 'benchforge index build')", path, err, errs.ErrNotFound)
		}
		return nil, fmt.Errorf("refindex.Load(%s): %w", path, err)
	}
	return Decode(data, path)
}

// Decode parses an index from data; name labels errors.
func Decode(data []byte, name string) (*Index, error) {
	d := &decoder{name: name}
	h, err := d.header(data)
	if err != nil {
		return nil, err
	}
	d.payload = data[headerSize : len(data)-4]
	// Every word and name takes at least 3 resp. 1 payload bytes, which
	// bounds the counts before anything is allocated.
	if h.nwords > uint64(len(d.payload))/3 || h.nnames > uint64(len(d.payload)) || h.nnames > h.repos || h.repos > 1<<40 {
		return nil, d.bad("inconsistent header: %d words, %d names, %d repositories in %d bytes", h.nwords, h.nnames, h.repos, len(d.payload))
	}
	if h.nwords >= 1<<32-1 {
		return nil, d.bad("%d words: too many", h.nwords)
	}
	ix := &Index{repos: int(h.repos), offs: make([]uint32, 1, h.nwords+1), counts: make([]uint32, 0, h.nwords)}
	ix.blob = make([]byte, 0, len(d.payload))
	if err := d.words(ix, h.nwords); err != nil {
		return nil, err
	}
	if err := d.names(ix, h.nnames); err != nil {
		return nil, err
	}
	if d.pos != len(d.payload) {
		return nil, d.bad("%d trailing payload bytes", len(d.payload)-d.pos)
	}
	ix.blob = ix.blob[:len(ix.blob):len(ix.blob)]
	ix.buildTable()
	return ix, nil
}

// decoder reads an index file's payload from pos; name labels errors.
type decoder struct {
	name    string
	payload []byte
	pos     int
}

// bad is a decoding error: the file is not a valid index.
func (d *decoder) bad(format string, args ...any) error {
	return fmt.Errorf("refindex.Load(%s): %w: %s (rebuild the index with 'benchforge index build')", d.name, errs.ErrInput, fmt.Sprintf(format, args...))
}

// fileHeader is the counts of an index file's header.
type fileHeader struct{ repos, nwords, nnames uint64 }

// header checks the file's frame — magic, version, word definition,
// payload length, checksum — and returns its header's counts.
func (d *decoder) header(data []byte) (fileHeader, error) {
	if err := d.checkMagic(data); err != nil {
		return fileHeader{}, err
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != version {
		return fileHeader{}, d.bad("format version %d, this build reads version %d", v, version)
	}
	if w := binary.LittleEndian.Uint32(data[12:]); w != wordDef {
		return fileHeader{}, d.bad("word definition %d, this build uses %d", w, wordDef)
	}
	h := fileHeader{repos: binary.LittleEndian.Uint64(data[16:]), nwords: binary.LittleEndian.Uint64(data[24:]), nnames: binary.LittleEndian.Uint64(data[32:])}
	if plen := binary.LittleEndian.Uint64(data[40:]); plen != uint64(len(data)-headerSize-4) {
		return fileHeader{}, d.bad("truncated or padded: header says %d payload bytes, file has %d", plen, len(data)-headerSize-4)
	}
	body := data[:len(data)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(data[len(data)-4:]); got != want {
		return fileHeader{}, d.bad("checksum mismatch (file corrupted)")
	}
	return h, nil
}

// checkMagic checks that data is long enough for a header and starts
// with the magic.
func (d *decoder) checkMagic(data []byte) error {
	if len(data) < headerSize+4 {
		if len(data) >= len(magic) && string(data[:len(magic)]) != magic {
			return d.bad("not a reference index (bad magic)")
		}
		return d.bad("truncated: %d bytes, shorter than the header", len(data))
	}
	if string(data[:8]) != magic {
		return d.bad("not a reference index (bad magic)")
	}
	return nil
}

// uvarint reads the varint at pos; what names it in the error.
func (d *decoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.payload[d.pos:])
	if n <= 0 {
		return 0, d.bad("payload offset %d: bad %s", d.pos, what)
	}
	d.pos += n
	return v, nil
}

// words reads the n front-coded words and their repository counts into
// ix: sorted, each counted in 1 to ix.repos repositories.
func (d *decoder) words(ix *Index, n uint64) error {
	var prev []byte
	for i := uint64(0); i < n; i++ {
		w, err := d.word(ix, i, prev)
		if err != nil {
			return err
		}
		c, err := d.uvarint("count")
		if err != nil {
			return err
		}
		if c == 0 || c > uint64(ix.repos) {
			return d.bad("word %q: repository count %d outside [1, %d]", w, c, ix.repos)
		}
		if uint64(len(ix.blob)) >= 1<<32 {
			return d.bad("word text exceeds 4 GiB")
		}
		ix.offs = append(ix.offs, uint32(len(ix.blob)))
		ix.counts = append(ix.counts, uint32(c))
		prev = w
	}
	return nil
}

// word reads word i — a prefix of the previous word prev and a suffix —
// onto ix.blob and returns it.
func (d *decoder) word(ix *Index, i uint64, prev []byte) ([]byte, error) {
	p, err := d.uvarint("prefix length")
	if err != nil {
		return nil, err
	}
	s, err := d.uvarint("suffix length")
	if err != nil {
		return nil, err
	}
	if p > uint64(len(prev)) || s > uint64(len(d.payload)-d.pos) || p+s == 0 || p+s > MaxStoredWordLen {
		return nil, d.bad("word %d: bad lengths (prefix %d, suffix %d)", i, p, s)
	}
	start := len(ix.blob)
	ix.blob = append(ix.blob, prev[:p]...)
	ix.blob = append(ix.blob, d.payload[d.pos:d.pos+int(s)]...)
	d.pos += int(s)
	w := ix.blob[start:]
	if i > 0 && bytes.Compare(prev, w) >= 0 {
		return nil, d.bad("word %d %q: not in sorted order", i, w)
	}
	return w, nil
}

// names reads the n repository names into ix, sorted and distinct.
func (d *decoder) names(ix *Index, n uint64) error {
	ix.names = make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		l, err := d.uvarint("name length")
		if err != nil {
			return err
		}
		if l == 0 || l > uint64(len(d.payload)-d.pos) {
			return d.bad("repository name %d: bad length %d", i, l)
		}
		name := string(d.payload[d.pos : d.pos+int(l)])
		d.pos += int(l)
		if i > 0 && ix.names[i-1] >= name {
			return d.bad("repository name %q: not in sorted order", name)
		}
		ix.names = append(ix.names, name)
	}
	return nil
}

// sortedUnique sorts names and drops duplicates.
func sortedUnique(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// validName reports whether a repository name can be stored.
func validName(n string) bool { return n != "" && !strings.ContainsAny(n, "\x00\n") }

func crc32Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

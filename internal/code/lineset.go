package code

// lineSet is a set of line hashes with open addressing: the Trees cache
// asks it for every line of every new version and each kept base (a map
// lookup per line was an eighth of an incremental parse of a 2,000-line
// file).
type lineSet struct {
	slots []uint64 // power-of-two table; 0 marks an empty slot
	zero  bool     // the hash 0, which cannot be stored in slots, is a member
	keys  []uint64 // the distinct members
}

func newLineSet(hashes []uint64) *lineSet {
	size := 16
	for size < 2*len(hashes) {
		size *= 2
	}
	s := &lineSet{slots: make([]uint64, size)}
	mask := uint64(size - 1)
	for _, h := range hashes {
		if h == 0 {
			if !s.zero {
				s.zero = true
				s.keys = append(s.keys, 0)
			}
			continue
		}
		for j := h & mask; ; j = (j + 1) & mask {
			if s.slots[j] == h {
				break
			}
			if s.slots[j] == 0 {
				s.slots[j] = h
				s.keys = append(s.keys, h)
				break
			}
		}
	}
	return s
}

func (s *lineSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	mask := uint64(len(s.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		switch s.slots[j] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// len is the number of distinct members.
func (s *lineSet) len() int { return len(s.keys) }

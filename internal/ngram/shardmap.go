package ngram

import "sync"

// shardMap is a concurrent map with uint64 keys for the per-context
// memos. sync.Map boxes every uint64 key into an interface (an
// allocation per lookup for keys of 256 and up, and every memo key is)
// and hashes it through the interface: in the profile of `lm serve`
// its lookups cost more than the memo saved on a step. Here a key picks
// one of 64 shards, each a plain map under a read-write lock, so a
// lookup is a read lock and a map access; served steps are mostly
// lookups, so the shards are rarely contended.
type shardMap[V any] struct {
	shards [64]shard[V]
}

type shard[V any] struct {
	mu sync.RWMutex
	m  map[uint64]V
	_  [32]byte // keep neighbouring locks off one cache line
}

func (s *shardMap[V]) shard(k uint64) *shard[V] {
	return &s.shards[(k*0x9e3779b97f4a7c15)>>58]
}

// Load returns the value stored under k.
func (s *shardMap[V]) Load(k uint64) (V, bool) {
	sh := s.shard(k)
	sh.mu.RLock()
	v, ok := sh.m[k]
	sh.mu.RUnlock()
	return v, ok
}

// Store sets the value under k.
func (s *shardMap[V]) Store(k uint64, v V) {
	sh := s.shard(k)
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[uint64]V{}
	}
	sh.m[k] = v
	sh.mu.Unlock()
}

// LoadOrStore returns the value under k if there is one (loaded true),
// and otherwise stores v and returns it.
func (s *shardMap[V]) LoadOrStore(k uint64, v V) (V, bool) {
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if old, ok := sh.m[k]; ok {
		return old, true
	}
	if sh.m == nil {
		sh.m = map[uint64]V{}
	}
	sh.m[k] = v
	return v, false
}

package patchcheck

import (
	"hash/maphash"
	"sync"
)

// memo holds the results of a pure function shared by the workers of a
// run, in shards that are emptied when full (16 shards of 8,192 entries:
// a few MB of line texts, most of them shared with the parsed versions).
type memo[K comparable, V any] struct {
	seed   maphash.Seed
	shards [memoShards]memoShard[K, V]
}

const (
	memoShards   = 16
	memoShardMax = 8192
)

type memoShard[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func newMemo[K comparable, V any]() *memo[K, V] {
	return &memo[K, V]{seed: maphash.MakeSeed()}
}

// get is f(k), computed on first sight (outside the shard's lock, so two
// workers may both compute it once; f is pure).
func (c *memo[K, V]) get(k K, f func(K) V) V {
	sh := &c.shards[maphash.Comparable(c.seed, k)%memoShards]
	sh.mu.Lock()
	v, ok := sh.m[k]
	sh.mu.Unlock()
	if ok {
		return v
	}
	v = f(k)
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= memoShardMax {
		sh.m = make(map[K]V)
	}
	sh.m[k] = v
	sh.mu.Unlock()
	return v
}

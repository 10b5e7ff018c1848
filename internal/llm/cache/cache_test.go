package cache_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/llm/cache"
)

func key(i int) cache.Key { return sha256.Sum256([]byte(fmt.Sprint("k", i))) }

func TestPutGet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Get(ctx, key(1)); ok || err != nil {
		t.Fatalf("Get on empty cache = %v, %v", ok, err)
	}
	created := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	want := cache.Entry{Provider: "openai:m", Op: "chat", Response: []byte(`{"a":1}`), PromptTokens: 3, CompletionTokens: 4, Created: created}
	if err := c.Put(ctx, key(1), want); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Another handle (another run) sees it.
	c, err = cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, ok, err := c.Get(ctx, key(1))
	if !ok || err != nil || got.Provider != want.Provider || got.Op != want.Op || !bytes.Equal(got.Response, want.Response) ||
		got.PromptTokens != 3 || got.CompletionTokens != 4 || !got.Created.Equal(created) {
		t.Errorf("Get = %+v, %v, %v; want %+v", got, ok, err, want)
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := cache.Open(dir) // a second "process" on the same directory
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := a
			if w%2 == 1 {
				c = b
			}
			for i := range 50 {
				if err := c.Put(ctx, key(w*1000+i), cache.Entry{Provider: "p", Op: "o", Response: []byte("{}")}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n, err := a.Len(ctx); n != 400 || err != nil {
		t.Errorf("Len = %d, %v; want 400", n, err)
	}
}

func TestOpenBadDir(t *testing.T) {
	f := t.TempDir() + "/file"
	if _, err := cache.Open(f + "/\x00"); err == nil {
		t.Errorf("Open of an impossible path succeeded")
	}
}

// BenchmarkCacheLookup measures cache hits on a 10k-row database.
// go test -run=^$ -bench CacheLookup -benchtime 20000x ./internal/llm/cache
// (figures in the package comment).
func BenchmarkCacheLookup(b *testing.B) {
	ctx := context.Background()
	c, err := cache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const rows = 10000
	resp := bytes.Repeat([]byte("x"), 300)
	for i := range rows {
		if err := c.Put(ctx, key(i), cache.Entry{Provider: "openai:m", Op: "generate", Response: resp}); err != nil {
			b.Fatal(err)
		}
	}
	keys := make([]cache.Key, rows)
	for i := range keys {
		keys[i] = key(i)
	}
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		if _, ok, err := c.Get(ctx, keys[i%rows]); !ok || err != nil {
			b.Fatalf("miss at %d: %v", i, err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	// On a shared, oversubscribed machine wall time mostly measures the
	// queue for a core; lookups per CPU-second of this process does not.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "lookups/cpu-s")
	}
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

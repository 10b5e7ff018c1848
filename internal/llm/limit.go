package llm

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Limits bound the load a Session puts on one provider endpoint
// (provider + base URL). Zero fields mean "no limit".
type Limits struct {
	Concurrency int     // requests in flight at once
	RPM         float64 // requests per minute
	TPM         float64 // tokens (prompt estimate + max_tokens) per minute
}

// limiter enforces Limits: a semaphore and two token buckets.
type limiter struct {
	sem      chan struct{}
	requests *bucket
	tokens   *bucket
}

func newLimiter(l Limits) *limiter {
	lim := &limiter{}
	if l.Concurrency > 0 {
		lim.sem = make(chan struct{}, l.Concurrency)
	}
	if l.RPM > 0 {
		lim.requests = newBucket(l.RPM/60, math.Max(1, l.RPM/60))
	}
	if l.TPM > 0 {
		lim.tokens = newBucket(l.TPM/60, l.TPM/60)
	}
	return lim
}

// acquire waits for a request slot, one request token and n tokens. The
// returned release must be called when the request is done.
func (l *limiter) acquire(ctx context.Context, n float64) (release func(), err error) {
	if err := l.requests.wait(ctx, 1); err != nil {
		return nil, err
	}
	if err := l.tokens.wait(ctx, n); err != nil {
		return nil, err
	}
	if l.sem == nil {
		return func() {}, nil
	}
	select {
	case l.sem <- struct{}{}:
		return func() { <-l.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// bucket is a token bucket that hands out reservations: a waiter takes its
// tokens at once (the level may go negative) and sleeps until the refill
// covers them, so waiters are served in arrival order.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	level  float64
	last   time.Time
	nowFun func() time.Time
}

func newBucket(rate, burst float64) *bucket {
	return &bucket{rate: rate, burst: burst, level: burst, last: time.Now(), nowFun: time.Now}
}

func (b *bucket) wait(ctx context.Context, n float64) error {
	if b == nil || n <= 0 {
		return ctx.Err()
	}
	n = math.Min(n, b.burst) // a request larger than the burst waits one full burst
	b.mu.Lock()
	now := b.nowFun()
	b.level = math.Min(b.burst, b.level+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.level -= n
	var d time.Duration
	if b.level < 0 {
		d = time.Duration(-b.level / b.rate * float64(time.Second))
	}
	b.mu.Unlock()
	if d == 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		b.level += n // give the reservation back
		b.mu.Unlock()
		return ctx.Err()
	}
}

// RetryPolicy configures retries of transient failures (429, 5xx, timeouts,
// connection resets, truncated bodies).
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; 0 → 5
	BaseDelay   time.Duration // first backoff ceiling; 0 → 500ms
	MaxDelay    time.Duration // backoff ceiling and longest Retry-After honoured; 0 → 60s
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	return p
}

// delay returns the wait before retry number attempt (0-based): the
// provider's Retry-After when given (capped at MaxDelay), else "full jitter"
// exponential backoff, uniform in [0, min(MaxDelay, BaseDelay·2^attempt)).
func (p RetryPolicy) delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.MaxDelay)
	}
	ceil := p.BaseDelay << min(attempt, 30)
	if ceil <= 0 || ceil > p.MaxDelay {
		ceil = p.MaxDelay
	}
	return time.Duration(rand.Int64N(int64(ceil)) + 1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

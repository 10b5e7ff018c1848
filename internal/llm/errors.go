package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/redact"
)

// ResponseError is a provider answer that was an HTTP error, or a 2xx answer
// that was malformed, truncated or empty. It never carries the API key: the
// body snippet is the provider's answer, not the request.
type ResponseError struct {
	Provider  string // spec-normalised model id, e.g. "openai:gpt-4o-mini"
	Op        string // "generate", "chat", "score", "embed", "batch"
	RequestID string
	Status    int    // HTTP status; 0 when no status line arrived
	Body      string // first bytes of the response body
	// Reason says what was wrong when Status is 2xx ("malformed JSON",
	// "truncated body", "no choices", ...).
	Reason string
	// RetryAfter is the wait the provider asked for (Retry-After or
	// retry-after-ms), 0 if none.
	RetryAfter time.Duration
	// Truncated marks a body cut short in transit; such errors are retried.
	Truncated bool
	Err       error // underlying decode or read error, if any
}

func (e *ResponseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", e.Provider, e.Op)
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	} else {
		b.WriteString("no status")
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ", %s", e.Reason)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	if e.Body != "" {
		fmt.Fprintf(&b, ": body %q", e.Body)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if hint := e.hint(); hint != "" {
		b.WriteString("; " + hint)
	}
	return redact.String(b.String())
}

func (e *ResponseError) hint() string {
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return "check the API key (environment variable or --key-file)"
	case e.Status == http.StatusNotFound:
		return "check the model name and base URL"
	case e.Status == http.StatusTooManyRequests:
		return "rate limited; lower the concurrency or requests-per-minute limit"
	}
	return ""
}

// Unwrap exposes the underlying error and the sentinel that decides the exit
// code: 401/403 → ErrUsage, 404 → ErrNotFound, 400/422 → ErrInput,
// everything else (429, 5xx, malformed 2xx) → ErrUnavailable.
func (e *ResponseError) Unwrap() []error {
	var sentinel error
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		sentinel = errs.ErrUsage
	case http.StatusNotFound:
		sentinel = errs.ErrNotFound
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		sentinel = errs.ErrInput
	default:
		sentinel = errs.ErrUnavailable
	}
	if e.Err != nil {
		return []error{sentinel, e.Err}
	}
	return []error{sentinel}
}

// Retryable reports whether the status or condition is transient. A 2xx
// answer that is malformed, truncated or empty ("content": null, no
// choices, an HTML page) is a fault of the provider, not an answer: it is
// retried and, if it persists, stops the run; it is never cached.
func (e *ResponseError) Retryable() bool {
	switch {
	case e.Truncated:
		return true
	case e.Status >= 200 && e.Status < 300:
		return true
	case e.Status == http.StatusTooManyRequests, e.Status == http.StatusRequestTimeout,
		e.Status == http.StatusConflict:
		return true
	case e.Status >= 500:
		return true
	}
	return false
}

// Snippet returns at most 512 bytes of body, cut at a rune boundary, with
// keys and the home directory redacted (an OpenAI 401 echoes the key).
func Snippet(body []byte) string {
	const max = 512
	s := redact.String(string(body))
	if len(s) <= max {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "\uFFFD") + "…"
}

// ParseRetryAfter reads the wait a provider asked for: retry-after-ms
// (milliseconds, OpenAI), else Retry-After in seconds or as an HTTP date.
// It returns 0 when neither is present or parseable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs > 0 && secs < 1e6 {
			return time.Duration(secs * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Unsupported returns the error for an operation a provider cannot perform:
// "<id> cannot <what>: <why>; <instead>", wrapping errs.ErrUnsupported.
func Unsupported(id, what, why, instead string) error {
	msg := fmt.Sprintf("%s cannot %s: %s", id, what, why)
	if instead != "" {
		msg += "; " + instead
	}
	return fmt.Errorf("%s: %w", msg, errs.ErrUnsupported)
}

// brokenConnection are the errors of a connection that failed mid-way,
// which a retry may well get past.
var brokenConnection = []error{syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE, io.ErrUnexpectedEOF, io.EOF}

// transient reports whether err is worth retrying and how long the provider
// asked to wait. parent is the caller's context: when it is done nothing is
// retried.
func transient(parent context.Context, err error) (bool, time.Duration) {
	if err == nil || parent.Err() != nil {
		return false, 0
	}
	var re *ResponseError
	if errors.As(err, &re) {
		return re.Retryable(), re.RetryAfter
	}
	if errors.Is(err, context.DeadlineExceeded) { // per-attempt timeout
		return true, 0
	}
	if errors.Is(err, context.Canceled) {
		return false, 0
	}
	for _, target := range brokenConnection {
		if errors.Is(err, target) {
			return true, 0
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, 0
	}
	var ue *url.Error
	if errors.As(err, &ue) { // any other transport failure
		return true, 0
	}
	return false, 0
}

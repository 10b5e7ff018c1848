package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/redact"
)

// Spec is a parsed model spec: "provider:model[@baseURL]".
type Spec struct {
	Provider string // "openai", "anthropic", "ngram", ...
	Model    string // model name, or a file path for in-process providers
	BaseURL  string // normalised (no trailing slash); "" = provider default
}

const specForms = `accepted forms: "openai:gpt-4o-mini", ` +
	`"openai:qwen2.5-coder-7b@http://127.0.0.1:8000/v1", ` +
	`"anthropic:claude-sonnet-4-5", "ngram:models/jdk.bfng"`

// ParseSpec parses "provider:model[@http(s)://host[:port]/path]". The model
// may itself contain ':' (Ollama tags such as "qwen2.5-coder:7b"). A bad spec
// is an error wrapping errs.ErrUsage naming the spec and the accepted forms.
func ParseSpec(s string) (Spec, error) {
	bad := func(why string) (Spec, error) {
		return Spec{}, fmt.Errorf("model spec %q: %s; %s: %w", s, why, specForms, errs.ErrUsage)
	}
	provider, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || provider == "" {
		return bad("missing provider prefix")
	}
	if !validProvider(provider) {
		return bad("provider must be lower-case letters, digits, '-' or '_'")
	}
	sp := Spec{Provider: provider, Model: rest}
	// A base URL follows "@http"; any other '@' is a base URL that is not
	// one ("x@notaurl" must not pass as a model named so).
	i := strings.LastIndex(rest, "@http")
	if i < 0 {
		i = strings.LastIndex(rest, "@")
	}
	if i >= 0 {
		base, why := normaliseBaseURL(rest[i+1:])
		if why != "" {
			return bad(why)
		}
		sp.Model, sp.BaseURL = rest[:i], base
	}
	if sp.Model == "" {
		return bad("missing model name")
	}
	if strings.ContainsAny(sp.Model, " \t\r\n") {
		return bad("model name contains whitespace")
	}
	return sp, nil
}

// validProvider reports whether a provider name is lower-case letters,
// digits, '-' and '_'.
func validProvider(provider string) bool {
	for _, r := range provider {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// normaliseBaseURL checks a spec's base URL and drops its trailing
// slashes; why says what is wrong with it, or is "".
func normaliseBaseURL(raw string) (base, why string) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", fmt.Sprintf("bad base URL %q: not an http(s) URL with a host (want http(s)://host[:port][/path])", raw)
	case u.User != nil:
		return "", "base URL must not carry credentials; put keys in the environment or a --key-file"
	case u.RawQuery != "" || u.Fragment != "":
		return "", "base URL must not have a query or fragment"
	}
	return strings.TrimRight(u.String(), "/"), ""
}

// String is the normalised spec; it round-trips through ParseSpec.
func (s Spec) String() string {
	if s.BaseURL == "" {
		return s.Provider + ":" + s.Model
	}
	return s.Provider + ":" + s.Model + "@" + s.BaseURL
}

// Loopback reports whether the base URL points at this machine (127.0.0.0/8,
// ::1 or "localhost"); such endpoints need no API key.
func (s Spec) Loopback() bool {
	if s.BaseURL == "" {
		return false
	}
	u, err := url.Parse(s.BaseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Options configure how a provider Model is constructed.
type Options struct {
	// KeyFile, when set, holds the API key (first line, whitespace trimmed)
	// and takes precedence over the provider's environment variable.
	KeyFile string
	// HTTPClient is used for every request; nil means a fresh client.
	HTTPClient *http.Client
	// Timeout bounds one HTTP attempt (retries are the Session's business);
	// 0 means 2 minutes.
	Timeout time.Duration
}

// AttemptTimeout returns o.Timeout or its default.
func (o Options) AttemptTimeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 2 * time.Minute
}

// APIKey resolves the key for spec: the key file if set, else the environment
// variable envVar. A missing key is an error (wrapping errs.ErrUsage) unless
// the endpoint is loopback. The key's value never appears in an error.
func (o Options) APIKey(spec Spec, envVar string) (string, error) {
	if o.KeyFile != "" {
		b, err := os.ReadFile(o.KeyFile)
		if err != nil {
			return "", fmt.Errorf("%s: read key file %s: %w: %w", spec, o.KeyFile, errs.ErrUsage, err)
		}
		key, _, _ := strings.Cut(string(b), "\n")
		key = strings.TrimSpace(key)
		if key == "" {
			return "", fmt.Errorf("%s: key file %s is empty: %w", spec, o.KeyFile, errs.ErrUsage)
		}
		redact.Register(key)
		return key, nil
	}
	if key := strings.TrimSpace(os.Getenv(envVar)); key != "" {
		return key, nil
	}
	if spec.Loopback() {
		return "", nil
	}
	return "", fmt.Errorf("%s: no API key: set %s or pass --key-file (loopback base URLs need none): %w",
		spec, envVar, errs.ErrUsage)
}

// Constructor builds a provider Model from a spec whose Provider is the
// registered name.
type Constructor func(Spec, Options) (Model, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Constructor{}
)

// Register makes a provider available to Open under name. It is meant to be
// called from a provider package's init; registering a name twice replaces
// the earlier constructor.
func Register(name string, ctor Constructor) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = ctor
}

// Providers lists the registered provider names, sorted.
func Providers() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open parses spec and constructs the bare provider Model (no cache, retries
// or budget; use Session.Open for those).
func Open(spec string, opts Options) (Model, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return OpenSpec(sp, opts)
}

// OpenSpec constructs the bare provider Model for a parsed spec.
func OpenSpec(sp Spec, opts Options) (Model, error) {
	registryMu.RLock()
	ctor, ok := registry[sp.Provider]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("model %q: unknown provider %q (registered: %s); %s: %w",
			sp, sp.Provider, strings.Join(Providers(), ", "), specForms, errs.ErrUsage)
	}
	m, err := ctor(sp, opts)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", sp, err)
	}
	return m, nil
}

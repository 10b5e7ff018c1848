package ngramllm

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/openai"
	"github.com/benchforge/benchforge/internal/ngram"
)

// Serve starts the OpenAI-compatible server of internal/ngram for m under
// the name id on a free loopback port and returns an llm.Model that talks
// to it over real HTTP through the openai provider, as a remote model
// would be probed; stop closes the server.
func Serve(m *ngram.Model, id string) (model llm.Model, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("ngramllm.Serve: listen on loopback: %v: %w", err, errs.ErrUnavailable)
	}
	srv := &http.Server{Handler: ngram.NewServer(m, id), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	sp := llm.Spec{Provider: "openai", Model: id, BaseURL: "http://" + ln.Addr().String() + "/v1"}
	cl, err := openai.New(sp, llm.Options{Timeout: time.Minute})
	if err != nil {
		srv.Close()
		return nil, nil, fmt.Errorf("ngramllm.Serve: open %s: %w", sp, err)
	}
	return cl, func() { srv.Close() }, nil
}

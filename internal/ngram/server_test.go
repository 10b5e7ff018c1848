package ngram

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	serverModelOnce sync.Once
	serverModel     *Model
)

// testServer starts a real loopback HTTP server for a model trained on
// javaCorpus.
func testServer(t testing.TB) *httptest.Server {
	t.Helper()
	serverModelOnce.Do(func() {
		serverModel = train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 6)
	})
	srv := httptest.NewServer(NewServer(serverModel, "java-6gram"))
	t.Cleanup(srv.Close)
	return srv
}

func post(t testing.TB, srv *httptest.Server, path, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("POST %s: response %q is not JSON: %v", path, data, err)
	}
	return resp.StatusCode, v
}

func TestServerModels(t *testing.T) {
	srv := testServer(t)
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Object string `json:"object"`
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || v.Object != "list" || len(v.Data) != 1 || v.Data[0].ID != "java-6gram" || v.Data[0].Object != "model" {
		t.Errorf("GET /v1/models = %d %+v", resp.StatusCode, v)
	}
}

type wireResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Text     string `json:"text"`
		Index    int    `json:"index"`
		Logprobs *struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []*float64           `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			TextOffset    []int                `json:"text_offset"`
		} `json:"logprobs"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func complete(t *testing.T, srv *httptest.Server, body string) wireResponse {
	t.Helper()
	resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /v1/completions %s = %d %s", body, resp.StatusCode, data)
	}
	var v wireResponse
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("response %s: %v", data, err)
	}
	return v
}

func TestServerCompletions(t *testing.T) {
	srv := testServer(t)
	v := complete(t, srv, `{"model":"java-6gram","prompt":"public class","max_tokens":8,"temperature":0,"logprobs":2}`)
	if v.Object != "text_completion" || v.Model != "java-6gram" || !strings.HasPrefix(v.ID, "cmpl-") || v.Created == 0 || len(v.Choices) != 1 {
		t.Fatalf("response envelope: %+v", v)
	}
	c := v.Choices[0]
	lp := c.Logprobs
	if lp == nil || strings.Join(lp.Tokens, "") != c.Text || len(lp.TokenLogprobs) != len(lp.Tokens) || len(lp.TopLogprobs) != len(lp.Tokens) || len(lp.TextOffset) != len(lp.Tokens) {
		t.Fatalf("logprobs do not line up with text %q: %+v", c.Text, lp)
	}
	if lp.TextOffset[0] != len("public class") {
		t.Errorf("first text_offset %d, want %d", lp.TextOffset[0], len("public class"))
	}
	for i, top := range lp.TopLogprobs {
		if len(top) == 0 || len(top) > 2 || lp.TokenLogprobs[i] == nil || *lp.TokenLogprobs[i] > 0 {
			t.Errorf("position %d: top %v, logprob %v", i, top, lp.TokenLogprobs[i])
		}
	}
	if v.Usage.PromptTokens != 2 || v.Usage.CompletionTokens != len(lp.Tokens) || v.Usage.TotalTokens != 2+len(lp.Tokens) {
		t.Errorf("usage %+v", v.Usage)
	}
}

// TestServerEchoScoring is how the audit scores text: echo, logprobs and
// max_tokens 0 return the prompt's token log-probabilities, the first null.
func TestServerEchoScoring(t *testing.T) {
	srv := testServer(t)
	text := "    public int get() {\n        return count;\n    }"
	body, _ := json.Marshal(map[string]any{"model": "java-6gram", "prompt": text, "max_tokens": 0, "echo": true, "logprobs": 0})
	v := complete(t, srv, string(body))
	c := v.Choices[0]
	if c.Text != text || c.FinishReason != FinishLength {
		t.Errorf("echo text %q (%s), want the prompt (length)", c.Text, c.FinishReason)
	}
	want := serverModel.ScoreText(text)
	lp := c.Logprobs
	if len(lp.Tokens) != len(want) || lp.TokenLogprobs[0] != nil || lp.TopLogprobs != nil {
		t.Fatalf("echo logprobs %+v: want %d tokens, first null, no top_logprobs", lp, len(want))
	}
	for i := 1; i < len(want); i++ {
		if lp.Tokens[i] != want[i].Token || lp.TextOffset[i] != want[i].Offset || *lp.TokenLogprobs[i] != want[i].LogProb {
			t.Errorf("token %d: got %q@%d %v, want %+v", i, lp.Tokens[i], lp.TextOffset[i], *lp.TokenLogprobs[i], want[i])
		}
	}
	if v.Usage.PromptTokens != len(want) || v.Usage.CompletionTokens != 0 {
		t.Errorf("usage %+v", v.Usage)
	}
}

func TestServerSeedStopAndBatch(t *testing.T) {
	srv := testServer(t)
	body := `{"model":"java-6gram","prompt":["public","private"],"n":3,"max_tokens":12,"temperature":1,"seed":5}`
	a, b := complete(t, srv, body), complete(t, srv, body)
	if len(a.Choices) != 6 {
		t.Fatalf("2 prompts x n=3: %d choices", len(a.Choices))
	}
	for i := range a.Choices {
		if a.Choices[i].Index != i || a.Choices[i].Text != b.Choices[i].Text {
			t.Errorf("choice %d: index %d, texts %q vs %q (same seed must repeat)", i, a.Choices[i].Index, a.Choices[i].Text, b.Choices[i].Text)
		}
	}
	full := complete(t, srv, `{"model":"java-6gram","prompt":"public","max_tokens":12,"temperature":0}`).Choices[0].Text
	stopped := complete(t, srv, `{"model":"java-6gram","prompt":"public","max_tokens":12,"temperature":0,"stop":"class"}`).Choices[0]
	if i := strings.Index(full, "class"); i < 0 || stopped.Text != full[:i] || stopped.FinishReason != "stop" {
		t.Errorf("stop: full %q, stopped %+v", full, stopped)
	}
	echo := complete(t, srv, `{"model":"java-6gram","prompt":"public","max_tokens":3,"temperature":0,"echo":true}`).Choices[0]
	if !strings.HasPrefix(echo.Text, "public") || echo.Text != "public"+complete(t, srv, `{"model":"java-6gram","prompt":"public","max_tokens":3,"temperature":0}`).Choices[0].Text {
		t.Errorf("echo text %q", echo.Text)
	}
}

func TestServerErrors(t *testing.T) {
	srv := testServer(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		param                    string
	}{
		{"bad json", "POST", "/v1/completions", `{"model":`, 400, ""},
		{"no model", "POST", "/v1/completions", `{"prompt":"x"}`, 400, "model"},
		{"unknown model", "POST", "/v1/completions", `{"model":"gpt-9","prompt":"x"}`, 404, "model"},
		{"no prompt", "POST", "/v1/completions", `{"model":"java-6gram"}`, 400, "prompt"},
		{"token prompt", "POST", "/v1/completions", `{"model":"java-6gram","prompt":[1,2]}`, 400, "prompt"},
		{"bad n", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","n":0}`, 400, "n"},
		{"bad temperature", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","temperature":3}`, 400, "temperature"},
		{"bad top_p", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","top_p":0}`, 400, "top_p"},
		{"bad logprobs", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","logprobs":99}`, 400, "logprobs"},
		{"too many stops", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","stop":["a","b","c","d","e"]}`, 400, "stop"},
		{"stream", "POST", "/v1/completions", `{"model":"java-6gram","prompt":"x","stream":true}`, 400, "stream"},
		{"unknown path", "GET", "/v1/embeddings", ``, 404, ""},
		{"wrong method", "GET", "/v1/completions", ``, 405, ""},
		{"wrong method models", "DELETE", "/v1/models", ``, 405, ""},
		{"unknown model get", "GET", "/v1/models/other", ``, 404, "model"},
		{"chat no messages", "POST", "/v1/chat/completions", `{"model":"java-6gram","messages":[]}`, 400, "messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var v struct {
				Error *struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || v.Error == nil || v.Error.Message == "" || v.Error.Type == "" {
				t.Fatalf("status %d error %+v, want %d with an OpenAI error object", resp.StatusCode, v.Error, tt.status)
			}
			var param string
			if v.Error.Param != nil {
				param = *v.Error.Param
			}
			if param != tt.param {
				t.Errorf("param %q, want %q", param, tt.param)
			}
		})
	}
}

func TestServerChat(t *testing.T) {
	srv := testServer(t)
	status, v := post(t, srv, "/v1/chat/completions", `{"model":"java-6gram","messages":[{"role":"user","content":"public class"}],"max_tokens":5,"temperature":0}`)
	if status != 200 || v["object"] != "chat.completion" {
		t.Fatalf("chat: %d %v", status, v)
	}
	choice := v["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	want, _ := serverModel.Sample(t.Context(), "public class", SampleOptions{MaxTokens: 5})
	if diff := cmp.Diff(map[string]any{"role": "assistant", "content": want[0].Text}, msg); diff != "" {
		t.Errorf("chat message (-want +got):\n%s", diff)
	}
}

func FuzzServerRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","prompt":"public class","max_tokens":4,"logprobs":3,"echo":true}`,
		`{"model":"m","prompt":["a","b"],"n":2,"stop":["x"],"seed":-1,"top_p":0.5,"top_k":3}`,
		`{"model":"m","prompt":"","max_tokens":0,"echo":true,"logprobs":0}`,
		`{"model":"m","messages":[{"role":"user","content":"x"}]}`,
		`{"model":"m","prompt":"x","temperature":1e308}`, `[]`, `null`, `{"prompt":{}}`,
	} {
		f.Add("/v1/completions", s)
	}
	f.Add("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"int x"}],"n":2}`)
	m := train(f, Corpus{Paths: []string{writeFiles(f, javaCorpus)}}, 4)
	h := NewServer(m, "m")
	f.Fuzz(func(t *testing.T, path, body string) {
		req := httptest.NewRequest("POST", "http://x/v1/completions", strings.NewReader(body))
		if strings.Contains(path, "chat") {
			req = httptest.NewRequest("POST", "http://x/v1/chat/completions", strings.NewReader(body))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("response is not JSON: %q", rec.Body.String())
		}
	})
}

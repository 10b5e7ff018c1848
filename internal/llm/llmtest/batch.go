package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// fakeBatch is a Batch API job of the fake server. It is "in_progress" on
// the first poll and "completed" from the second on.
type fakeBatch struct {
	id, input, output string
	polls             int
	total             int
}

func (b *fakeBatch) json() map[string]any {
	status := "in_progress"
	var out any
	if b.polls > 1 {
		status, out = "completed", b.output
	}
	return map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": nil,
		"input_file_id": b.input, "completion_window": "24h", "status": status,
		"output_file_id": out, "error_file_id": nil, "created_at": 1700000000,
		"request_counts": map[string]any{"total": b.total, "completed": map[bool]int{true: b.total}[status == "completed"], "failed": 0}}
}

// batchAPI serves POST /files (multipart, purpose=batch), GET
// /files/{id}/content, POST /batches and GET /batches/{id} in the shapes
// of OpenAI's Batch API.
func (f *OpenAI) batchAPI(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.files == nil {
		f.files, f.batches = map[string][]byte{}, map[string]*fakeBatch{}
	}
	path := r.URL.Path[strings.Index(r.URL.Path, "/v1")+3:]
	switch {
	case r.Method == http.MethodPost && path == "/files":
		f.uploadFile(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/files/") && strings.HasSuffix(path, "/content"):
		f.fileContent(w, strings.TrimSuffix(strings.TrimPrefix(path, "/files/"), "/content"))
	case r.Method == http.MethodPost && path == "/batches":
		f.createBatch(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/batches/"):
		f.pollBatch(w, strings.TrimPrefix(path, "/batches/"))
	default:
		OpenAIError(w, 404, "invalid_request_error", "unknown path "+r.URL.Path)
	}
}

// uploadFile serves POST /files.
func (f *OpenAI) uploadFile(w http.ResponseWriter, r *http.Request) {
	file, hdr, err := r.FormFile("file")
	if err != nil || r.FormValue("purpose") != "batch" {
		OpenAIError(w, 400, "invalid_request_error", fmt.Sprintf("want a multipart file with purpose=batch: %v", err))
		return
	}
	data, _ := io.ReadAll(file)
	id := fmt.Sprintf("file-%d", len(f.files)+1)
	f.files[id] = data
	writeJSON(w, 200, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": 1700000000,
		"filename": hdr.Filename, "purpose": "batch", "status": "processed"})
}

// fileContent serves GET /files/{id}/content.
func (f *OpenAI) fileContent(w http.ResponseWriter, id string) {
	data, ok := f.files[id]
	if !ok {
		OpenAIError(w, 404, "invalid_request_error", "no such file")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

// createBatch serves POST /batches, answering the whole input file at once.
func (f *OpenAI) createBatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	input, ok := f.files[req.InputFileID]
	if !ok || req.Endpoint != "/v1/chat/completions" || req.CompletionWindow != "24h" {
		OpenAIError(w, 400, "invalid_request_error", fmt.Sprintf("bad batch request %+v", req))
		return
	}
	out, n, err := f.runBatch(input)
	if err != nil {
		OpenAIError(w, 400, "invalid_request_error", err.Error())
		return
	}
	b := &fakeBatch{id: fmt.Sprintf("batch_%d", len(f.batches)+1), input: req.InputFileID, total: n}
	b.output = fmt.Sprintf("file-out-%s", b.id)
	f.files[b.output] = out
	f.batches[b.id] = b
	writeJSON(w, 200, b.json())
}

// pollBatch serves GET /batches/{id}.
func (f *OpenAI) pollBatch(w http.ResponseWriter, id string) {
	b, ok := f.batches[id]
	if !ok {
		OpenAIError(w, 404, "invalid_request_error", "no such batch")
		return
	}
	b.polls++
	writeJSON(w, 200, b.json())
}

// runBatch answers every line of a batch input file with the fake's chat
// handler and returns the output file.
func (f *OpenAI) runBatch(input []byte) ([]byte, int, error) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		var line struct {
			CustomID string         `json:"custom_id"`
			Method   string         `json:"method"`
			URL      string         `json:"url"`
			Body     map[string]any `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.CustomID == "" || line.Method != "POST" || line.URL != "/v1/chat/completions" {
			return nil, 0, fmt.Errorf("bad batch line %d: %s (%v)", n+1, sc.Bytes(), err)
		}
		n++
		rec := httptest.NewRecorder()
		f.chat(rec, line.Body, int64(1000+n))
		res := map[string]any{"id": fmt.Sprintf("batch_req_%d", n), "custom_id": line.CustomID, "error": nil,
			"response": map[string]any{"status_code": rec.Code, "request_id": fmt.Sprintf("req_batch_%d", n),
				"body": json.RawMessage(rec.Body.Bytes())}}
		b, _ := json.Marshal(res)
		out.Write(append(b, '\n'))
	}
	return out.Bytes(), n, sc.Err()
}

package anthropic

import (
	"testing"

	"github.com/benchforge/benchforge/internal/llm"
)

// FuzzResultsLine feeds arbitrary results-file lines to the decoder: it must
// never panic, every accepted line must belong to exactly one caller id, and
// every caller id gets either an answer or an error.
func FuzzResultsLine(f *testing.F) {
	f.Add([]byte(`{"custom_id":"a__0of1","result":{"type":"succeeded","message":{"id":"msg_1","model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":1}}}}`))
	f.Add([]byte(`{"custom_id":"a__1of2","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"bad"},"request_id":"r"}}}`))
	f.Add([]byte(`{"custom_id":"x__0of3","result":{"type":"expired"}}`))
	f.Add([]byte(`{"custom_id":"__0of1","result":{"type":"canceled"}}`))
	f.Add([]byte(`{"custom_id":"a__99999999999999999999of2"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		g := newGather("anthropic:m", "msgbatch_1")
		err := g.line(line, 1)
		res := g.results()
		if err != nil && len(res) != 0 {
			t.Fatalf("rejected line %q still produced results %v", line, res)
		}
		if len(res) > 1 {
			t.Fatalf("one line produced %d ids", len(res))
		}
		for id, r := range res {
			checkOneOutcome(t, id, r)
		}
	})
}

func checkOneOutcome(t *testing.T, id string, r llm.BatchChatResult) {
	t.Helper()
	if (r.Resp == nil) == (r.Err == nil) {
		t.Fatalf("id %q: want exactly one of answer and error, got %+v", id, r)
	}
	if r.Err != nil && len(r.Err.Error()) == 0 {
		t.Fatalf("id %q: empty error", id)
	}
}

// subIDParts is what parseSubID returns.
type subIDParts struct {
	id   string
	i, n int
	ok   bool
}

// FuzzSubID: a custom_id that parses re-encodes to one that parses the same.
func FuzzSubID(f *testing.F) {
	for _, s := range []string{"a__0of1", "abc__3of4", "a__b__1of2", "a__2of2", "__0of1", "a__0of0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, i, n, ok := parseSubID(s)
		if !ok {
			return
		}
		if i < 0 || i >= n || id == "" {
			t.Fatalf("parseSubID(%q) = %q, %d, %d", s, id, i, n)
		}
		id2, i2, n2, ok2 := parseSubID(subID(id, i, n))
		if got := (subIDParts{id2, i2, n2, ok2}); got != (subIDParts{id, i, n, true}) {
			t.Fatalf("round trip of %q: %q %d %d %v", s, id2, i2, n2, ok2)
		}
	})
}

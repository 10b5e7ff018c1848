package release

import (
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// FuzzSchemaValidate: ParseSchema and Validate never panic, and a schema
// that parses re-parses from its own rendering.
func FuzzSchemaValidate(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":0}},"additionalProperties":false}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"type":"array","items":{"type":"string","enum":["x"]}}`), []byte(`["x","y",null]`))
	f.Add([]byte(`{"minimum":1e308}`), []byte(`-1e309`))
	f.Fuzz(func(t *testing.T, schema, doc []byte) {
		s, err := ParseSchema(schema)
		if err != nil {
			return
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatalf("marshal parsed schema: %v", err)
		}
		if _, err := ParseSchema(b); err != nil {
			t.Fatalf("rendered schema does not re-parse: %v\n%s", err, b)
		}
		if v, err := decodeValue(doc); err == nil {
			_ = s.Validate(v)
		}
	})
}

// FuzzReadRecords: the release file readers never panic, and every record
// they return has a line inside the file and valid JSON.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte("[\n{\"a\":1},\n{\"b\":2}\n]\n"))
	f.Add([]byte("pair_id,partition,example_bug_ids\np,core,a;b\n\"q\n\",x,\n"))
	f.Add([]byte("{\"pair_id\":\"x\"}\n{oops\n"))
	schema, err := SchemaFor(GenerationRow{}, "", "")
	testcheck.Must(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		check := func(kind string, recs []rawRecord, probs []Problem) {
			for _, r := range recs {
				if r.Line < 1 || r.Line > lines {
					t.Fatalf("%s: record line %d outside 1..%d", kind, r.Line, lines)
				}
				if _, err := decodeValue(r.JSON); err != nil {
					t.Fatalf("%s: record JSON does not decode: %v", kind, err)
				}
				_ = schema.Validate(r.Value)
			}
			for _, p := range probs {
				if p.Line < 0 || p.Line > lines {
					t.Fatalf("%s: problem line %d outside 0..%d", kind, p.Line, lines)
				}
			}
		}
		r, p := readJSONL("f", data)
		check("jsonl", r, p)
		r, p = readJSONArray("f", data)
		check("json", r, p)
		r, p = readCSV("f", data, schema)
		check("csv", r, p)
	})
}

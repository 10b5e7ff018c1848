package release

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TestRecordTypesCarryPipelineFields: the release types keep every field
// of the pipeline types they are converted from.
func TestRecordTypesCarryPipelineFields(t *testing.T) {
	if d := cmp.Diff(jsonFields(reflect.TypeOf(corpus.Seed{})), jsonFields(reflect.TypeOf(SeedRecord{}))); d != "" {
		t.Errorf("SeedRecord vs corpus.Seed fields (-seed +release):\n%s", d)
	}
	if d := cmp.Diff(jsonFields(reflect.TypeOf(corpus.Span{})), jsonFields(reflect.TypeOf(SeedSpan{}))); d != "" {
		t.Errorf("SeedSpan vs corpus.Span:\n%s", d)
	}
	if d := cmp.Diff(jsonFields(reflect.TypeOf(corpus.Judgement{})), jsonFields(reflect.TypeOf(CoreJudge{}))); d != "" {
		t.Errorf("CoreJudge vs corpus.Judgement:\n%s", d)
	}
	want := append(jsonFields(reflect.TypeOf(corpus.Pair{})), "partition", "validation", "code_license")
	sort.Strings(want)
	if d := cmp.Diff(want, jsonFields(reflect.TypeOf(CorePair{}))); d != "" {
		t.Errorf("CorePair vs corpus.Pair + partition + validation + code_license:\n%s", d)
	}
}

// TestSchemasMatchTypes: each schema's properties are exactly the type's
// JSON fields, required are exactly those without omitempty, and a value
// of the type with every field set validates.
func TestSchemasMatchTypes(t *testing.T) {
	schemas, err := Schemas()
	testcheck.Must(t, err)
	yes := true
	full := map[string]any{
		"core.jsonl": CorePair{PairID: "p", SampleID: "s", Partition: PartCore, ErrorType: corpus.NullPointer, BuggyMethod: "b", FixedMethod: "f",
			ExampleBugIDs: []string{"x"}, Generator: "g", PromptHash: "h", SizeTarget: 3,
			Validation: CoreValidation{By: ValidatedByJVM, JVM: &CoreExecution{JDK: "17", Regime: "methods-only", Input: "f(null)", SiteLines: []int{1, 2}, FixedSiteLines: []int{1, 2, 3},
				BuggyOutcome: CoreOutcome{Kind: "threw", Exception: "java.lang.NullPointerException", Line: 2, Message: "m"}, FixedOutcome: CoreOutcome{Kind: "returned"}, InputsTried: 1, Budget: 200}},
			Judge: &CoreJudge{Model: "m", Confidence: 0.5, Site: "s", SiteLine: 2, Trigger: "t", Verdict: "accept", Repaired: true}, Flags: CoreFlags{true, true}},
		"excluded.jsonl": ExcludedRecord{PairID: "p", SampleID: "s", Partition: PartExcluded, ErrorType: corpus.ClassCast, Stage: StageGate, Category: "c", Reason: "r", Generator: "g", Model: "m", Rubric: "r"},
		"contrast.jsonl": ContrastRecord{ID: "z", Partition: PartContrast, ErrorType: corpus.NumberFormat, BuggyMethod: "b", FixedMethod: "f", Generator: "g", PromptHash: "h"},
		"seeds.json": SeedRecord{BugID: "b", SourceBug: "s", Benchmark: "D4J", Project: "P", Exception: corpus.IllegalState, BuggyMethod: "b", FixedMethod: "f",
			File: "F", MethodSignature: "m()", BuggySpan: SeedSpan{1, 2}, FixedSpan: SeedSpan{1, 3}, Diff: "d"},
		"id_map.csv": IDMapRow{ID: "a", SourceBug: "b", Kind: KindAlias},
		"generation.csv": GenerationRow{PairID: "p", Partition: PartCore, ErrorType: corpus.StringIndexOOB, Generator: "g", Operator: "o", PromptHash: "h", SizeTarget: 1,
			ExampleBugIDs: []string{"a"}, SourceBugs: []string{"b"}, SourceFile: "f", SourceMethod: "m", SourceStartLine: 1, SourceSiteLine: 2,
			Execution: "confirmed", ExecA: &yes, ExecB: &yes, ExecC: &yes},
	}
	for _, f := range dataFiles {
		s := schemas[f.Schema]
		typ := reflect.TypeOf(f.typ)
		var props []string
		for k := range s.Properties {
			props = append(props, k)
		}
		sort.Strings(props)
		if d := cmp.Diff(jsonFields(typ), props); d != "" {
			t.Errorf("%s: properties vs fields:\n%s", f.Schema, d)
		}
		var req []string
		for i := range typ.NumField() {
			name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if !strings.Contains(opts, "omitempty") {
				req = append(req, name)
			}
		}
		if d := cmp.Diff(req, s.Required); d != "" {
			t.Errorf("%s: required:\n%s", f.Schema, d)
		}
		raw, _ := json.Marshal(full[f.Path])
		v, err := decodeValue(raw)
		testcheck.Must(t, err)
		if got := s.Validate(v); len(got) > 0 {
			t.Errorf("%s: full value invalid: %v", f.Schema, got)
		}
		if !contains(s.Required, f.Key) {
			t.Errorf("%s: key %s is not required", f.Schema, f.Key)
		}
		// Round trip through the document form.
		b, err := s.Marshal()
		testcheck.Must(t, err)
		back, err := ParseSchema(b)
		if err != nil {
			t.Fatalf("%s: %v", f.Schema, err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("%s: schema does not round-trip", f.Schema)
		}
	}
}

func TestValidate(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"required":["a","n"],
	 "properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":"integer","minimum":1},
	 "f":{"type":"number"},"b":{"type":"boolean"},
	 "xs":{"type":"array","items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}}`
	s, err := ParseSchema([]byte(schema))
	testcheck.Must(t, err)
	tests := []struct {
		doc  string
		want []string
	}{
		{`{"a":"x","n":1}`, nil},
		{`{"a":"x","n":1.0,"f":2.5e3,"b":false,"xs":[{"k":"v","other":1}]}`, nil}, // nested object allows extras: no additionalProperties there
		{`{"n":1}`, []string{"field a: required field is missing"}},
		{`{"a":"z","n":1}`, []string{`field a: value "z" is not one of x, y`}},
		{`{"a":"x","n":0}`, []string{"field n: value 0 is below the minimum 1"}},
		{`{"a":"x","n":1.5}`, []string{"field n: want integer, got number"}},
		{`{"a":"x","n":"1"}`, []string{"field n: want integer, got string"}},
		{`{"a":null,"n":1}`, []string{"field a: want string, got null"}},
		{`{"a":"x","n":1,"zz":true}`, []string{"field zz: unknown field (additionalProperties is false)"}},
		{`{"a":"x","n":1,"xs":[{"k":"v"},{}]}`, []string{"field xs[1].k: required field is missing"}},
		{`{"a":"x","n":1,"xs":{}}`, []string{"field xs: want array, got object"}},
		{`[]`, []string{"want object, got array"}},
		{`{"a":"x","n":1,"b":"true"}`, []string{"field b: want boolean, got string"}},
	}
	for _, tt := range tests {
		v, err := decodeValue([]byte(tt.doc))
		testcheck.Must(t, err)
		var got []string
		for _, fe := range s.Validate(v) {
			got = append(got, fe.String())
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s:\n%s", tt.doc, d)
		}
	}
}

func TestParseSchemaRejects(t *testing.T) {
	tests := []struct {
		doc  string
		want error
	}{
		{`{"type":"string","pattern":"a+"}`, errs.ErrUnsupported},
		{`{"type":"object","additionalProperties":true}`, errs.ErrUnsupported},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, errs.ErrInput},
		{`{"type":"str"}`, errs.ErrInput},
		{`{"type":"object","required":["a"]}`, errs.ErrInput},
		{`{"type":"object","properties":{"a":null}}`, errs.ErrInput},
		{`{"enum":[1,2]}`, errs.ErrInput},
		{`{} {}`, errs.ErrInput},
		{`not json`, errs.ErrInput},
	}
	for _, tt := range tests {
		if _, err := ParseSchema([]byte(tt.doc)); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.doc, err, tt.want)
		}
	}
}

func TestReadJSONArrayLines(t *testing.T) {
	data := []byte("[\n{\"a\":1},\n\n  {\"a\":2}\n, {\"a\":3}]\n")
	recs, probs := readJSONArray("x.json", data)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	var lines []int
	for _, r := range recs {
		lines = append(lines, r.Line)
	}
	if d := cmp.Diff([]int{2, 4, 5}, lines); d != "" {
		t.Error(d)
	}
	for _, bad := range []string{`{"a":1}`, "[\n{\"a\":1},\n{oops}\n]", "[{}", "[{}] x"} {
		if _, probs := readJSONArray("x.json", []byte(bad)); len(probs) == 0 {
			t.Errorf("%q: no problem reported", bad)
		}
	}
}

func TestReadCSVTyping(t *testing.T) {
	s, err := SchemaFor(GenerationRow{}, "", "")
	testcheck.Must(t, err)
	data := []byte("pair_id,partition,error_type,generator,example_bug_ids,source_bugs,size_target,exec_a\n" +
		"p,core,NullPointerException,g,a;b,,7,true\n" +
		"q,core,NullPointerException,g,,,1e400,yes\n" +
		"\"r\nr\",core,NullPointerException,g,,,,\n")
	recs, probs := readCSV("g.csv", data, s)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if len(recs) != 3 || recs[0].Line != 2 || recs[1].Line != 3 || recs[2].Line != 4 {
		t.Fatalf("records/lines: %+v", recs)
	}
	if fe := s.Validate(recs[0].Value); len(fe) > 0 {
		t.Errorf("row 1: %v", fe)
	}
	var got []string
	for _, fe := range s.Validate(recs[1].Value) {
		got = append(got, fe.String())
	}
	if d := cmp.Diff([]string{"field exec_a: want boolean, got string", "field size_target: want integer, got number"}, got); d != "" {
		t.Errorf("row 2:\n%s", d)
	}
	_, probs = readCSV("g.csv", []byte("pair_id,bogus\np,x\n"), s)
	if len(probs) != 1 || probs[0].Field != "bogus" || probs[0].Line != 1 {
		t.Errorf("unknown column: %v", probs)
	}
	_, probs = readCSV("g.csv", []byte("pair_id,partition\np\n"), s)
	if len(probs) != 1 || probs[0].Line != 2 {
		t.Errorf("short row: %v", probs)
	}
}

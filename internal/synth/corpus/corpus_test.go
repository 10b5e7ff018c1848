package corpus

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestPairJSONContract(t *testing.T) {
	p := Pair{PairID: "p1", ErrorType: NullPointer, BuggyMethod: "void f(){}", FixedMethod: "void f(){ }",
		ExampleBugIDs: []string{"Lang-1#0"}, Generator: "mutation", Flags: Flags{FixIntroducesLabel: true}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"pair_id":"p1","error_type":"NullPointerException","buggy_method":"void f(){}","fixed_method":"void f(){ }","example_bug_ids":["Lang-1#0"],"generator":"mutation","flags":{"fix_introduces_label":true}}`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("JSON field names are the contract (-want +got):\n%s", d)
	}
}

func TestValidate(t *testing.T) {
	good := Seed{BugID: "Lang-1#0", SourceBug: "Lang-1", Exception: NumberFormat, BuggyMethod: "a", FixedMethod: "b"}
	if err := good.Validate(); err != nil {
		t.Errorf("valid seed: %v", err)
	}
	bad := []Seed{
		{},
		{BugID: "x", Exception: NumberFormat, BuggyMethod: "a", FixedMethod: "b"},
		{BugID: "x", SourceBug: "x", Exception: "IOException", BuggyMethod: "a", FixedMethod: "b"},
		{BugID: "x", SourceBug: "x", Exception: NumberFormat, BuggyMethod: "a"},
	}
	for _, s := range bad {
		if err := s.Validate(); !errors.Is(err, errs.ErrInput) {
			t.Errorf("Validate(%+v) = %v, want ErrInput", s, err)
		}
	}
	if err := (Pair{PairID: "p", ErrorType: "Oops", BuggyMethod: "a", FixedMethod: "b"}).Validate(); !errors.Is(err, errs.ErrInput) {
		t.Errorf("bad pair type accepted: %v", err)
	}
}

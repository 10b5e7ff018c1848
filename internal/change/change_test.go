package change

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchforge/benchforge/internal/errs"
)

type row struct {
	Key, Side      string
	Added, Deleted int
	BodyOnly       bool
}

func rows(r *Result) []row {
	var out []row
	for _, f := range r.Functions {
		out = append(out, row{f.Key, f.Side, f.Added, f.Deleted, f.BodyOnly})
	}
	return out
}

func TestMethods(t *testing.T) {
	tests := []struct {
		name     string
		oldPath  string
		old, new string
		want     []row
	}{
		{
			name:    "java body change in one overload",
			oldPath: "A.java",
			old: `class A {
    int f(int x) {
        return x / 2;
    }
    int f(String s) {
        return s.length();
    }
}
`,
			new: `class A {
    int f(int x) {
        return x / 2;
    }
    int f(String s) {
        if (s == null) return 0;
        return s.length();
    }
}
`,
			want: []row{{"A.f(String)", "both", 1, 0, true}},
		},
		{
			name:    "java signature change is not body-only",
			oldPath: "A.java",
			old:     "class A {\n    int f(int x) {\n        return x;\n    }\n}\n",
			new:     "class A {\n    long f(int x) {\n        return x;\n    }\n}\n",
			want:    []row{{"A.f(int)", "both", 1, 1, false}},
		},
		{
			name:    "java field change is top level",
			oldPath: "A.java",
			old:     "class A {\n    int n = 1;\n    int f() {\n        return n;\n    }\n}\n",
			new:     "class A {\n    int n = 2;\n    int f() {\n        return n;\n    }\n}\n",
			want:    []row{{"", "both", 1, 1, false}},
		},
		{
			name:    "java method added",
			oldPath: "A.java",
			old:     "class A {\n}\n",
			new:     "class A {\n    void g() {\n    }\n}\n",
			want:    []row{{"A.g()", "new", 2, 0, false}},
		},
		{
			name:    "python body change",
			oldPath: "m.py",
			old:     "def mean(xs):\n    return sum(xs) / len(xs)\n\ndef other():\n    pass\n",
			new:     "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n\ndef other():\n    pass\n",
			want:    []row{{"mean(xs)", "both", 2, 0, true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Methods(tt.oldPath, []byte(tt.old), tt.oldPath, []byte(tt.new))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, rows(r), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("touched functions (-want +got):\n%s", d)
			}
		})
	}
}

func TestMethodsDemo(t *testing.T) {
	old, _ := os.ReadFile("../../testdata/demo/Buggy.java")
	new, _ := os.ReadFile("../../testdata/demo/Fixed.java")
	r, err := Methods("Buggy.java", old, "Fixed.java", new)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range r.Functions {
		keys = append(keys, f.Key)
		if !f.BodyOnly {
			t.Errorf("%s: demo fix should be body-only", f.Key)
		}
	}
	if len(keys) != 2 {
		t.Errorf("demo fix touches %v, want two methods", keys)
	}
}

func TestMethodsErrors(t *testing.T) {
	if _, err := Methods("a.txt", nil, "b.txt", nil); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("unknown language: %v", err)
	}
	if _, err := Methods("a.java", []byte("class A {}"), "a.java", []byte("\xff\xfe")); !errors.Is(err, errs.ErrInput) {
		t.Errorf("binary input: %v", err)
	}
}

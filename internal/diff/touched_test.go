package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTouched(t *testing.T) {
	// Old: class A lines 3-12, f 4-7, g 9-11. New: f 4-7, g 9-11, h 12-12.
	oldFuncs := []Span{{"A", 3, 12}, {"f", 4, 7}, {"g", 9, 11}}
	newFuncs := []Span{{"A", 3, 13}, {"f", 4, 7}, {"g", 9, 11}, {"h", 12, 12}}
	fd := mustParse(t, javaPatch)[0]
	tests := []struct {
		name               string
		fd                 *FileDiff
		oldFuncs, newFuncs []Span
		want               []Touch
	}{
		{"both sides", fd, oldFuncs, newFuncs, []Touch{
			{Function: "f", Side: "both", OldLines: []int{6}, NewLines: []int{6}, Added: 1, Deleted: 1},
			{Function: "A", Side: "old"}, // the insertion point of h lies in A
			{Function: "h", Side: "new", NewLines: []int{12}, Added: 1},
		}},
		{"old spans only", fd, oldFuncs, nil, []Touch{
			{Function: "f", Side: "old", OldLines: []int{6}, NewLines: []int{6}, Added: 1, Deleted: 1},
			{Function: "A", Side: "old", NewLines: []int{12}, Added: 1},
		}},
		{"no spans", fd, nil, nil, []Touch{
			{Function: "", Side: "old", OldLines: []int{6}, NewLines: []int{6, 12}, Added: 2, Deleted: 1},
		}},
		{"insertion between functions", mustParse(t, "--- a/x\n+++ b/x\n@@ -3,2 +3,3 @@\n }\n+// top\n int g() {\n")[0],
			[]Span{{"f", 1, 3}, {"g", 4, 6}}, []Span{{"f", 1, 3}, {"g", 5, 7}}, []Touch{
				{Function: "", Side: "new", NewLines: []int{4}, Added: 1},
			}},
		{"nested and empty span ignored", mustParse(t, "--- a/x\n+++ b/x\n@@ -2 +2 @@\n-a\n+b\n")[0],
			[]Span{{"outer", 1, 10}, {"inner", 2, 2}, {"bad", 5, 1}}, []Span{{"outer", 1, 10}, {"inner", 2, 3}}, []Touch{
				{Function: "inner", Side: "both", OldLines: []int{2}, NewLines: []int{2}, Added: 1, Deleted: 1},
			}},
		{"insertion at file start", mustParse(t, "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+import x;\n")[0],
			[]Span{{"f", 1, 3}}, nil, []Touch{
				{Function: "", Side: "old", NewLines: []int{1}, Added: 1},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Touched(tc.fd, tc.oldFuncs, tc.newFuncs)); d != "" {
				t.Errorf("Touched (-want +got):\n%s", d)
			}
		})
	}
}

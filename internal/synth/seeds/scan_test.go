package seeds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/shareddata"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// render prints a Prevalence compactly: the rows as JSON, one line per bug
// and the unknown-class log.
func render(t *testing.T, p *Prevalence) []byte {
	t.Helper()
	var b strings.Builder
	for _, r := range append(p.Rows, p.Pooled) {
		j, err := json.Marshal(r)
		testcheck.Must(t, err)
		b.Write(j)
		b.WriteByte('\n')
	}
	for _, bug := range p.Bugs {
		var classes []string
		for _, c := range bug.Classes {
			classes = append(classes, fmt.Sprintf("%s=%s%s", c.Class, c.Kind, c.Type))
		}
		fmt.Fprintf(&b, "%s %s %v %s%s\n", bug.ID, bug.Status, bug.Types, strings.Join(classes, " "), removedNote(bug.RemovedBy))
	}
	for _, u := range p.Unknown {
		fmt.Fprintf(&b, "unknown %s (%s) in %v\n", u.Class, u.Guess, u.Bugs)
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "problem %s\n", pr)
	}
	return []byte(b.String())
}

func TestScanSynthetic(t *testing.T) {
	p, err := ScanDefects4J(context.Background(), "testdata/d4j", ScanOptions{})
	testcheck.Must(t, err)
	golden.Check(t, filepath.Join("testdata", "synthetic_prevalence.golden"), render(t, p))
	want := map[string]Status{"Demo-1": StatusRuntime, "Demo-2": StatusJUnitOnly, "Demo-3": StatusRuntime, "Demo-4": StatusCheckedOnly,
		"Demo-5": StatusUnknown, "Demo-6": StatusUnchecked, "Demo-7": StatusUnknown, "Demo-8": StatusTestOrigin}
	for _, b := range p.Bugs {
		if want[b.ID] != b.Status {
			t.Errorf("%s: status %s, want %s", b.ID, b.Status, want[b.ID])
		}
	}
	if len(p.Problems) != 1 || p.Problems[0].Line != 9 {
		t.Errorf("problems = %v, want the bad bug.id on line 9", p.Problems)
	}
}

func TestScanDefects4J(t *testing.T) {
	defects4jRoot := shareddata.Full(t, "defects4j")
	// The paper's Table 2 counts 142 runtime bugs; the §3.1 default must
	// stay within 142 ± 7, and each wider reading adds exactly the bugs its
	// rule removes.
	readings := []struct {
		name string
		opts ScanOptions
		lo   int
		hi   int
	}{
		{"defects4j_prevalence.golden", ScanOptions{}, 135, 149},
		{"defects4j_prevalence_subclasses.golden", ScanOptions{Subclasses: true}, 135, 200},
		{"defects4j_prevalence_wide.golden", ScanOptions{Subclasses: true, AnyOrigin: true}, 135, 200},
	}
	for _, rd := range readings {
		p, err := ScanDefects4J(context.Background(), defects4jRoot, rd.opts)
		testcheck.Must(t, err)
		golden.Check(t, filepath.Join("testdata", rd.name), render(t, p))
		if p.Pooled.Runtime < rd.lo || p.Pooled.Runtime > rd.hi {
			t.Errorf("%+v: %d runtime bugs, want %d..%d", rd.opts, p.Pooled.Runtime, rd.lo, rd.hi)
		}
		if wide := p.Pooled.Runtime + p.Pooled.RemovedSubclass + p.Pooled.RemovedTestOrigin; wide != 179 {
			t.Errorf("%+v: runtime + removed = %d, want the wide reading's 179", rd.opts, wide)
		}
		if p.Pooled.Total != 854 || len(p.Unknown) != 0 || len(p.Problems) != 0 {
			t.Errorf("pooled %d bugs, %d unknown classes, %d problems; want 854, 0, 0", p.Pooled.Total, len(p.Unknown), len(p.Problems))
		}
		sum := 0
		for _, r := range p.Rows {
			sum += r.Runtime
		}
		if sum != p.Pooled.Runtime {
			t.Errorf("project rows sum to %d runtime bugs, pooled says %d", sum, p.Pooled.Runtime)
		}
	}
}

// TestScanVendored scans the vendored bugs, chosen one or two per outcome
// (testdata/defects4j/README.md at the module root), under the three
// readings: each outcome appears, and the wide reading adds back exactly
// what the narrow one's two rules remove.
func TestScanVendored(t *testing.T) {
	root := shareddata.Vendored(t, "defects4j")
	for _, rd := range []struct {
		name string
		opts ScanOptions
	}{
		{"vendored_prevalence.golden", ScanOptions{}},
		{"vendored_prevalence_wide.golden", ScanOptions{Subclasses: true, AnyOrigin: true}},
	} {
		p, err := ScanDefects4J(context.Background(), root, rd.opts)
		testcheck.Must(t, err)
		golden.Check(t, filepath.Join("testdata", rd.name), render(t, p))
		if p.Pooled.Total != 13 || len(p.Unknown) != 0 || len(p.Problems) != 0 {
			t.Errorf("pooled %d bugs, %d unknown classes, %d problems; want 13, 0, 0", p.Pooled.Total, len(p.Unknown), len(p.Problems))
		}
		if wide := p.Pooled.Runtime + p.Pooled.RemovedSubclass + p.Pooled.RemovedTestOrigin; wide != 9 {
			t.Errorf("%+v: runtime + removed = %d, want 9 (7 runtime, Math-1, Lang-35)", rd.opts, wide)
		}
	}
}

func TestScanErrors(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "Lang")
	testcheck.Must(t, os.MkdirAll(filepath.Join(proj, "trigger_tests"), 0o755))
	testcheck.Must(t, os.WriteFile(filepath.Join(proj, "active-bugs.csv"), []byte("bug.id,revision.id.buggy,revision.id.fixed\n1,a,b\n2,c,d\n"), 0o644))
	testcheck.Must(t, os.WriteFile(filepath.Join(proj, "trigger_tests", "1"), []byte("--- a.B::c\n"), 0o644))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		dir  string
		want error
		msg  string
	}{
		{"bad trigger file", context.Background(), dir, errs.ErrInput, "Lang-1"},
		{"not a layout", context.Background(), t.TempDir(), errs.ErrInput, "no active-bugs.csv"},
		{"canceled", canceled, dir, context.Canceled, "Lang-1"},
	}
	for _, tt := range tests {
		_, err := ScanDefects4J(tt.ctx, tt.dir, ScanOptions{})
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want %v naming %q", tt.name, err, tt.want, tt.msg)
		}
	}
	testcheck.Must(t, os.WriteFile(filepath.Join(proj, "trigger_tests", "1"), []byte("--- a.B::c\nx.Y\n"), 0o644))
	if _, err := ScanDefects4J(context.Background(), dir, ScanOptions{}); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "Lang-2") {
		t.Errorf("missing trigger file: err = %v, want ErrInput naming Lang-2", err)
	}
}

func removedNote(r Rule) string {
	if r == "" {
		return ""
	}
	return " removed_by=" + string(r)
}

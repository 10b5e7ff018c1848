package release

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/jvm"
	"github.com/benchforge/benchforge/internal/testcheck"
	"github.com/google/go-cmp/cmp"
)

// jvmPairs are hand-written pairs (after internal/synth/jvm/testdata)
// citing the fixture seeds: three that a JVM confirms under criterion (c),
// one IllegalStateException among them, and one it cannot (no input makes
// a + b throw).
var jvmPairs = []corpus.Pair{
	{PairID: "j-npe", ErrorType: corpus.NullPointer, Generator: "hand", ExampleBugIDs: []string{"Lang-7-a"},
		BuggyMethod: "int len(String s) {\n    return s.length();\n}\n",
		FixedMethod: "int len(String s) {\n    if (s == null) return 0;\n    return s.length();\n}\n"},
	{PairID: "j-aioobe", ErrorType: corpus.ArrayIndexOOB, Generator: "hand", ExampleBugIDs: []string{"Math-3", "L7"},
		BuggyMethod: "static int last(int[] a) {\n    return a[a.length];\n}\n",
		FixedMethod: "static int last(int[] a) {\n    return a.length == 0 ? -1 : a[a.length - 1];\n}\n"},
	{PairID: "j-ise", ErrorType: corpus.IllegalState, Generator: "hand", ExampleBugIDs: []string{"Math-3"},
		BuggyMethod: "void dropFirst(List<String> xs) {\n    Iterator<String> it = xs.iterator();\n    it.remove();\n}\n",
		FixedMethod: "void dropFirst(List<String> xs) {\n    Iterator<String> it = xs.iterator();\n    if (it.hasNext()) { it.next(); it.remove(); }\n}\n"},
	{PairID: "j-never", ErrorType: corpus.NullPointer, Generator: "hand", ExampleBugIDs: []string{"Lang-7-a"},
		BuggyMethod: "int add(int a, int b) {\n    return a + b;\n}\n",
		FixedMethod: "int add(int a, int b) {\n    return b + a;\n}\n"},
}

// verifyJVMPairs runs synth verify's jvm.Run on jvmPairs, skipping the test
// without a JDK, and returns the run's confirmed.jsonl, executions.jsonl
// and a file holding all four pairs.
func verifyJVMPairs(t *testing.T) (confirmed, executions, all string) {
	t.Helper()
	ctx := context.Background()
	jdk, err := jvm.FindJDK(ctx)
	if err != nil {
		t.Skipf("no JDK: %v", err)
	}
	out := t.TempDir()
	s, err := jvm.Run(ctx, jvmPairs, out, jvm.Options{JDK: &jdk, CacheDir: t.TempDir(), Budget: 60})
	testcheck.Must(t, err)
	if s.Confirmed != 3 {
		t.Fatalf("the JVM confirmed %d of the pairs, want 3 (all but j-never): %+v", s.Confirmed, s.Table)
	}
	all = filepath.Join(out, "all.jsonl")
	writeLines(t, all, jvmPairs)
	return s.ConfirmedPath, filepath.Join(out, jvm.ExecutionsFile), all
}

func writeLines[T any](t *testing.T, path string, recs []T) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		testcheck.Must(t, err)
		b.Write(append(line, '\n'))
	}
	testcheck.Must(t, os.WriteFile(path, b.Bytes(), 0o644))
}

func jvmInputs(confirmed, executions string) Inputs {
	in := func(name string) string { return filepath.Join("testdata", "in", name) }
	return Inputs{Core: confirmed, ValidatedBy: ValidatedByJVM, Executions: executions,
		Excluded: []string{in("rejections.jsonl")}, Seeds: in("seeds.jsonl"), IDMap: in("idmap.csv")}
}

// TestJVMValidatedRelease builds a release whose core is validated by real
// JVM executions, checks it, and then breaks it: inputs Build must refuse
// and records Check must reject, each named by file:line and field.
func TestJVMValidatedRelease(t *testing.T) {
	confirmed, executions, all := verifyJVMPairs(t)
	build := func(t *testing.T) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "rel")
		res, err := Build(context.Background(), jvmInputs(confirmed, executions), dir, Options{CodeLicense: "MIT", Name: "jvm corpus"})
		testcheck.Must(t, err)
		if res.Manifest.ValidatedBy != ValidatedByJVM {
			t.Errorf("manifest validated_by = %q", res.Manifest.ValidatedBy)
		}
		return dir
	}

	t.Run("build and check", func(t *testing.T) { checkJVMRelease(t, build(t)) })
	t.Run("build refuses", func(t *testing.T) { checkJVMBuildRefuses(t, confirmed, executions, all) })

	tests := []struct {
		name    string
		corrupt func(t *testing.T, dir string)
		want    Problem // Msg is a substring
	}{
		{"trigger input removed", func(t *testing.T, d string) {
			mutateCore(t, d, 1, func(r map[string]any) { delete(jvmBlock(r), "input") })
		}, Problem{File: "core.jsonl", Line: 1, Field: "validation.jvm.input", Msg: "required field is missing"}},
		{"evidence removed", func(t *testing.T, d string) {
			mutateCore(t, d, 2, func(r map[string]any) { delete(r["validation"].(map[string]any), "jvm") })
		}, Problem{File: "core.jsonl", Line: 2, Field: "validation.jvm", Msg: "missing: a jvm-validated pair needs its execution evidence"}},
		{"throw moved off the site", func(t *testing.T, d string) {
			mutateCore(t, d, 1, func(r map[string]any) { jvmBlock(r)["buggy_outcome"].(map[string]any)["line"] = 40 })
		}, Problem{File: "core.jsonl", Line: 1, Field: "validation.jvm.buggy_outcome.line", Msg: "40 is not a line of the patched site"}},
		{"site lines edited", func(t *testing.T, d string) {
			mutateCore(t, d, 3, func(r map[string]any) { jvmBlock(r)["site_lines"] = []int{1} })
		}, Problem{File: "core.jsonl", Line: 3, Field: "validation.jvm.site_lines", Msg: "but the patched site of the methods is"}},
		{"fixed side raises the label", func(t *testing.T, d string) {
			mutateCore(t, d, 1, func(r map[string]any) {
				jvmBlock(r)["fixed_outcome"] = map[string]any{"kind": "threw", "exception": "java.lang.NullPointerException", "line": 2}
			})
		}, Problem{File: "core.jsonl", Line: 1, Field: "validation.jvm.fixed_outcome", Msg: "also raises NullPointerException at the patched site"}},
		{"judge block on a jvm pair", func(t *testing.T, d string) {
			mutateCore(t, d, 2, func(r map[string]any) {
				r["judge"] = map[string]any{"model": "m", "confidence": 0.9, "verdict": "accept"}
			})
		}, Problem{File: "core.jsonl", Line: 2, Field: "judge", Msg: "present on a jvm-validated pair"}},
		{"mixed: one pair judge-validated", func(t *testing.T, d string) {
			mutateCore(t, d, 2, func(r map[string]any) {
				r["validation"] = map[string]any{"by": "judge"}
				r["judge"] = map[string]any{"model": "m", "confidence": 0.9, "verdict": "accept"}
			})
		}, Problem{File: "core.jsonl", Line: 2, Field: "validation.by", Msg: `is "judge", but the manifest says the core is validated by "jvm"`}},
		{"ise flag on a jvm pair", func(t *testing.T, d string) {
			mutateCore(t, d, 3, func(r map[string]any) { r["flags"].(map[string]any)["ise_low_confidence"] = true })
		}, Problem{File: "core.jsonl", Line: 3, Field: "flags.ise_low_confidence", Msg: "always false"}},
		{"manifest claims judge", func(t *testing.T, d string) {
			edit(t, d, ManifestFile, `"validated_by": "jvm"`, `"validated_by": "judge"`, false)
		}, Problem{File: "core.jsonl", Line: 1, Field: "validation.by", Msg: "the manifest says the core is validated by \"judge\""}},
		{"unknown method", func(t *testing.T, d string) {
			mutateCore(t, d, 1, func(r map[string]any) { r["validation"].(map[string]any)["by"] = "oracle" })
		}, Problem{File: "core.jsonl", Line: 1, Field: "validation.by", Msg: "is not one of judge, jvm"}},
		{"generation row not confirmed", func(t *testing.T, d string) {
			edit(t, d, "generation.csv", ",confirmed,", ",unconfirmed,", true)
		}, Problem{File: "generation.csv", Line: 2, Field: "execution", Msg: "jvm-validated, but its row does not record a confirmed execution"}},
	}
	for _, tt := range tests {
		t.Run("check rejects "+tt.name, func(t *testing.T) {
			dir := build(t)
			tt.corrupt(t, dir)
			checkHasProblem(t, dir, tt.want)
		})
	}
}

// checkJVMRelease checks a freshly built jvm-validated release: its
// counts, its core records, its datasheet and its own check.
func checkJVMRelease(t *testing.T, dir string) {
	t.Helper()
	checkJVMCounts(t, dir)
	checkJVMCore(t, dir)
	checkJVMDatasheet(t, dir)
	chk, err := Check(context.Background(), dir)
	testcheck.Must(t, err)
	if !chk.OK() {
		t.Fatalf("fresh jvm release fails its check:\n%s", problems(chk))
	}
}

// checkJVMCounts checks the manifest's counts of the jvm release.
func checkJVMCounts(t *testing.T, dir string) {
	t.Helper()
	var m Manifest
	raw, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	testcheck.Must(t, json.Unmarshal(raw, &m))
	// The wanted counts are the manifest's with the checked fields set.
	c := m.Counts
	want := c
	want.Core, want.ValidatedByJVM, want.ValidatedByJudge, want.Confirmed, want.NotRun, want.ISELowConfidence, want.Repaired = 3, 3, 0, 3, 0, 0, 0
	// j-never ran but raised nothing: excluded at the jvm stage with
	// the criterion it failed, beside the input's one gate rejection:
	// 3 core + 2 excluded = 5 candidates.
	want.Excluded, want.Candidates = 2, 5
	want.JudgeModels = nil
	if d := cmp.Diff(want, c); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	if len(c.Exclusions) != 2 || c.Exclusions[1].Stage != StageJVM || c.Exclusions[1].Category != "jvm_unconfirmed_a" {
		t.Errorf("exclusions %+v; want j-never excluded as jvm_unconfirmed_a", c.Exclusions)
	}
	if len(c.JDKs) != 1 || c.JDKs[0].Count != 3 {
		t.Errorf("jdks %v, want one for the 3 pairs", c.JDKs)
	}
	if len(c.Harnesses) != 1 || c.Harnesses[0].Name != boundarySearch {
		t.Errorf("harnesses %v, want the boundary search alone", c.Harnesses)
	}
}

// checkJVMCore checks that every core pair carries JVM evidence and no
// judge block.
func checkJVMCore(t *testing.T, dir string) {
	t.Helper()
	recs, _ := jsonlRecords[CorePair](t, filepath.Join(dir, "core.jsonl"))
	for _, p := range recs {
		ev := p.Validation.JVM
		if p.Validation.By != ValidatedByJVM || p.Judge != nil || ev == nil {
			t.Fatalf("%s: validation %+v judge %v", p.PairID, p.Validation, p.Judge)
		}
		checkJVMEvidence(t, p.PairID, ev, "java.lang."+p.ErrorType)
		if p.Flags.ISELowConfidence {
			t.Errorf("%s: ise_low_confidence set on a jvm-validated pair", p.PairID)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "core.jsonl"))
	if bytes.Contains(raw, []byte(`"judge"`)) {
		t.Errorf("core.jsonl has a judge block:\n%s", raw)
	}
}

// checkJVMEvidence checks a core pair's JVM evidence: an input, a JDK,
// the site lines and the buggy method throwing exception.
func checkJVMEvidence(t *testing.T, id string, ev *CoreExecution, exception string) {
	t.Helper()
	if ev.Input == "" || ev.JDK == "" || len(ev.SiteLines) == 0 {
		t.Errorf("%s: evidence %+v, want an input, a JDK and site lines", id, ev)
	}
	testcheck.Eq(t, id+": buggy outcome", ev.BuggyOutcome.Kind, "threw")
	testcheck.Eq(t, id+": buggy exception", ev.BuggyOutcome.Exception, exception)
}

// checkJVMDatasheet checks that the datasheet describes the JVM validation,
// not a judge's.
func checkJVMDatasheet(t *testing.T, dir string) {
	t.Helper()
	sheet, _ := os.ReadFile(filepath.Join(dir, DatasheetFile))
	for _, want := range []string{"validated by JVM execution.", "never set on the\n  3 pairs validated by JVM execution",
		"**JVM execution, criterion (c)** (3 pairs, §5.4)", "harnesses: boundary-value search (3).", "3 core pairs were validated by JVM\n  execution alone"} {
		testcheck.Contains(t, "datasheet", string(sheet), want)
	}
	if strings.Contains(string(sheet), "LLM judge**") {
		t.Errorf("datasheet describes a judge validation:\n%s", sheet)
	}
}

// checkJVMBuildRefuses checks that Build refuses jvm inputs that do not
// hold confirmed evidence for every core pair.
func checkJVMBuildRefuses(t *testing.T, confirmed, executions, all string) {
	t.Helper()
	tmp := t.TempDir()
	recs, _ := jsonlRecords[jvm.Execution](t, executions)
	// Shift the npe pair's recorded site: the evidence no longer fits
	// the methods, as when the executions come from another corpus.
	for i := range recs {
		if recs[i].PairID == "j-npe" {
			recs[i].Site.Buggy = []int{99}
		}
	}
	shifted := filepath.Join(tmp, "shifted.jsonl")
	writeLines(t, shifted, recs)
	tests := []struct {
		name string
		mod  func(in *Inputs)
		want error
		msg  string
	}{
		{"unconfirmed pair in the core", func(in *Inputs) { in.Core = all }, errs.ErrInput,
			"all.jsonl:4: pair j-never: invalid input: " + executions + ":"},
		{"pair without an execution", func(in *Inputs) { in.Core = filepath.Join("testdata", "in", "core.jsonl") }, errs.ErrInput,
			"core.jsonl:1: pair p-npe-1: invalid input: no execution record in " + executions},
		{"no executions file", func(in *Inputs) { in.Executions = "" }, errs.ErrUsage, "needs the executions file"},
		{"unknown method", func(in *Inputs) { in.ValidatedBy = "oracle" }, errs.ErrUsage, `"oracle"`},
		{"judge method on confirmed.jsonl", func(in *Inputs) { in.ValidatedBy = ValidatedByJudge }, errs.ErrInput, "no accepting judge"},
		{"evidence off the site", func(in *Inputs) { in.Executions = shifted }, errs.ErrInput, "pair j-npe: invalid input: execution record " + shifted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := jvmInputs(confirmed, executions)
			tt.mod(&in)
			_, err := Build(context.Background(), in, filepath.Join(t.TempDir(), "rel"), Options{CodeLicense: "MIT"})
			if !refused(err, tt.want, tt.msg) {
				t.Errorf("err = %v\nwant %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
	_, err := Build(context.Background(), func() Inputs { in := jvmInputs(confirmed, executions); in.Core = all; return in }(), filepath.Join(tmp, "r"), Options{CodeLicense: "MIT"})
	if err == nil || !strings.Contains(err.Error(), "unconfirmed") || !strings.Contains(err.Error(), "use that run's confirmed.jsonl as --core") {
		t.Errorf("unconfirmed pair: err = %v, want the status and what to do", err)
	}
}

// checkHasProblem checks the release in dir and wants a problem like want
// (its Msg a substring).
func checkHasProblem(t *testing.T, dir string, want Problem) {
	t.Helper()
	res, err := Check(context.Background(), dir)
	testcheck.Must(t, err)
	for _, p := range res.Problems {
		if p.File == want.File && p.Line == want.Line && p.Field == want.Field && strings.Contains(p.Msg, want.Msg) {
			return
		}
	}
	t.Errorf("want a problem like %s; got:\n%s", want, problems(res))
}

// jsonlRecords decodes every line of a JSONL file.
func jsonlRecords[T any](t *testing.T, path string) ([]T, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	testcheck.Must(t, err)
	var out []T
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out, lines = append(out, v), append(lines, line)
	}
	return out, lines
}

// mutateCore rewrites line n of the release's core.jsonl through f and
// reseals it, so the check sees exactly the tampering.
func mutateCore(t *testing.T, dir string, n int, f func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "core.jsonl")
	_, lines := jsonlRecords[map[string]any](t, path)
	var r map[string]any
	testcheck.Must(t, json.Unmarshal([]byte(lines[n-1]), &r))
	f(r)
	b, err := json.Marshal(r)
	testcheck.Must(t, err)
	lines[n-1] = string(b)
	testcheck.Must(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	reseal(t, dir, "core.jsonl")
}

func jvmBlock(r map[string]any) map[string]any {
	return r["validation"].(map[string]any)["jvm"].(map[string]any)
}

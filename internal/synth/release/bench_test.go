package release

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// Measured (BenchmarkBuildCheck: 5,000 core pairs, 170 seeds, build then
// check, 2-core VM at load average ~19): 5.8 s wall per build+check, of
// which ~1.8 CPU-s (Build 0.74, Check 0.71); 57% of the CPU is the
// tree-sitter parse behind judge.FixIntroducesLabel, run once per pair on
// build and once on check.

// BenchmarkBuildCheck builds and checks a release of 5,000 core pairs
// (the order of the paper's 4,275) against 170 seeds.
func BenchmarkBuildCheck(b *testing.B) {
	tmp := b.TempDir()
	writeJSONL := func(name string, recs []any) string {
		f, err := os.Create(filepath.Join(tmp, name))
		testcheck.Must(b, err)
		enc := json.NewEncoder(f)
		for _, r := range recs {
			testcheck.Must(b, enc.Encode(r))
		}
		testcheck.Must(b, f.Close())
		return f.Name()
	}
	var seeds, core []any
	for i := range 170 {
		seeds = append(seeds, corpus.Seed{BugID: fmt.Sprintf("B-%d-a", i), SourceBug: fmt.Sprintf("B-%d", i), Benchmark: "Defects4J", Project: "P",
			Exception: corpus.Types[i%7], BuggyMethod: "void m() {\n}", FixedMethod: "void m() {\n  return;\n}", File: "F.java", MethodSignature: "void m()"})
	}
	for i := range 5000 {
		typ := corpus.Types[i%7]
		core = append(core, corpus.Pair{PairID: fmt.Sprintf("p%d", i), ErrorType: typ, Generator: "llm:x",
			BuggyMethod:   fmt.Sprintf("public int f%d(String s, int[] a) {\n    int n = s.length();\n    n += a[0];\n    return n;\n}", i),
			FixedMethod:   fmt.Sprintf("public int f%d(String s, int[] a) {\n    if (s == null || a.length == 0) {\n        throw new %s(\"bad\");\n    }\n    int n = s.length();\n    n += a[0];\n    return n;\n}", i, typ),
			ExampleBugIDs: []string{fmt.Sprintf("B-%d-a", i%170), fmt.Sprintf("B-%d", (i+1)%170)},
			Judge:         &corpus.Judgement{Model: "j", Confidence: 0.9, Verdict: "accept"}})
	}
	in := Inputs{Core: writeJSONL("core.jsonl", core), Seeds: writeJSONL("seeds.jsonl", seeds)}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		dir := filepath.Join(tmp, fmt.Sprint("rel", i))
		if _, err := Build(ctx, in, dir, Options{CodeLicense: "MIT"}); err != nil {
			b.Fatal(err)
		}
		res, err := Check(ctx, dir)
		if err != nil || !res.OK() {
			b.Fatalf("%v %v", err, res.Problems)
		}
	}
}

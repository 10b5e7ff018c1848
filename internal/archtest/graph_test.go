package archtest

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/benchforge/benchforge/"

// root is the module's directory: the tests run in internal/archtest.
var root = filepath.Join("..", "..")

// deps returns the module packages pkg depends on, itself included,
// through the imports of its non-test files (what `go list -deps` shows,
// restricted to this module). It reads the files with go/build, so it
// needs no go command and sees exactly the build's file selection.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		bp, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(p, module)), 0)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		for _, imp := range bp.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp)
			}
		}
	}
	walk(module + pkg)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, strings.TrimPrefix(p, module))
	}
	slices.Sort(out)
	return out
}

// TestIndependentVerifier: the JVM verifier is the paper's independent
// check of the judge (rxsynth §6), so it reads the judge's records
// through internal/synth/corpus and answers through internal/llm/answer,
// never the judge's or the gate's code.
func TestIndependentVerifier(t *testing.T) {
	for _, d := range deps(t, "internal/synth/jvm") {
		if d == "internal/synth/judge" || d == "internal/synth/gate" || strings.HasPrefix(d, "internal/synth/judge/") || strings.HasPrefix(d, "internal/synth/gate/") {
			t.Errorf("internal/synth/jvm depends on %s", d)
		}
	}
}

// TestRepoprobeNeedsOnlyTheModelInterface: Stage I's probe asks any model
// through the llm interface; the providers, the testbed (which trains and
// serves an n-gram model) and the n-gram model itself are wired by the
// caller.
func TestRepoprobeNeedsOnlyTheModelInterface(t *testing.T) {
	forbidden := []string{"internal/audit/testbed", "internal/llm/openai", "internal/llm/anthropic",
		"internal/llm/ngramllm", "internal/llm/providers", "internal/llm/llmtest"}
	for _, d := range deps(t, "internal/audit/repoprobe") {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("internal/audit/repoprobe depends on %s", d)
			}
		}
	}
}

// TestRepoprobeUsesNgramForTokensOnly: repoprobe lexes sources with the
// n-gram package's tokenizer (one lexer, so probe targets and model
// tokens agree); it may name nothing else there — not the trainer, the
// model or the server.
func TestRepoprobeUsesNgramForTokensOnly(t *testing.T) {
	allowed := map[string]bool{"Tokenize": true, "Token": true, "Kind": true}
	dir := filepath.Join(root, "internal", "audit", "repoprobe")
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range bp.GoFiles {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"`+module+`internal/ngram"` {
				local = "ngram"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && !allowed[sel.Sel.Name] && !strings.HasPrefix(sel.Sel.Name, "Kind") {
				t.Errorf("%s: repoprobe uses ngram.%s; only the tokenizer is allowed", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

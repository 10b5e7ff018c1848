package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The house's size rules (issue 17): no function over maxLines lines
// unless a comment just above it says why ("// Long because ..."), and
// an average cyclomatic complexity, counted as gocyclo counts it, of at
// most maxAverage over the module's non-test functions.
const (
	maxLines   = 60
	maxAverage = 5.0
	longWhy    = "Long because"
)

// goFunc is one function declaration of the module's non-test code.
type goFunc struct {
	pos        token.Position
	name       string
	lines      int
	complexity int
	excused    bool
}

func TestFunctionSize(t *testing.T) {
	funcs := moduleFuncs(t)
	total := 0
	for _, f := range funcs {
		total += f.complexity
		if f.lines > maxLines && !f.excused {
			t.Errorf("%s: %s is %d lines (over %d): split it, or say why above it with // %s ...", f.pos, f.name, f.lines, maxLines, longWhy)
		}
	}
	avg := float64(total) / float64(len(funcs))
	if avg > maxAverage {
		t.Errorf("average cyclomatic complexity %.2f over %d non-test functions, want at most %.1f", avg, len(funcs), maxAverage)
	}
	t.Logf("%d non-test functions, average cyclomatic complexity %.2f", len(funcs), avg)
}

// TestComplexityCount pins the counting rule on examples (gocyclo's: one,
// plus one per if, for, range, case, select case, && and ||).
func TestComplexityCount(t *testing.T) {
	for src, want := range map[string]int{
		"func f() {}": 1,
		"func f(a, b bool) { if a && b || a { for range 3 {} } }":                                  5,
		"func f(x int) int { switch x { case 1, 2: return 1; default: return 0 } }":                2,
		"func f(c chan int) { select { case <-c: ; default: } ; g := func() { if true {} }; g() }": 3,
	} {
		file, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := complexity(file.Decls[0].(*ast.FuncDecl)); got != want {
			t.Errorf("%s: complexity %d, want %d", src, got, want)
		}
	}
}

func moduleFuncs(t *testing.T) []goFunc {
	t.Helper()
	fset := token.NewFileSet()
	var out []goFunc
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
				return err
			}
			file, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			out = append(out, fileFuncs(fset, file)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func fileFuncs(fset *token.FileSet, file *ast.File) []goFunc {
	var out []goFunc
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, goFunc{pos: start, name: fd.Name.Name, lines: end.Line - start.Line + 1,
			complexity: complexity(fd), excused: fd.Doc != nil && strings.Contains(fd.Doc.Text(), longWhy)})
	}
	return out
}

// complexity is fd's cyclomatic complexity, function literals included.
func complexity(fd *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fd, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

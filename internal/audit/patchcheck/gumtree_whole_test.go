package patchcheck

import (
	"os"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
)

// TestBestContainerCountsWholeSubtreesExactly runs bottom-up matching on
// real Java edits and checks, at every node, that counting a wholly mapped
// subtree once by its size picks the container walking each node would.
func TestBestContainerCountsWholeSubtreesExactly(t *testing.T) {
	src, err := os.ReadFile("../../synth/jvm/java/BenchforgeWorker.java")
	if err != nil {
		t.Fatal(err)
	}
	a := string(src)
	edits := []string{
		strings.Replace(a, "return", "return /* */", 3),
		strings.Replace(strings.Replace(a, "if (", "if (!", 5), "null", "NULL", 7),
		a[:len(a)/3] + "\n    void extra() { int x = 1; x++; }\n" + a[len(a)/3:],
		strings.Replace(strings.Replace(a, "String", "CharSequence", 9), "for (", "for (final ", 4),
		strings.Replace(a, "    }\n", "        check();\n    }\n", 6),
	}
	checked, found := 0, 0
	for _, b := range edits {
		ta, tb := newTree(parseJava(t, a), 0), newTree(parseJava(t, b), 0)
		m := &matcher{a: ta, b: tb, ab: newMapping(ta), ba: newMapping(tb), whole: make([]bool, ta.size(ta.root))}
		m.topDown(2)
		for x := m.a.nodes[m.a.root].End() - 1; x >= m.a.root; x-- {
			if m.ab.mapped(x) || m.a.nodes[x].End() == x+1 {
				continue
			}
			got, want := m.bestContainer(x), bestContainerByNode(m, x)
			if got != want {
				t.Fatalf("node %d (%s): chose %d, walking every node %d", x, m.a.nodes[x].Kind(), got, want)
			}
			checked++
			if got >= 0 {
				found++
				m.link(x, got)
				m.recoverChildren(x, got)
			}
		}
	}
	if checked < 150 || found == 0 { // the edits leave this many inner nodes unmapped after top-down
		t.Fatalf("only %d nodes checked, %d containers found", checked, found)
	}
}

func parseJava(t *testing.T, src string) *code.File {
	t.Helper()
	f, err := code.Parse(code.LangJava, "W.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bestContainerByNode is bestContainer walking up from every mapped
// descendant.
func bestContainerByNode(m *matcher, x int) int {
	counts := map[int]int{}
	kind := m.a.nodes[x].Kind()
	for k := x + 1; k < m.a.nodes[x].End(); k++ {
		p, ok := m.ab.get(k)
		if !ok {
			continue
		}
		for q := m.b.nodes[p].Parent(); q >= m.b.root; q = m.b.nodes[q].Parent() {
			if !m.ba.mapped(q) && m.b.nodes[q].Kind() == kind {
				counts[q]++
			}
		}
	}
	best, bestD := -1, 0.5
	dx := m.a.size(x) - 1
	for q, c := range counts {
		d := 2 * float64(c) / float64(dx+m.b.size(q)-1)
		if d > bestD || d == bestD && (best < 0 || q < best) {
			best, bestD = q, d
		}
	}
	return best
}

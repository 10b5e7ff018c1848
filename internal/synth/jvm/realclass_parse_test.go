package jvm

import (
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/testcheck"
)

const nestedFile = `package org.n;

public class Outer {
    public Outer(int n) { }

    public static class Inner {
        public Inner(String s) { }

        public int size() { return 1; }
    }
}
`

// TestAddConstructorReusesParse: the constructor goes before the closing
// brace of the method's class, on that brace's line, whether the real
// file's parse is handed over or the file is parsed again.
func TestAddConstructorReusesParse(t *testing.T) {
	f, err := code.Parse(code.LangJava, "Outer.java", []byte(nestedFile))
	testcheck.Must(t, err)
	defer f.Close()
	reused := &realClass{texts: map[string]string{"O": nestedFile}}
	fresh := &realClass{texts: map[string]string{"O": nestedFile}}
	if why := reused.addConstructor("Outer.java", "Outer.Inner", []string{`(String) "abc"`}, f); why != "" {
		t.Fatal(why)
	}
	if why := fresh.addConstructor("Outer.java", "Outer.Inner", []string{`(String) "abc"`}, nil); why != "" {
		t.Fatal(why)
	}
	want := strings.Replace(nestedFile, "return 1; }\n    }", `return 1; }
     Inner() throws Exception { this((String) "abc"); } }`, 1)
	if reused.texts["O"] != want || fresh.texts["O"] != want {
		t.Errorf("with the parse:\n%s\nparsed again:\n%s\nwant:\n%s", reused.texts["O"], fresh.texts["O"], want)
	}
	if why := fresh.addConstructor("Outer.java", "Outer.Gone", nil, nil); !strings.Contains(why, "no closing brace of class Outer.Gone") {
		t.Errorf("missing class: %q", why)
	}
}

// TestUnitBodyEnds: a unit finds each live side's class end in its base
// once and keeps it for later layers.
func TestUnitBodyEnds(t *testing.T) {
	mk := func(chain string) *side {
		return &side{h: &harness{real: &realClass{chain: chain}}, kind: "B"}
	}
	u := &unit{path: "Outer.java", base: nestedFile, sides: []*side{mk("Outer"), mk("Outer.Inner"), mk("Outer")}}
	testcheck.Must(t, u.bodyEnds())
	for _, chain := range []string{"Outer", "Outer.Inner"} {
		if got, want := u.ends[chain], classBodyEnd(nestedFile, "Outer.java", chain); got != want || got < 0 {
			t.Errorf("%s: end %d, want %d", chain, got, want)
		}
	}
	u.base = "" // a later layer reads the kept ends, not the text
	testcheck.Must(t, u.bodyEnds())
	u.sides = append(u.sides, mk("Outer.Gone"))
	u.base = nestedFile
	if err := u.bodyEnds(); err == nil || !strings.Contains(err.Error(), "Outer.Gone") {
		t.Errorf("missing class: %v", err)
	}
}
